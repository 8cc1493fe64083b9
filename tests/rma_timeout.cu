// Run with SYMCOLL_TIMEOUT_MS set small (tests/rma.cmake sets it). Signal waits on a signal
// that nobody sets give up within the timeout plus a small margin: the device API's wait
// returns false to the user kernel and breaks its team; the host wait breaks WORLD. Later
// calls on a broken team fail at once.
#include <string>
#include "symcoll_device.cuh"
#include "gpu_main.h"
#include "rma_testing.h"

using namespace rma_testing;

namespace {

__global__ void wait_kernel(symcoll_device_t h, const uint64_t *sig, int *result) {
    *result = symcoll_dev_signal_wait_until(h, sig, SYMCOLL_CMP_EQ, 1) ? 1 : 0;
}

// Tests run in order: NODE breaks first, WORLD last.
TEST(SignalWaitTimeout, DeviceWaitReturnsFalseAndBreaksItsTeam) {
    long timeout_ms = timeout_ms_from_env();
    ASSERT_GT(timeout_ms, 0) << "run with SYMCOLL_TIMEOUT_MS set (ctest does)";
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_NODE);
    ASSERT_GT(h.team_size, 0) << symcoll_last_error();
    SymBuffer sig(sizeof(uint64_t));
    DeviceBuffer result(sizeof(int));
    Stream stream;
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));
    CUDA_OK(cudaMemset(result.ptr, 0xff, sizeof(int)));

    gpu_main_expected_finalize = SYMCOLL_ERROR_TIMEOUT; // finalize reports the broken team
    TimeoutClock::time_point start = TimeoutClock::now();
    wait_kernel<<<1, 1, 0, stream>>>(h, sig.as<uint64_t>(), result.as<int>());
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(stream));
    double waited = ms_since(start);
    int satisfied = -1;
    CUDA_OK(cudaMemcpy(&satisfied, result.ptr, sizeof satisfied, cudaMemcpyDeviceToHost));
    EXPECT_EQ(satisfied, 0);
    EXPECT_GE(waited, 0.9 * timeout_ms);
    EXPECT_LE(waited, timeout_ms + kMarginMs);

    EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_NODE), SYMCOLL_ERROR_TIMEOUT);
    std::string message = symcoll_last_error();
    EXPECT_NE(message.find("device_api"), std::string::npos) << message;
    start = TimeoutClock::now();
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_NODE, stream), SYMCOLL_ERROR_TIMEOUT);
    EXPECT_LT(ms_since(start), 100.0);
    SYM_OK(symcoll_team_status(SYMCOLL_TEAM_WORLD)); // other teams are untouched
}

TEST(SignalWaitTimeout, HostWaitTimesOutAndBreaksWorld) {
    long timeout_ms = timeout_ms_from_env();
    ASSERT_GT(timeout_ms, 0) << "run with SYMCOLL_TIMEOUT_MS set (ctest does)";
    SymBuffer sig(sizeof(uint64_t));
    Stream stream;
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));

    TimeoutClock::time_point start = TimeoutClock::now();
    SYM_OK(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), SYMCOLL_CMP_GE, 7, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    double waited = ms_since(start);
    EXPECT_GE(waited, 0.9 * timeout_ms);
    EXPECT_LE(waited, timeout_ms + kMarginMs);

    EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_TIMEOUT);
    std::string message = symcoll_last_error();
    EXPECT_NE(message.find("signal_wait"), std::string::npos) << message;
    EXPECT_NE(message.find("epoch 7"), std::string::npos) << message;
    start = TimeoutClock::now();
    EXPECT_EQ(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), SYMCOLL_CMP_GE, 7, stream),
              SYMCOLL_ERROR_TIMEOUT);
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_LT(ms_since(start), 100.0);
}

} // namespace
