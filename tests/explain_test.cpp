// symcoll_explain on a described job (no init, no GPU): its argument checks (INVALID_ARGUMENT
// naming the argument and its value), and a result that is tuning's own choice, with where it
// came from: SYMCOLL_ALGO_*, symcoll_tuning_override, SYMCOLL_TUNING_FILE, table, model, or no
// choice at all; and the calls the collective itself refuses (no P2P path) or skips (count 0).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <gtest/gtest.h>
#include "env.h"
#include "scoped_env.h"
#include "symcoll.h"
#include "tuning.h"

namespace {

constexpr size_t MiB = 1024 * 1024;
const char *const kTwoNvlink = "2\nX NV18\nNV18 X\n";
const char *const kFourPcie = "4\nX PIX PIX PIX\nPIX X PIX PIX\nPIX PIX X PIX\nPIX PIX PIX X\n";
const char *const kNoP2p = "3\nX NV2 PIX\nNV2 X -\nPIX - X\n";
// Two nodes of two PEs (NVLink inside), two of one, nodes of 2 and 1, and nodes whose PEs
// are not contiguous in rank.
const char *const kTwoByTwo = "4\nX NV4 NET NET\nNV4 X NET NET\nNET NET X NV4\nNET NET NV4 X\n";
const char *const kTwoByOne = "2\nX NET\nNET X\n";
const char *const kTwoAndOne = "3\nX NV4 NET\nNV4 X NET\nNET NET X\n";
const char *const kInterleaved = "4\nX NET NV4 NET\nNET X NET NV4\nNV4 NET X NET\nNET NV4 NET X\n";
const symcoll_collective_t kData[] = {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_REDUCE,
                                      SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL,
                                      SYMCOLL_COLL_REDUCE_SCATTER};

symcoll_explain_query_t described(symcoll_collective_t c, size_t count, const char *topology,
                                  int sm_count = 0) {
    return symcoll_explain_query_t{SYMCOLL_EXPLAIN_VERSION, c,        count,   SYMCOLL_FLOAT32,
                                   SYMCOLL_TEAM_INVALID,    topology, sm_count};
}

class Explain : public ::testing::Test {
  protected:
    ScopedEnv env{"SYMCOLL_ALGO_BROADCAST", "SYMCOLL_ALGO_REDUCE", "SYMCOLL_ALGO_FCOLLECT",
                  "SYMCOLL_ALGO_ALLTOALL", "SYMCOLL_TUNING_FILE"};

    void TearDown() override {
        EXPECT_EQ(symcoll_tuning_override(SYMCOLL_COLL_REDUCE, nullptr, 0, 0), SYMCOLL_SUCCESS);
    }

    // Fails with status and a message that starts with the function and holds every needle.
    static void expect_refused(const symcoll_explain_query_t *q, symcoll_status_t status,
                               std::initializer_list<const char *> needles) {
        symcoll_explanation_t out;
        EXPECT_EQ(symcoll_explain(q, &out), status);
        std::string why = symcoll_last_error();
        EXPECT_EQ(why.rfind("symcoll_explain: ", 0), 0u) << why;
        for (const char *needle : needles)
            EXPECT_NE(why.find(needle), std::string::npos) << "\"" << needle << "\" in: " << why;
        EXPECT_STREQ(out.algorithm, "") << "nothing chosen";
    }

    // The whole choice but the link.
    static void expect_choice(const symcoll_explanation_t &got, const char *algorithm, int blocks,
                              int threads, symcoll_choice_source_t source, const char *why) {
        EXPECT_STREQ(got.algorithm, algorithm);
        EXPECT_EQ(got.blocks, blocks);
        EXPECT_EQ(got.threads, threads);
        EXPECT_EQ(got.source, source);
        EXPECT_STREQ(got.why, why);
    }

    static symcoll_explanation_t explain(const symcoll_explain_query_t &q) {
        symcoll_explanation_t out;
        EXPECT_EQ(symcoll_explain(&q, &out), SYMCOLL_SUCCESS) << symcoll_last_error();
        return out;
    }
};

TEST_F(Explain, BadArgumentsAreRefusedByNameAndValue) {
    symcoll_explain_query_t q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink);
    EXPECT_EQ(symcoll_explain(&q, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(symcoll_last_error(), "symcoll_explain: out is NULL");
    expect_refused(nullptr, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query is NULL"});

    q.version = 0;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT,
                   {"query->version 0", "SYMCOLL_EXPLAIN_VERSION"});
    q.version = SYMCOLL_EXPLAIN_VERSION + 1;
    const std::string later = "query->version " + std::to_string(SYMCOLL_EXPLAIN_VERSION + 1);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {later.c_str()});
    q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink);

