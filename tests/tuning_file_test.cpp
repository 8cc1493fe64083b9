// SYMCOLL_TUNING_FILE: parsing a synthetic tuning file, its signature check, the choices it
// makes ahead of the built-in table (and what --explain says of each), and malformed files
// named by file and line.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <gtest/gtest.h>
#include "tuning.h"
#include "tuning_file.h"
#include "tuning_table.h"

namespace {

constexpr size_t KiB = 1024;

const char *const kFile = "symcoll-tuning 1\n"
                          "# measured on 4 x NVLink (synthetic)\n"
                          "signature 4 nvlink\n"
                          "\n"
                          "reduce nvlink 4 8192 one_shot 8 256   # small: one_shot\n"
                          "reduce nvlink 4 any ll 16 128\n"
                          "broadcast pcie-p2p 8 any push 32 512\n";

struct Parsed {
    symcoll_tuning_file_t file;
    int rc;
    std::string err;
    explicit Parsed(const std::string &text) {
        char buf[384] = "";
        rc = symcoll_tuning_file_parse(text.c_str(), "machine.tuning", &file, buf, sizeof buf);
        err = buf;
    }
    ~Parsed() {
        symcoll_tuning_file_free(&file);
    }
};

symcoll_choice_t select(symcoll_collective_t c, size_t bytes, int n, topo_class_t topo,
                        const symcoll_tuning_file_t *file) {
    symcoll_tuning_query_t q = {};
    q.collective = c;
    q.bytes = bytes;
    q.elem_size = 4;
    q.team_size = n;
    q.topo = topo;
    q.sm_count = 132;
    q.file = file;
    symcoll_choice_t out;
    EXPECT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    return out;
}

TEST(TuningFile, ParsesSignatureAndRows) {
    Parsed p(kFile);
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_STREQ(p.file.path, "machine.tuning");
    EXPECT_EQ(p.file.n_pes, 4);
    EXPECT_EQ(p.file.topo, TOPO_NVLINK);
    ASSERT_EQ(p.file.n_rows, 3u);
    EXPECT_EQ(p.file.rows[0].collective, SYMCOLL_COLL_REDUCE);
    EXPECT_EQ(p.file.rows[0].max_bytes, 8192u);
    EXPECT_STREQ(p.file.rows[0].algo, "one_shot");
    EXPECT_EQ(p.file.rows[0].blocks, 8);
    EXPECT_EQ(p.file.rows[0].threads, 256);
    EXPECT_EQ(p.file.rows[1].max_bytes, SIZE_MAX);
    EXPECT_EQ(p.file.rows[2].topo, TOPO_PCIE_P2P);
}

TEST(TuningFile, ItsRowsComeFirstAndExplainSaysWhere) {
    Parsed p(kFile);
    ASSERT_EQ(p.rc, 0) << p.err;
    // 4 KiB reduce on 4 NVLink PEs: the built-in table says ll, the file one_shot.
    symcoll_choice_t builtin = select(SYMCOLL_COLL_REDUCE, 4 * KiB, 4, TOPO_NVLINK, nullptr);
    EXPECT_STREQ(builtin.name, "ll");
    EXPECT_EQ(std::strncmp(builtin.why, "built-in table row", 18), 0) << builtin.why;

    symcoll_choice_t small = select(SYMCOLL_COLL_REDUCE, 4 * KiB, 4, TOPO_NVLINK, &p.file);
    EXPECT_STREQ(small.name, "one_shot");
    EXPECT_LE(small.blocks, 8);
    EXPECT_EQ(small.threads, 256);
    EXPECT_NE(std::strstr(small.why, "tuning file machine.tuning line 5"), nullptr) << small.why;

    symcoll_choice_t large = select(SYMCOLL_COLL_REDUCE, 64 * KiB * KiB, 4, TOPO_NVLINK, &p.file);
    EXPECT_STREQ(large.name, "ll");
    EXPECT_LE(large.blocks, 16);
    EXPECT_NE(std::strstr(large.why, "tuning file machine.tuning line 6"), nullptr) << large.why;

    // The file has no fcollect rows: the built-in table decides, and says so.
    symcoll_choice_t other = select(SYMCOLL_COLL_FCOLLECT, 4 * KiB, 4, TOPO_NVLINK, &p.file);
    EXPECT_EQ(std::strncmp(other.why, "built-in table row", 18), 0) << other.why;

    // No row of either fits a 16-PE NVLink team: the model decides.
    symcoll_choice_t model = select(SYMCOLL_COLL_FCOLLECT, 4 * KiB, 16, TOPO_NVLINK, &p.file);
    EXPECT_EQ(std::strncmp(model.why, "model", 5), 0) << model.why;

    // A file row that only fits larger teams is skipped as the built-in ones are.
    symcoll_choice_t bcast = select(SYMCOLL_COLL_BROADCAST, 4 * KiB, 4, TOPO_PCIE_P2P, &p.file);
    EXPECT_STREQ(bcast.name, "push");
}

TEST(TuningFile, ForcedAlgorithmTakesTheGridOfTheFileRow) {
    Parsed p(kFile);
    ASSERT_EQ(p.rc, 0) << p.err;
    symcoll_tuning_query_t q = {};
    q.collective = SYMCOLL_COLL_REDUCE;
    q.bytes = 1024 * KiB;
    q.elem_size = 4;
    q.team_size = 4;
    q.topo = TOPO_NVLINK;
    q.forced = "one_shot";
    q.file = &p.file;
    symcoll_choice_t out;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_STREQ(out.name, "one_shot");
    EXPECT_EQ(out.blocks, 8);
    EXPECT_EQ(out.threads, 256);
}

TEST(TuningFile, SignatureMismatchNamesFileAndBothSignatures) {
    Parsed p(kFile);
    ASSERT_EQ(p.rc, 0) << p.err;
    char err[384] = "";
    EXPECT_EQ(symcoll_tuning_file_check(&p.file, 4, TOPO_NVLINK, err, sizeof err), 0);
    EXPECT_EQ(symcoll_tuning_file_check(&p.file, 2, TOPO_NVLINK, err, sizeof err), -1);
    EXPECT_NE(std::strstr(err, "machine.tuning: measured on 4 PEs over nvlink, but this job has "
                               "2 PEs over nvlink"),
              nullptr)
        << err;
    EXPECT_EQ(symcoll_tuning_file_check(&p.file, 4, TOPO_PCIE_P2P, err, sizeof err), -1);
    EXPECT_NE(std::strstr(err, "4 PEs over pcie-p2p"), nullptr) << err;
}

// A path of several hundred characters (deep build trees) is named whole.
TEST(TuningFile, ALongPathIsNamedWhole) {
    const std::string path = "/" + std::string(300, 'd') + "/machine.tuning";
    symcoll_tuning_file_t file;
    char err[1024] = "";
    ASSERT_EQ(symcoll_tuning_file_parse(kFile, path.c_str(), &file, err, sizeof err), 0) << err;
    EXPECT_EQ(symcoll_tuning_file_check(&file, 2, TOPO_NVLINK, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find(path + ": measured on 4 PEs"), std::string::npos) << err;
    symcoll_tuning_file_free(&file);
}

void expect_error(const std::string &text, const char *expected) {
    Parsed p(text);
    EXPECT_EQ(p.rc, -1) << text;
    EXPECT_NE(p.err.find(expected), std::string::npos) << "got: " << p.err;
    EXPECT_EQ(p.file.n_rows, 0u);
}

TEST(TuningFile, MalformedFilesNameFileAndLine) {
    const std::string head = "symcoll-tuning 1\nsignature 2 nvlink\n";
    expect_error("", "machine.tuning: no 'symcoll-tuning 1' line");
    expect_error("symcoll-tuning 2\n", "machine.tuning:1: the first line must be");
    expect_error("symcoll-tuning 1\n", "machine.tuning: no signature line");
    expect_error("symcoll-tuning 1\nsignature 2 infiniband\n",
                 "machine.tuning:2: unknown link class 'infiniband'");
    expect_error("symcoll-tuning 1\nsignature 0 nvlink\n",
                 "machine.tuning:2: signature PEs '0' is not a number from 1 to 64");
    expect_error(head + "reduce nvlink 2 any ll 16\n", "machine.tuning:3: a row has 7 fields");
    expect_error(head + "\n# ok\nreduce nvlink 2 any ring 16 512\n",
                 "machine.tuning:5: 'ring' is no reduce algorithm");
    expect_error(head + "gather nvlink 2 any ll 16 512\n",
                 "machine.tuning:3: unknown collective 'gather'");
    expect_error(head + "reduce nvlink 2 4k ll 16 512\n",
                 "machine.tuning:3: max bytes '4k' is neither");
    expect_error(head + "reduce nvlink 2 any ll 0 512\n",
                 "machine.tuning:3: blocks '0' is not a number from 1 to 16 for reduce ll");
    expect_error(head + "reduce nvlink 2 any ll 16 100\n",
                 "machine.tuning:3: threads 100 is not a multiple of 32");
    expect_error(head + "reduce nvlink 99 any ll 16 512\n", "machine.tuning:3: max team size '99'");
    // Grids beyond what the algorithm can take: the runtime would run a smaller one.
    expect_error(head + "reduce nvlink 2 any two_shot 128 1024\n",
                 "machine.tuning:3: threads '1024' is not a number from 32 to 512 for reduce "
                 "two_shot");
    expect_error(head + "# ok\nreduce nvlink 2 any ll 128 512\n",
                 "machine.tuning:4: blocks '128' is not a number from 1 to 16 for reduce ll");
    expect_error(head + "\n\nbroadcast nvlink 2 any ce 128 512\n",
                 "machine.tuning:5: blocks '128' is not a number from 1 to 1 for broadcast ce");
    expect_error(head + "broadcast nvlink 2 any ce 1 64\n",
                 "machine.tuning:3: threads '64' is not a number from 32 to 32 for broadcast ce");
}

TEST(TuningFile, TheWidestGridOfEachAlgorithmLoads) {
    Parsed widest("symcoll-tuning 1\nsignature 2 nvlink\n"
                  "reduce nvlink 2 any ll 16 512\nreduce nvlink 2 any two_shot 128 512\n"
                  "broadcast nvlink 2 any ce 1 32\n");
    EXPECT_EQ(widest.rc, 0) << widest.err;
}

// A row after one of the same collective, link class, max team size and algorithm whose max
// bytes reach as far is never chosen: the file's order is wrong, and the load says where.
TEST(TuningFile, RefusesARowAnEarlierRowHides) {
    const std::string head = "symcoll-tuning 1\nsignature 2 nvlink\n";
    expect_error(head +
                     "reduce nvlink 2 any ll 16 512\n# small ones\nreduce nvlink 2 4096 ll 8 512\n",
                 "machine.tuning:5: this row is never chosen: the row on line 3, for the same "
                 "collective, link class, max team size and algorithm, comes first and covers "
                 "max bytes any");
    expect_error(head + "fcollect nvlink 2 4096 push 8 512\nalltoall nvlink 2 4096 push 8 512\n"
                        "fcollect nvlink 2 4096 push 16 256\n",
                 "machine.tuning:5: this row is never chosen: the row on line 3");
    expect_error(head + "fcollect nvlink 2 4096 push 8 512\n"
                        "fcollect nvlink 2 4096 push 16 256\n",
                 "covers max bytes 4096");
}

// What may follow a row: larger sizes, other teams, link classes or collectives, and rows of
// other algorithms, which serve SYMCOLL_ALGO_* when it forces theirs.
TEST(TuningFile, RowsThatCanStillBeChosenLoad) {
    Parsed p("symcoll-tuning 1\nsignature 2 nvlink\n"
             "reduce nvlink 2 4096 ll 16 512\nreduce nvlink 2 8192 ll 8 512\n"
             "reduce nvlink 8 4096 ll 16 512\nreduce pcie-p2p 2 4096 ll 16 512\n"
             "fcollect nvlink 2 4096 push 8 512\nalltoall nvlink 2 4096 push 8 512\n"
             "reduce nvlink 2 any two_shot 128 512\nreduce nvlink 2 4096 one_shot 64 512\n");
    EXPECT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.file.n_rows, 8u);
}

// The built-in table, written as a file, loads: its order is the one the check expects.
TEST(TuningFile, TheBuiltInTableAsAFileLoads) {
    std::string text = "symcoll-tuning 1\nsignature 8 nvlink\n";
    for (size_t i = 0; i < symcoll_tuning_n_rows; i++) {
        const symcoll_tuning_row_t &r = symcoll_tuning_rows[i];
        text += std::string(symcoll_collective_name(r.collective)) + " " +
                symcoll_topo_class_name(r.topo) + " " + std::to_string(r.max_team_size) + " " +
                (r.max_bytes == SIZE_MAX ? "any" : std::to_string(r.max_bytes)) + " " + r.algo +
                " " + std::to_string(r.blocks) + " " + std::to_string(r.threads) + "\n";
    }
    Parsed p(text);
    EXPECT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.file.n_rows, symcoll_tuning_n_rows);
}

