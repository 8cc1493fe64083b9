// symcoll-perf --explain: tuning's choice for every requested size, from a topology file or an
// assumed all-NVLink team, with no GPU and no init.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "explain.h"
#include "ops.h"

namespace {

struct Explained {
    int rc;
    std::string out, err;
};

Explained explain(std::vector<const char *> flags) {
    flags.insert(flags.begin(), {"symcoll-perf", "--explain"});
    perf_args_t args;
    perf_args_default(&args);
    char why[512] = "";
    Explained e;
    if (perf_args_parse((int)flags.size(), const_cast<char **>(flags.data()), &args, why,
                        sizeof why) != 0) {
        e.rc = -1;
        e.err = why;
        return e;
    }
    char *out = nullptr, *err = nullptr;
    size_t out_len = 0, err_len = 0;
    FILE *fo = open_memstream(&out, &out_len), *fe = open_memstream(&err, &err_len);
    e.rc = perf_explain(&args, fo, fe);
    fclose(fo);
    fclose(fe);
    e.out.assign(out, out_len);
    e.err.assign(err, err_len);
    free(out);
    free(err);
    return e;
}

std::string write_topology(const std::string &text) {
    char path[] = "/tmp/symcoll-perf-topo-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text.c_str(), f);
    fclose(f);
    return path;
}

// Rows of the table: lines that do not start with '#'.
std::vector<std::vector<std::string>> rows(const std::string &out) {
    std::vector<std::vector<std::string>> result;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream words(line);
        std::vector<std::string> row;
        std::string w;
        while (words >> w) {
            row.push_back(w);
        }
        result.push_back(row);
    }
    return result;
}

std::set<std::string> algorithms(const std::string &op) {
    std::set<std::string> names;
    int id = perf_op_from_name(op.c_str());
    for (const char *const *n = id < 0 ? nullptr : perf_op_info((perf_op_t)id)->algorithms;
         n != nullptr && *n != nullptr; n++) {
        names.insert(*n);
    }
    return names;
}

TEST(PerfExplain, EverySizeOfEveryCollectiveFromATopologyFile) {
    std::string topo = write_topology("2\nX NV18\nNV18 X\n");
    Explained e = explain({"--topology-file", topo.c_str()});
    remove(topo.c_str());
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("2 PEs"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find(topo), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("#   2\n#   X NV18\n#   NV18 X\n"), std::string::npos)
        << "the topology as given: " << e.out;
    auto table = rows(e.out);
    // barrier once, then 9 sizes (8 B .. 128 MiB) for each of the six others.
    ASSERT_EQ(table.size(), 1u + 6 * 9) << e.out;
    EXPECT_NE(e.out.find("the only algorithm"), std::string::npos) << "the barrier's why";
    for (const auto &row : table) {
        ASSERT_GE(row.size(), 7u);
        EXPECT_EQ(algorithms(row[0]).count(row[4]), 1u) << row[0] << " " << row[4];
        EXPECT_GT(std::stoi(row[5]), 0) << "blocks";
        EXPECT_GT(std::stoi(row[6]), 0) << "threads";
        EXPECT_GE(row.size(), 8u) << "a reason";
    }
    EXPECT_EQ(table.back()[0], "alltoallv");
    EXPECT_EQ(table.back()[1], "134217728");
    EXPECT_EQ(table.back()[2], "16777216");
}

// PEs on one GPU: the header says how many and the SM share the grids are sized to, which
// only a run learns from the library, so --sm-share gives it.
TEST(PerfExplain, PesSharingAGpuAndTheirSmShare) {
    std::string topo = write_topology("3\nX SAME NV18\nSAME X NV18\nNV18 NV18 X\n");
    Explained e = explain({"--topology-file", topo.c_str(), "--op", "reduce", "-b", "64m"});
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("# gpu sharing: up to 2 PEs on one GPU"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("SM share: tuning's default"), std::string::npos) << e.out;
    auto table = rows(e.out);
    ASSERT_EQ(table.size(), 1u) << e.out;
    EXPECT_GT(std::stoi(table.back()[5]), 8) << e.out;

    e = explain(
        {"--topology-file", topo.c_str(), "--op", "reduce", "-b", "64m", "--sm-share", "8"});
    remove(topo.c_str());
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("SM share 8 (--sm-share)"), std::string::npos) << e.out;
    for (const auto &row : rows(e.out)) {
        EXPECT_LE(std::stoi(row[5]), 8) << e.out;
    }

    e = explain({"--npes", "4"});
    EXPECT_NE(e.out.find("# gpu sharing: a GPU per PE"), std::string::npos) << e.out;
}

TEST(PerfExplain, AssumedNvlinkTeamOfDashNPEs) {
    Explained e = explain({"--npes", "8", "--op", "fcollect", "-b", "8", "-e", "64", "-d", "int8"});
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("8 PEs"), std::string::npos) << e.out;
    auto table = rows(e.out);
    ASSERT_EQ(table.size(), 2u) << e.out;
    EXPECT_EQ(table[0][1], "8"); // one int8 per PE
    EXPECT_EQ(table[0][2], "1");
    EXPECT_EQ(table[1][1], "64");
    EXPECT_EQ(table[1][2], "8");
}

