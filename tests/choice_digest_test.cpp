// The digest init compares across PEs: what steers the choice of collective kernels and grids
// (SYMCOLL_ALGO_* in any case, the tuning file's signature and rows), and nothing else (not
// the tuning file's path).
#include <cstdlib>
#include <string>
#include <gtest/gtest.h>
#include "choice_digest.h"
#include "env.h"
#include "tuning_file.h"

namespace {

const char *const kRows = "symcoll-tuning 1\n"
                          "signature 2 nvlink\n"
                          "reduce nvlink 2 32768 ll 16 512\n"
                          "reduce nvlink 2 any two_shot 128 256\n";

uint64_t digest_of(const std::string &text, const char *path) {
    symcoll_tuning_file_t file;
    char err[256] = "";
    EXPECT_EQ(symcoll_tuning_file_parse(text.c_str(), path, &file, err, sizeof err), 0) << err;
    uint64_t d = symcoll_choice_digest(&file);
    symcoll_tuning_file_free(&file);
    return d;
}

// SYMCOLL_ALGO_REDUCE set (or unset) for one test, the environment reloaded around it.
class AlgoReduce {
  public:
    explicit AlgoReduce(const char *value) {
        if (value)
            setenv("SYMCOLL_ALGO_REDUCE", value, 1);
        else
            unsetenv("SYMCOLL_ALGO_REDUCE");
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS);
    }
    ~AlgoReduce() {
        unsetenv("SYMCOLL_ALGO_REDUCE");
        symcoll_env_load();
    }
};

TEST(ChoiceDigest, EachPeMayLoadItsOwnCopyOfTheFile) {
    AlgoReduce unset(nullptr);
    EXPECT_EQ(digest_of(kRows, "/tmp/a.tuning.0"), digest_of(kRows, "/scratch/b.tuning.1"));
}

TEST(ChoiceDigest, RowsAndSignatureCount) {
    AlgoReduce unset(nullptr);
    const uint64_t d = digest_of(kRows, "f");
    std::string grid = kRows;
    grid.replace(grid.find("128 256"), 7, "128 512");
    EXPECT_NE(digest_of(grid, "f"), d) << "another block size";
    std::string signature = kRows;
    signature.replace(signature.find("2 nvlink"), 8, "4 nvlink");
    EXPECT_NE(digest_of(signature, "f"), d);
    EXPECT_NE(digest_of("symcoll-tuning 1\nsignature 2 nvlink\n", "f"), d) << "no rows";
}

TEST(ChoiceDigest, ForcedAlgorithmsCountInAnyCase) {
    uint64_t none, lower, upper;
    {
        AlgoReduce unset(nullptr);
        none = digest_of(kRows, "f");
    }
    {
        AlgoReduce set("two_shot");
        lower = digest_of(kRows, "f");
    }
    {
        AlgoReduce set("TWO_SHOT");
        upper = digest_of(kRows, "f");
    }
    EXPECT_NE(none, lower);
    EXPECT_EQ(lower, upper);
}

} // namespace