// As SYMCOLL_ALGO_* and symcoll_tuning_override, the rows take names in any case.
TEST(TuningFile, NamesInAnyCase) {
    Parsed p("symcoll-tuning 1\nsignature 2 NVLink\nREDUCE NVLINK 2 ANY Two_Shot 128 512\n"
             "Broadcast PCIe-P2P 2 Any LL 16 512\n");
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.file.topo, TOPO_NVLINK);
    ASSERT_EQ(p.file.n_rows, 2u);
    EXPECT_EQ(p.file.rows[0].collective, SYMCOLL_COLL_REDUCE);
    EXPECT_EQ(p.file.rows[0].topo, TOPO_NVLINK);
    EXPECT_EQ(p.file.rows[0].max_bytes, SIZE_MAX);
    EXPECT_STREQ(p.file.rows[0].algo, "two_shot");
    EXPECT_EQ(p.file.rows[1].collective, SYMCOLL_COLL_BROADCAST);
    EXPECT_EQ(p.file.rows[1].topo, TOPO_PCIE_P2P);
    EXPECT_STREQ(p.file.rows[1].algo, "ll");
}

// The parser keeps no hidden tokenizer state: a caller's own strtok survives a parse.
TEST(TuningFile, ParsingLeavesTheCallersStrtokAlone) {
    char words[] = "first second";
    ASSERT_STREQ(std::strtok(words, " "), "first");
    Parsed p(kFile);
    ASSERT_EQ(p.rc, 0) << p.err;
    const char *next = std::strtok(nullptr, " ");
    ASSERT_NE(next, nullptr);
    EXPECT_STREQ(next, "second");
}

