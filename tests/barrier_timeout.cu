// Run with SYMCOLL_TIMEOUT_MS set small (tests/rma.cmake sets it). The last PE skips a
// barrier: every other PE's barrier gives up within the timeout plus a small margin, its
// stream completes, and the team reports SYMCOLL_ERROR_TIMEOUT naming the missing PE, at
// once, from then on. Nothing hangs: the skipping PE goes straight on to finalize.
#include <string>
#include "symcoll_device.cuh"
#include "gpu_main.h"
#include "rma_testing.h"

using namespace rma_testing;

namespace {

TEST(BarrierTimeout, MissingPeBreaksTheTeamWithItsName) {
    long timeout_ms = timeout_ms_from_env();
    ASSERT_GT(timeout_ms, 0) << "run with SYMCOLL_TIMEOUT_MS set (ctest does)";
    int me = symcoll_my_pe(), n = symcoll_n_pes(), missing = n - 1;
    if (n < 2)
        GTEST_SKIP() << "needs a second PE to be missing";
    Stream stream;
    barrier_sync(stream); // everyone starts together
    if (me == missing) {
        SYM_OK(symcoll_team_status(SYMCOLL_TEAM_WORLD)); // this PE never waited
        return;
    }
    std::string pe_name = "waiting for PE " + std::to_string(missing);
    gpu_main_expected_finalize = SYMCOLL_ERROR_TIMEOUT; // finalize reports the broken team

    TimeoutClock::time_point start = TimeoutClock::now();
    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
    CUDA_OK(cudaStreamSynchronize(stream)); // the kernel gave up and exited
    double waited = ms_since(start);
    EXPECT_GE(waited, 0.9 * timeout_ms);
    EXPECT_LE(waited, timeout_ms + kMarginMs);

    EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_TIMEOUT);
    std::string status_message = symcoll_last_error();
    EXPECT_NE(status_message.find(pe_name), std::string::npos) << status_message;
    EXPECT_NE(status_message.find("barrier"), std::string::npos) << status_message;

    start = TimeoutClock::now();
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream), SYMCOLL_ERROR_TIMEOUT);
    std::string again = symcoll_last_error();
    EXPECT_NE(again.find(pe_name), std::string::npos) << again;
    EXPECT_NE(again.find("symcoll_barrier_on_stream"), std::string::npos) << again;
    EXPECT_EQ(symcoll_device_handle(SYMCOLL_TEAM_WORLD).team_size, 0);
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_LT(ms_since(start), 100.0) << "a broken team must fail at once";
}

} // namespace
