// Agreements over a faked bootstrap of three PEs (this one is PE 0): on a step's status (a
// failure on any PE fails the step on every PE, and a PE that failed keeps its own message),
// and on the smallest of a value (the SM count every PE's grid must fit).
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "bootstrap/bootstrap.h"
#include "internal.h"

namespace {

int32_t others[3]; // what PEs 1 and 2 report
int exchanges;

symcoll_status_t allgather(symcoll_bootstrap_t *b, const void *mine, void *all, size_t bytes) {
    exchanges++;
    for (int pe = 0; pe < b->size; pe++) {
        int32_t status = pe == b->rank ? *static_cast<const int32_t *>(mine) : others[pe];
        EXPECT_EQ(bytes, sizeof status);
        std::memcpy(static_cast<char *>(all) + pe * bytes, &status, sizeof status);
    }
    return SYMCOLL_SUCCESS;
}

symcoll_status_t agree(symcoll_status_t mine, symcoll_status_t pe1, symcoll_status_t pe2) {
    others[1] = pe1;
    others[2] = pe2;
    exchanges = 0;
    symcoll_bootstrap_t boot{};
    boot.size = 3;
    boot.allgather = allgather;
    symcoll_status_t st = symcoll_bootstrap_agree(&boot, "step", mine);
    EXPECT_EQ(exchanges, 1) << "every PE joins the exchange, also one that failed";
    return st;
}

TEST(BootstrapAgree, AllSucceed) {
    EXPECT_EQ(agree(SYMCOLL_SUCCESS, SYMCOLL_SUCCESS, SYMCOLL_SUCCESS), SYMCOLL_SUCCESS);
}

TEST(BootstrapAgree, AnotherPesFailureIsNamed) {
    EXPECT_EQ(agree(SYMCOLL_SUCCESS, SYMCOLL_SUCCESS, SYMCOLL_ERROR_OUT_OF_MEMORY),
              SYMCOLL_ERROR_OUT_OF_MEMORY);
    std::string why = symcoll_last_error();
    EXPECT_EQ(why.rfind("step: PE 2 failed (SYMCOLL_ERROR_OUT_OF_MEMORY)", 0), 0u) << why;
}

TEST(BootstrapAgree, OwnFailureKeepsItsMessage) {
    symcoll_set_error(SYMCOLL_ERROR_CUDA, "step: cudaMemset: out of luck");
    EXPECT_EQ(agree(SYMCOLL_ERROR_CUDA, SYMCOLL_ERROR_TIMEOUT, SYMCOLL_SUCCESS),
              SYMCOLL_ERROR_CUDA);
    EXPECT_STREQ(symcoll_last_error(), "step: cudaMemset: out of luck");
}

TEST(BootstrapMin, TheSmallestOfEveryPe) {
    others[1] = 114;
    others[2] = 132;
    symcoll_bootstrap_t boot{};
    boot.size = 3;
    boot.allgather = allgather;
    int smallest = 0;
    EXPECT_EQ(symcoll_bootstrap_min(&boot, "symcoll_init", 132, &smallest), SYMCOLL_SUCCESS);
    EXPECT_EQ(smallest, 114) << "a GPU with fewer SMs bounds every PE's grid";
    others[1] = 140;
    EXPECT_EQ(symcoll_bootstrap_min(&boot, "symcoll_init", 78, &smallest), SYMCOLL_SUCCESS);
    EXPECT_EQ(smallest, 78);
}

} // namespace