    q.collective = SYMCOLL_COLL_HALO;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->collective 8 (halo)", "reduce"});
    q.collective = (symcoll_collective_t)42;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->collective 42"});
    q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink);
    q.type = (symcoll_datatype_t)99;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->type 99"});
    q = described(SYMCOLL_COLL_ALLTOALL, SIZE_MAX / 4, kTwoNvlink);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->count", "overflows"});
    q = described(SYMCOLL_COLL_REDUCE, 1024, nullptr);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT,
                   {"query->topology is NULL", "SYMCOLL_TEAM_INVALID"});
    q = described(SYMCOLL_COLL_REDUCE, 1024, "2\nX NV18\n");
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->topology does not parse"});
    q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink, -1);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->sm_count -1"});
    q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink);
    q.team = SYMCOLL_TEAM_WORLD;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->topology is given with team 0"});
    q.topology = nullptr;
    q.sm_count = 8;
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"query->sm_count 8 with team 0"});
    q.sm_count = 0;
    expect_refused(&q, SYMCOLL_ERROR_NOT_INITIALIZED, {"not initialized"});
}

TEST_F(Explain, BadSettingsAreRefusedByName) {
    symcoll_explain_query_t q = described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink);
    setenv("SYMCOLL_ALGO_REDUCE", "three_shot", 1);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT, {"SYMCOLL_ALGO_REDUCE", "three_shot"});
    unsetenv("SYMCOLL_ALGO_REDUCE");
    setenv("SYMCOLL_TUNING_FILE", "/nonexistent/tuning.txt", 1);
    expect_refused(&q, SYMCOLL_ERROR_INVALID_ARGUMENT,
                   {"SYMCOLL_TUNING_FILE", "/nonexistent/tuning.txt"});
}

// The described job's choice is tuning's, for the team of every PE of the topology, with the
// nccl-tests bytes the collective itself computes.
TEST_F(Explain, TheChoiceIsTuningsOwn) {
    struct Case {
        symcoll_collective_t collective;
        size_t count;
        const char *topology;
        int team_size;
        topo_class_t topo;
        size_t bytes;
        int sm_count;
    } cases[] = {
        {SYMCOLL_COLL_REDUCE, 256, kTwoNvlink, 2, TOPO_NVLINK, 1024, 0},
        {SYMCOLL_COLL_REDUCE, 16 * MiB, kTwoNvlink, 2, TOPO_NVLINK, 64 * MiB, 8},
        {SYMCOLL_COLL_BROADCAST, MiB, kFourPcie, 4, TOPO_PCIE_P2P, 4 * MiB, 0},
        {SYMCOLL_COLL_ALLTOALL, MiB, kFourPcie, 4, TOPO_PCIE_P2P, 16 * MiB, 0},
        {SYMCOLL_COLL_FCOLLECT, 64, kTwoNvlink, 2, TOPO_NVLINK, 512, 0},
        {SYMCOLL_COLL_REDUCE_SCATTER, 1024, kTwoNvlink, 2, TOPO_NVLINK, 8 * 1024, 0},
        // alltoallv's count is dst_capacity, not per PE: 3000 elements over 4 PEs.
        {SYMCOLL_COLL_ALLTOALLV, 3000, kFourPcie, 4, TOPO_PCIE_P2P, 3000 * 4, 0},
    };
    for (const Case &c : cases) {
        symcoll_explanation_t got =
            explain(described(c.collective, c.count, c.topology, c.sm_count));
        symcoll_tuning_query_t q = {c.collective, c.bytes, c.bytes ? 4u : 0u,
                                    c.team_size,  c.topo,  c.sm_count};
        symcoll_choice_t want;
        ASSERT_EQ(symcoll_tuning_select(&q, &want), SYMCOLL_SUCCESS) << want.why;
        SCOPED_TRACE(symcoll_collective_name(c.collective));
        EXPECT_STREQ(got.algorithm, want.name);
        EXPECT_EQ(got.blocks, want.blocks);
        EXPECT_EQ(got.threads, want.threads);
        EXPECT_EQ(got.source, want.source);
        EXPECT_TRUE(got.source == SYMCOLL_CHOICE_TABLE || got.source == SYMCOLL_CHOICE_MODEL);
        EXPECT_STREQ(got.why, want.why);
        EXPECT_STREQ(got.link, symcoll_topo_class_name(c.topo));
    }
}

// The barrier has one algorithm: nothing is chosen, so no table or model is named.
TEST_F(Explain, TheOnlyAlgorithmIsFixed) {
    symcoll_explanation_t got = explain(described(SYMCOLL_COLL_BARRIER, 0, kFourPcie));
    expect_choice(got, "flags", 1, 32, SYMCOLL_CHOICE_FIXED, "the only algorithm");
    EXPECT_STREQ(got.link, "pcie-p2p");
}

// A data collective of count 0 returns before it launches anything or looks at the links.
TEST_F(Explain, CountZeroLaunchesNothing) {
    for (symcoll_collective_t c : kData)
        for (const char *topology : {kTwoNvlink, kNoP2p}) {
            SCOPED_TRACE(symcoll_collective_name(c));
            expect_choice(explain(described(c, 0, topology)), "", 0, 0, SYMCOLL_CHOICE_FIXED,
                          "nothing to move (count 0)");
        }
}