// --nodes splits the assumed team into nodes of contiguous ranks (NET between them): the plan
// across nodes, the node's part chosen for its NVLink, one PE per node moving by copies; a
// topology file's NET links do the same, and --nodes that does not split --npes evenly fails.
TEST(PerfExplain, AssumedNodesOfDashNodes) {
    Explained e =
        explain({"--npes", "8", "--nodes", "2", "--op", "reduce", "-b", "1m", "-e", "1m"});
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("8 PEs on 2 nodes, slowest link inside a node nvlink"), std::string::npos)
        << e.out;
    EXPECT_NE(e.out.find("NET"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("across 2 nodes (node reduce"), std::string::npos) << e.out;
    e = explain({"--npes", "4", "--nodes", "4", "--op", "fcollect", "-b", "64", "-e", "64"});
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("one PE per node: its steps are copies"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("4 PEs on 4 nodes, one PE per node"), std::string::npos) << e.out;
    std::string two =
        write_topology("4\nX NV4 NET NET\nNV4 X NET NET\nNET NET X NV4\nNET NET NV4 X\n");
    e = explain({"--topology-file", two.c_str(), "--op", "alltoall", "-b", "1k", "-e", "1k"});
    EXPECT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("4 PEs on 2 nodes"), std::string::npos) << e.out;
    e = explain({"--topology-file", two.c_str(), "--nodes", "2"});
    remove(two.c_str());
    EXPECT_EQ(e.rc, -1);
    EXPECT_NE(e.err.find("exclude each other"), std::string::npos) << e.err;
    e = explain({"--npes", "6", "--nodes", "4"});
    EXPECT_EQ(e.rc, -1);
    EXPECT_NE(e.err.find("--npes 6 does not split into --nodes 4"), std::string::npos) << e.err;
    e = explain({"--nodes", "3"});
    EXPECT_EQ(e.rc, -1);
    EXPECT_NE(e.err.find("--npes 2 (the default) does not split"), std::string::npos) << e.err;
}

TEST(PerfExplain, SizesBelowOneElementPerPEAreSkipped) {
    // 8, 16 and 32 bytes hold less than one double for each of 8 PEs.
    Explained e = explain(
        {"--npes", "8", "--op", "alltoall", "-b", "8", "-e", "32", "-f", "2", "-d", "double"});
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_EQ(rows(e.out).size(), 0u) << e.out;

    e = explain(
        {"--npes", "2", "--op", "alltoall", "-b", "8", "-e", "32", "-f", "2", "-d", "double"});
    ASSERT_EQ(e.rc, 0) << e.err;
    auto table = rows(e.out);
    ASSERT_EQ(table.size(), 2u) << e.out;
    EXPECT_EQ(table[0][1], "16");
    EXPECT_EQ(table[1][1], "32");
}

TEST(PerfExplain, ForcedAlgorithmIsShownAndABadOneFails) {
    std::string first = *algorithms("reduce").begin();
    setenv("SYMCOLL_ALGO_REDUCE", first.c_str(), 1);
    Explained e = explain({"--op", "reduce"});
    ASSERT_EQ(e.rc, 0) << e.err;
    for (const auto &row : rows(e.out)) {
        EXPECT_EQ(row[4], first);
    }
    setenv("SYMCOLL_ALGO_REDUCE", "no_such_algorithm", 1);
    e = explain({"--op", "reduce"});
    unsetenv("SYMCOLL_ALGO_REDUCE");
    EXPECT_EQ(e.rc, 2);
    EXPECT_NE(e.err.find("SYMCOLL_ALGO_REDUCE"), std::string::npos) << e.err;
}

// The library takes SYMCOLL_ALGO_* in any case (src/env.c); --explain reads it the same way.
TEST(PerfExplain, ForcedAlgorithmInAnyCase) {
    setenv("SYMCOLL_ALGO_REDUCE", "Two_SHOT", 1);
    Explained e = explain({"--op", "reduce"});
    unsetenv("SYMCOLL_ALGO_REDUCE");
    ASSERT_EQ(e.rc, 0) << e.err;
    ASSERT_FALSE(rows(e.out).empty()) << e.out;
    for (const auto &row : rows(e.out)) {
        EXPECT_EQ(row[4], "two_shot");
    }
}

TEST(PerfExplain, BadTopologiesAndRoots) {
    Explained e = explain({"--topology-file", "/nonexistent/topology.txt"});
    EXPECT_EQ(e.rc, 2);
    EXPECT_NE(e.err.find("/nonexistent/topology.txt"), std::string::npos) << e.err;

    std::string bad = write_topology("2\nX NV18\n");
    e = explain({"--topology-file", bad.c_str()});
    remove(bad.c_str());
    EXPECT_EQ(e.rc, 2);
    EXPECT_NE(e.err.find(bad), std::string::npos) << e.err;

    std::string no_p2p = write_topology("3\nX NV2 PIX\nNV2 X -\nPIX - X\n");
    e = explain({"--topology-file", no_p2p.c_str()});
    remove(no_p2p.c_str());
    EXPECT_EQ(e.rc, 2) << "the collectives refuse a job without load/store paths";
    EXPECT_NE(e.err.find("no P2P path"), std::string::npos) << e.err;

    std::string three = write_topology("3\nX NV2 PIX\nNV2 X PIX\nPIX PIX X\n");
    e = explain({"--topology-file", three.c_str(), "-r", "3", "--op", "broadcast"});
    EXPECT_EQ(e.rc, 2);
    EXPECT_NE(e.err.find("root"), std::string::npos) << e.err;
    e = explain({"--topology-file", three.c_str(), "-r", "2", "--op", "broadcast"});
    remove(three.c_str());
    EXPECT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("3 PEs"), std::string::npos) << e.out;
}

} // namespace

namespace {

TEST(PerfExplain, AMissingTopologyFileNamesTheSystemsReason) {
    Explained e = explain({"--topology-file", "/nonexistent/topology.txt"});
    EXPECT_NE(e.rc, 0);
    EXPECT_NE(e.err.find("--topology-file /nonexistent/topology.txt: cannot open it: No such file "
                         "or directory"),
              std::string::npos)
        << e.err;
}

} // namespace
