// symcoll_barrier_on_stream orders data: in every round one PE is late (it sleeps), then
// writes a value into each peer's buffer before the barrier; every peer reads its buffer
// right after the barrier in stream order and must find the value. The writes come from a
// kernel (device stores, the barrier's quiet) or from put_on_stream (copy engine).
#include <chrono>
#include <thread>
#include "symcoll_device.cuh"
#include "rma_testing.h"

using namespace rma_testing;

namespace {

constexpr uint64_t kSleepNs = 50u * 1000 * 1000;

// Thread q stores tokens[q] into team member q's slot written by this PE, after an
// in-stream delay, so the barriers of the other PEs are already waiting.
__global__ void late_writer_kernel(symcoll_device_t h, uint64_t *slots, const uint64_t *tokens,
                                   uint64_t delay_ns) {
    uint64_t start = symcoll_dev_now_ns();
    while (symcoll_dev_now_ns() - start < delay_ns)
        __nanosleep(100000);
    int q = threadIdx.x;
    if (q < h.team_size && q != h.team_my_pe)
        symcoll_dev_p(h, slots + h.team_my_pe, tokens[q], symcoll_dev_team_to_world(h, q));
}

uint64_t token(uint64_t round_seed, int writer, int reader) {
    return mix(round_seed, (uint64_t)writer * 4096 + reader);
}

void late_writer_rounds(symcoll_team_t team, bool device_writes) {
    SEED_TRACE();
    int me = symcoll_team_my_pe(team), n = symcoll_team_n_pes(team);
    ASSERT_GE(me, 0);
    symcoll_device_t h = symcoll_device_handle(team);
    ASSERT_EQ(h.team_size, n) << symcoll_last_error();
    SymBuffer slots(n * sizeof(uint64_t));
    DeviceBuffer tokens(n * sizeof(uint64_t)), landed(n * sizeof(uint64_t));
    Stream stream;
    for (int round = 0; round < 4 * n; round++) {
        int late = round % n;
        uint64_t round_seed = mix(run_seed(), (uint64_t)round * 2 + device_writes + 100 * team);
        CUDA_OK(cudaMemsetAsync(slots.ptr, kPoison, slots.bytes, stream));
        SYM_OK(symcoll_barrier_on_stream(team, stream));
        if (me == late) {
            std::vector<uint64_t> mine(n);
            for (int q = 0; q < n; q++)
                mine[q] = token(round_seed, me, q);
            CUDA_OK(cudaMemcpyAsync(tokens.ptr, mine.data(), slots.bytes, cudaMemcpyHostToDevice,
                                    stream));
            if (device_writes) {
                late_writer_kernel<<<1, 64, 0, stream>>>(h, slots.as<uint64_t>(),
                                                         tokens.as<uint64_t>(), kSleepNs);
                CUDA_OK(cudaGetLastError());
            } else {
                std::this_thread::sleep_for(std::chrono::nanoseconds(kSleepNs));
                for (int q = 0; q < n; q++)
                    if (q != me)
                        SYM_OK(symcoll_put_on_stream(
                            slots.as<uint64_t>() + me, tokens.as<uint64_t>() + q, sizeof(uint64_t),
                            symcoll_team_translate_pe(team, q, SYMCOLL_TEAM_WORLD), stream));
            }
        }
        SYM_OK(symcoll_barrier_on_stream(team, stream));
        CUDA_OK(
            cudaMemcpyAsync(landed.ptr, slots.ptr, slots.bytes, cudaMemcpyDeviceToDevice, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        std::vector<uint64_t> got(n);
        CUDA_OK(cudaMemcpy(got.data(), landed.ptr, slots.bytes, cudaMemcpyDeviceToHost));
        if (me != late)
            EXPECT_EQ(got[late], token(round_seed, late, me))
                << "round " << round << ": PE " << late << "'s write was not visible after the "
                << (device_writes ? "device" : "copy-engine") << " barrier";
    }
    barrier_sync(stream);
}

TEST(BarrierOrder, LateKernelWritesVisibleAfterWorldBarrier) {
    late_writer_rounds(SYMCOLL_TEAM_WORLD, true);
}
TEST(BarrierOrder, LatePutsVisibleAfterWorldBarrier) {
    late_writer_rounds(SYMCOLL_TEAM_WORLD, false);
}
TEST(BarrierOrder, LateKernelWritesVisibleAfterNodeBarrier) {
    late_writer_rounds(SYMCOLL_TEAM_NODE, true);
}
TEST(BarrierOrder, LatePutsVisibleAfterNodeBarrier) {
    late_writer_rounds(SYMCOLL_TEAM_NODE, false);
}

__global__ void never_launched_kernel() {}

// A launch error the program left pending (an empty grid) is not the next call's: barrier,
// put_signal and signal_wait report their own launch, and the error stays for the program.
TEST(BarrierArguments, APendingLaunchErrorOfTheProgramIsNotTheCallsOwn) {
    Stream stream;
    SymBuffer signal(sizeof(uint64_t));
    CUDA_OK(cudaMemset(signal.ptr, 0, sizeof(uint64_t)));
    int me = symcoll_my_pe();
    for (int call = 0; call < 3; call++) {
        never_launched_kernel<<<0, 1, 0, stream>>>();
        cudaError_t pending = cudaPeekAtLastError(); // which code: the CUDA version's choice
        ASSERT_NE(pending, cudaSuccess);
        symcoll_status_t st =
            call == 0   ? symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream)
            : call == 1 ? symcoll_put_signal_on_stream(nullptr, nullptr, 0, signal.as<uint64_t>(),
                                                       1, SYMCOLL_SIGNAL_SET, me, stream)
                        : symcoll_signal_wait_until_on_stream(signal.as<uint64_t>(), SYMCOLL_CMP_GE,
                                                              1, stream);
        EXPECT_EQ(st, SYMCOLL_SUCCESS) << "call " << call << ": " << symcoll_last_error();
        EXPECT_EQ(cudaGetLastError(), pending) << "call " << call;
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream), SYMCOLL_SUCCESS);
    CUDA_OK(cudaStreamSynchronize(stream));
}

TEST(BarrierArguments, RejectsBadTeamsAndStreams) {
    for (symcoll_team_t team : {-1, 2, 63, 64, 1000}) {
        EXPECT_EQ(symcoll_barrier_on_stream(team, 0), SYMCOLL_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(symcoll_last_error()).find("team " + std::to_string(team)),
                  std::string::npos)
            << symcoll_last_error();
    }
    int devices = 0, mine = -1;
    CUDA_OK(cudaGetDeviceCount(&devices));
    CUDA_OK(cudaGetDevice(&mine));
    if (devices > 1) {
        int other = (mine + 1) % devices;
        cudaStream_t foreign;
        CUDA_OK(cudaSetDevice(other));
        CUDA_OK(cudaStreamCreate(&foreign));
        CUDA_OK(cudaSetDevice(mine));
        EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, foreign),
                  SYMCOLL_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(symcoll_last_error()).find("stream"), std::string::npos);
        CUDA_OK(cudaStreamDestroy(foreign));
    }
}

} // namespace
