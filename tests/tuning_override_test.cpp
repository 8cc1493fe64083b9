// symcoll_tuning_override: its argument checks (INVALID_ARGUMENT naming the argument and its
// value, the setting unchanged), and what it puts into the enqueue path's tuning query.
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "tuning_override.h"

namespace {

constexpr size_t MiB = 1024 * 1024;

// The query symcoll_coll_prepare starts from: 16 MiB on 2 PEs over NVLink.
symcoll_tuning_query_t query(symcoll_collective_t c) {
    return symcoll_tuning_query_t{c, 16 * MiB, 4, 2, TOPO_NVLINK, 132, nullptr, nullptr, 0, 0};
}

class Override : public ::testing::Test {
  protected:
    void TearDown() override {
        for (symcoll_collective_t c : {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_REDUCE,
                                       SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL})
            EXPECT_EQ(symcoll_tuning_override(c, nullptr, 0, 0), SYMCOLL_SUCCESS);
    }
    // The call fails with INVALID_ARGUMENT and a message naming every needle; the reduce
    // override set before it stays.
    void expect_refused(symcoll_collective_t c, const char *algorithm, int blocks, int threads,
                        std::initializer_list<const char *> needles) {
        ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_REDUCE, "one_shot", 4, 64), SYMCOLL_SUCCESS);
        EXPECT_EQ(symcoll_tuning_override(c, algorithm, blocks, threads),
                  SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        EXPECT_EQ(why.rfind("symcoll_tuning_override: ", 0), 0u) << why;
        for (const char *needle : needles)
            EXPECT_NE(why.find(needle), std::string::npos) << "\"" << needle << "\" in: " << why;
        symcoll_tuning_query_t q = query(SYMCOLL_COLL_REDUCE);
        ASSERT_TRUE(symcoll_tuning_override_apply(&q));
        EXPECT_STREQ(q.forced, "one_shot");
        EXPECT_EQ(q.forced_blocks, 4);
        EXPECT_EQ(q.forced_threads, 64);
    }
};

TEST_F(Override, BadArgumentsAreRefusedByNameAndValue) {
    expect_refused(SYMCOLL_COLL_BARRIER, "flags", 0, 0, {"collective 1", "barrier"});
    expect_refused(SYMCOLL_COLL_HALO, "ll", 0, 0, {"collective 8", "halo"});
    expect_refused((symcoll_collective_t)42, "ll", 0, 0, {"collective 42"});
    expect_refused(SYMCOLL_COLL_REDUCE, "three_shot", 0, 0,
                   {"algorithm \"three_shot\"", "reduce", "ll, one_shot, two_shot"});
    expect_refused(SYMCOLL_COLL_BROADCAST, "one_shot", 0, 0,
                   {"\"one_shot\"", "broadcast", "ll, pull, push, ce"});
    expect_refused(SYMCOLL_COLL_REDUCE, "two_shot", 129, 0, {"blocks 129", "1 to 128"});
    expect_refused(SYMCOLL_COLL_REDUCE, "two_shot", -1, 0, {"blocks -1"});
    expect_refused(SYMCOLL_COLL_FCOLLECT, "ll", 17, 0, {"blocks 17", "fcollect ll", "1 to 16"});
    expect_refused(SYMCOLL_COLL_BROADCAST, "ce", 2, 0, {"blocks 2", "broadcast ce", "1 to 1"});
    expect_refused(SYMCOLL_COLL_ALLTOALL, "push", 8, 100, {"threads 100", "multiple of 32"});
    expect_refused(SYMCOLL_COLL_ALLTOALL, "push", 8, 1024, {"threads 1024", "to 512"});
    expect_refused(SYMCOLL_COLL_ALLTOALL, "push", 8, -32, {"threads -32"});
    expect_refused(SYMCOLL_COLL_BROADCAST, "ce", 0, 64, {"threads 64", "to 32"});
    expect_refused(SYMCOLL_COLL_REDUCE, nullptr, 4, 0, {"blocks 4", "without an algorithm"});
    expect_refused(SYMCOLL_COLL_FCOLLECT, "", 0, 32, {"threads 32", "without an algorithm"});
}

TEST_F(Override, AnOverrideGoesIntoTheQueryAndDecides) {
    symcoll_tuning_query_t q = query(SYMCOLL_COLL_ALLTOALL);
    EXPECT_FALSE(symcoll_tuning_override_apply(&q));
    EXPECT_EQ(q.forced, nullptr);
    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALL, "pull", 8, 256), SYMCOLL_SUCCESS);
    ASSERT_TRUE(symcoll_tuning_override_apply(&q));
    symcoll_choice_t out;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_STREQ(out.name, "pull");
    EXPECT_EQ(out.blocks, 8);
    EXPECT_EQ(out.threads, 256);
    symcoll_tuning_query_t other = query(SYMCOLL_COLL_FCOLLECT); // per collective
    EXPECT_FALSE(symcoll_tuning_override_apply(&other));
    // 0 keeps the table's grid for the forced algorithm.
    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALL, "push", 0, 0), SYMCOLL_SUCCESS);
    q = query(SYMCOLL_COLL_ALLTOALL);
    ASSERT_TRUE(symcoll_tuning_override_apply(&q));
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_STREQ(out.name, "push");
    EXPECT_EQ(out.blocks, 128);
    EXPECT_EQ(out.threads, 512);
    // Cleared: automatic again.
    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALL, "", 0, 0), SYMCOLL_SUCCESS);
    q = query(SYMCOLL_COLL_ALLTOALL);
    EXPECT_FALSE(symcoll_tuning_override_apply(&q));
}

TEST_F(Override, TheNameIsCopiedNotKept) {
    char name[16];
    std::strcpy(name, "two_shot");
    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_REDUCE, name, 0, 0), SYMCOLL_SUCCESS);
    std::strcpy(name, "garbage");
    symcoll_tuning_query_t q = query(SYMCOLL_COLL_REDUCE);
    ASSERT_TRUE(symcoll_tuning_override_apply(&q));
    EXPECT_STREQ(q.forced, "two_shot");
}

// As SYMCOLL_ALGO_<COLLECTIVE>, the name is matched in any case; the table's spelling is kept.
TEST_F(Override, TheNameMatchesInAnyCase) {
    ASSERT_EQ(symcoll_tuning_override(SYMCOLL_COLL_FCOLLECT, "LL", 0, 0), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    symcoll_tuning_query_t q = query(SYMCOLL_COLL_FCOLLECT);
    ASSERT_TRUE(symcoll_tuning_override_apply(&q));
    EXPECT_STREQ(q.forced, "ll");
}

} // namespace