// The call itself refuses a team without load/store paths, so explain does too.
TEST_F(Explain, NoP2pPathIsUnsupported) {
    for (symcoll_collective_t c : kData) {
        SCOPED_TRACE(symcoll_collective_name(c));
        symcoll_explain_query_t q = described(c, 1024, kNoP2p);
        expect_refused(&q, SYMCOLL_ERROR_UNSUPPORTED, {"the described job", "no P2P path"});
    }
    symcoll_explain_query_t barrier = described(SYMCOLL_COLL_BARRIER, 0, kNoP2p);
    expect_refused(&barrier, SYMCOLL_ERROR_UNSUPPORTED, {"the described job", "no P2P path"});
}

// A described job with NET links is planned across its nodes, as a team of a job across nodes:
// the node's steps chosen for the node's part and link, one PE per node moving by copies, and
// the refusals of the calls themselves.
TEST_F(Explain, NetLinksArePlannedAcrossNodes) {
    for (symcoll_collective_t c : kData) {
        SCOPED_TRACE(symcoll_collective_name(c));
        symcoll_explanation_t two = explain(described(c, MiB, kTwoByTwo));
        EXPECT_EQ(std::string(two.why).rfind("across 2 nodes (", 0), 0u) << two.why;
        EXPECT_STRNE(two.algorithm, "") << two.why;
        EXPECT_STREQ(two.link, "nvlink");
        symcoll_explanation_t one = explain(described(c, MiB, kTwoByOne));
        EXPECT_STREQ(one.algorithm, "");
        EXPECT_EQ(one.source, SYMCOLL_CHOICE_FIXED);
        EXPECT_NE(std::string(one.why).find("one PE per node: its steps are copies"),
                  std::string::npos)
            << one.why;
        symcoll_explain_query_t unequal = described(c, MiB, kTwoAndOne);
        expect_refused(&unequal, SYMCOLL_ERROR_UNSUPPORTED,
                       {"the described job holds different numbers of PEs on its 2 nodes"});
        symcoll_explain_query_t interleaved = described(c, MiB, kInterleaved);
        expect_refused(&interleaved, SYMCOLL_ERROR_UNSUPPORTED, {"not contiguous in rank"});
    }
    symcoll_explanation_t barrier = explain(described(SYMCOLL_COLL_BARRIER, 0, kTwoAndOne));
    EXPECT_EQ(std::string(barrier.why).rfind("across 2 nodes (node barrier", 0), 0u) << barrier.why;
    symcoll_explanation_t alltoallv = explain(described(SYMCOLL_COLL_ALLTOALLV, MiB, kTwoByTwo));
    EXPECT_NE(std::string(alltoallv.why).find("fixed kernels"), std::string::npos) << alltoallv.why;
}

// Before init the environment is read for the query only: the published settings, which
// init and the collectives of other threads use, stay as they were.
TEST_F(Explain, SettingsReadBeforeInitAreNotPublished) {
    const char *published = symcoll_env_algo(SYMCOLL_COLL_REDUCE);
    setenv("SYMCOLL_ALGO_REDUCE", "two_shot", 1);
    symcoll_explanation_t got = explain(described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink));
    EXPECT_STREQ(got.algorithm, "two_shot");
    EXPECT_EQ(got.source, SYMCOLL_CHOICE_ENV);
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_REDUCE), published);
}

TEST_F(Explain, ForcedChoicesSayWhoForcedThem) {
    setenv("SYMCOLL_ALGO_REDUCE", "Two_Shot", 1);
    symcoll_explanation_t got = explain(described(SYMCOLL_COLL_REDUCE, 1024, kTwoNvlink));
    EXPECT_STREQ(got.algorithm, "two_shot");
    EXPECT_EQ(got.source, SYMCOLL_CHOICE_ENV);
    EXPECT_STREQ(got.why, "forced by SYMCOLL_ALGO_REDUCE");

    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_REDUCE, "one_shot", 4, 64), SYMCOLL_SUCCESS);
    expect_choice(explain(described(SYMCOLL_COLL_REDUCE, 16 * MiB, kTwoNvlink)), "one_shot", 4, 64,
                  SYMCOLL_CHOICE_OVERRIDE, "forced by symcoll_tuning_override");
}

TEST_F(Explain, ATuningFileRowComesFirstAndMustFitTheTopology) {
    char path[] = "/tmp/symcoll-explain-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("symcoll-tuning 1\nsignature 2 nvlink\nreduce nvlink 2 any ll 3 64\n", f);
    fclose(f);
    setenv("SYMCOLL_TUNING_FILE", path, 1);
    symcoll_explanation_t got = explain(described(SYMCOLL_COLL_REDUCE, 256, kTwoNvlink));
    EXPECT_STREQ(got.algorithm, "ll");
    EXPECT_EQ(got.source, SYMCOLL_CHOICE_TUNING_FILE);
    EXPECT_NE(std::string(got.why).find(std::string(path) + " line 3"), std::string::npos)
        << got.why;

    symcoll_explain_query_t other = described(SYMCOLL_COLL_REDUCE, 256, kFourPcie);
    expect_refused(&other, SYMCOLL_ERROR_INVALID_ARGUMENT, {"SYMCOLL_TUNING_FILE", path});
    remove(path);
}

} // namespace
