// What --soak decides on the CPU: the counts it draws, and its verdict from what a run measured
// (wrong elements, leaks, the probe's slowdown).
#include <gtest/gtest.h>

#include <initializer_list>

#include "soak_verdict.h"

namespace {

// Probe timings of a run, in the order taken.
void set_probes(perf_soak_result_t *r, std::initializer_list<double> us) {
    r->probes = 0;
    for (double t : us)
        r->probe_us[r->probes++] = t;
}

// A long clean run: leak baseline taken after the warm-up, nothing changed since.
perf_soak_result_t clean_run() {
    perf_soak_result_t r = {};
    r.rounds = 10 * PERF_SOAK_WARMUP_ROUNDS;
    r.fds_before = r.fds_after = 12;
    r.free_before = r.free_after = size_t(80) << 30;
    set_probes(&r, {5.0, 5.1, 4.9, 5.2, 5.0, 5.3, 5.1, 5.4, 5.2, 5.5, 5.5});
    return r;
}

// Every probe of the later half of a run at `factor` times those of the earlier half.
void slow_down(perf_soak_result_t *r, double factor) {
    for (int i = r->probes - r->probes / 2; i < r->probes; i++)
        r->probe_us[i] = factor * r->probe_us[i - (r->probes - r->probes / 2)];
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
    slow_down(&r, PERF_SOAK_SLOWDOWN_LIMIT + 0.01);
    EXPECT_FALSE(perf_soak_passed(&r));
}

// The verdict weighs medians of halves, the middle probe of an odd count left out.
TEST(PerfSoak, SlowdownIsTheLaterHalfsMedianOverTheEarlierHalfs) {
    perf_soak_result_t r = {};
    set_probes(&r, {1, 3, 2, 100, 4, 6, 5});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 5.0 / 2.0);
    set_probes(&r, {2, 4, 6, 12});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 3.0);
    set_probes(&r, {4, 5});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 1.25);
    set_probes(&r, {1, 100, 1});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 1.0);
    set_probes(&r, {4});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 1.0);
    set_probes(&r, {});
    EXPECT_DOUBLE_EQ(perf_soak_slowdown(&r), 1.0);
    double earlier, later;
    set_probes(&r, {2, 4, 6, 12});
    perf_soak_probe_medians(&r, &earlier, &later);
    EXPECT_DOUBLE_EQ(earlier, 3.0);
    EXPECT_DOUBLE_EQ(later, 9.0);
}

// A lone slow probe, however slow, moves no median (a mean of the halves would fail this).
TEST(PerfSoak, ALoneSlowProbeMovesNoMedian) {
    perf_soak_result_t r = clean_run();
    set_probes(&r, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 50});
    EXPECT_TRUE(perf_soak_passed(&r));
}

// Two PEs sharing the H200 under MPS (ctest soak_gpu): one timing per probe moved 3.90-6.25 us
// with no trend, and a verdict of the last probe over the first failed that run (x1.33).
TEST(PerfSoak, OneSlowProbeOfASharedGpuIsNotASlowdown) {
    perf_soak_result_t r = clean_run();
    set_probes(&r, {4.70, 3.90, 4.12, 3.95, 5.23, 3.99, 4.70, 3.93, 4.23, 4.00, 6.25});
    EXPECT_TRUE(perf_soak_passed(&r));
    set_probes(&r, {4.70, 3.90, 4.12, 3.95, 5.23, 3.99, 6.25, 6.25, 6.25, 4.00, 6.25});
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
    slow_down(&r, 2);
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
