// What --soak decides on the CPU: the counts it draws, and its verdict from what a run measured
// (wrong elements, leaks, the probe's slowdown).
#include <gtest/gtest.h>

#include "soak_verdict.h"

namespace {

// A long clean run: leak baseline taken after the warm-up, nothing changed since.
perf_soak_result_t clean_run() {
    perf_soak_result_t r = {};
    r.rounds = 10 * PERF_SOAK_WARMUP_ROUNDS;
    r.fds_before = r.fds_after = 12;
    r.free_before = r.free_after = size_t(80) << 30;
    r.first_probe_us = 5.0;
    r.last_probe_us = 5.5;
    return r;
}

TEST(PerfSoak, ACleanRunPasses) {
    perf_soak_result_t r = clean_run();
    EXPECT_TRUE(perf_soak_passed(&r));
}

TEST(PerfSoak, AWrongElementALeakOrASlowdownFails) {
    perf_soak_result_t r = clean_run();
    r.wrong = 1;
    EXPECT_FALSE(perf_soak_passed(&r));
    r = clean_run();
    r.fds_after++;
    EXPECT_FALSE(perf_soak_passed(&r));
    r = clean_run();
    r.free_after -= 2 << 20;
    EXPECT_FALSE(perf_soak_passed(&r));
    r = clean_run();
    r.last_probe_us = r.first_probe_us * (PERF_SOAK_SLOWDOWN_LIMIT + 0.01);
    EXPECT_FALSE(perf_soak_passed(&r));
}

// A run that ended within the warm-up has no leak baseline: it cannot leak against one, and
// fails only on what it did measure.
TEST(PerfSoak, ARunShorterThanTheWarmUpIsNotALeak) {
    perf_soak_result_t r = clean_run();
    r.rounds = PERF_SOAK_WARMUP_ROUNDS - 1;
    r.fds_before = -1;
    r.free_before = 0;
    EXPECT_TRUE(perf_soak_passed(&r));
    r.wrong = 3;
    EXPECT_FALSE(perf_soak_passed(&r));
    r.wrong = 0;
    r.last_probe_us = 2 * r.first_probe_us;
    EXPECT_FALSE(perf_soak_passed(&r));
}

// Scale bits that pick 2^k elements.
uint64_t scale(int k) {
    return uint64_t(k) + 7 * PERF_SOAK_COUNT_SCALES;
}

TEST(PerfSoak, CountsStartAtOneElementAndCoverEachScale) {
    const size_t max_count = size_t(1) << 20;
    EXPECT_EQ(perf_soak_count(scale(0), 12345, max_count), 1u);
    for (int k = 1; k < 20; k++) {
        size_t low = size_t(1) << k;
        EXPECT_EQ(perf_soak_count(scale(k), 0, max_count), low) << k;
        EXPECT_EQ(perf_soak_count(scale(k), low - 1, max_count), 2 * low - 1) << k;
    }
    for (uint64_t bits = 0; bits < 1000; bits++) {
        size_t n = perf_soak_count(bits * 0x9e3779b97f4a7c15ull, bits * 31, max_count);
        EXPECT_GE(n, 1u);
        EXPECT_LE(n, max_count);
    }
}

} // namespace