TEST(TuningFile, LoadNamesAMissingFile) {
    symcoll_tuning_file_t file;
    char err[384] = "";
    EXPECT_EQ(symcoll_tuning_file_load("/nonexistent/x.tuning", &file, err, sizeof err), -1);
    EXPECT_NE(std::strstr(err, "/nonexistent/x.tuning: cannot open it"), nullptr) << err;
    const std::string path = testing::TempDir() + "tuning_file_test.tuning";
    std::ofstream(path) << kFile;
    ASSERT_EQ(symcoll_tuning_file_load(path.c_str(), &file, err, sizeof err), 0) << err;
    EXPECT_EQ(file.n_rows, 3u);
    EXPECT_EQ(path, file.path);
    symcoll_tuning_file_free(&file);
    std::remove(path.c_str());
}

std::string load_error(const std::string &path) {
    symcoll_tuning_file_t file;
    char err[384] = "";
    EXPECT_EQ(symcoll_tuning_file_load(path.c_str(), &file, err, sizeof err), -1) << path;
    return err;
}

TEST(TuningFile, LoadTakesAFileOfExactlyTheLimit) {
    const size_t limit = 1 << 20;
    std::string text = "symcoll-tuning 1\nsignature 2 nvlink\n#";
    text += std::string(limit - text.size() - 1, 'x') + "\n";
    ASSERT_EQ(text.size(), limit);
    const std::string path = testing::TempDir() + "tuning_file_limit.tuning";
    std::ofstream(path, std::ios::binary) << text;
    symcoll_tuning_file_t file;
    char err[384] = "";
    EXPECT_EQ(symcoll_tuning_file_load(path.c_str(), &file, err, sizeof err), 0) << err;
    symcoll_tuning_file_free(&file);
    std::ofstream(path, std::ios::binary) << text << "\n";
    EXPECT_NE(load_error(path).find("tuning_file_limit.tuning: larger than 1048576 bytes"),
              std::string::npos);
    std::remove(path.c_str());
}

TEST(TuningFile, LoadNamesWhyItCannotRead) {
    const std::string dir = testing::TempDir();
    EXPECT_NE(load_error(dir).find(": cannot read it: Is a directory"), std::string::npos)
        << load_error(dir);
    const std::string path = dir + "tuning_file_nul.tuning";
    // Before the fix the NUL ended the file quietly, hiding the bad row after it.
    const char text[] = "symcoll-tuning 1\nsignature 2 nvlink\n\0reduce nvlink 2 any ll 99 1\n";
    std::ofstream(path, std::ios::binary) << std::string(text, sizeof text - 1);
    EXPECT_NE(load_error(path).find("tuning_file_nul.tuning: holds a NUL byte"), std::string::npos)
        << load_error(path);
    std::remove(path.c_str());
}

} // namespace
