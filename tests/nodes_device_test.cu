// The device API to PEs of another node (symcoll-run --nodes 2, 2 or 4 PEs): a kernel's put,
// get and put-with-signal to the PE of its rank on the other node go through this PE's proxy (a
// request ring in host-mapped memory), in every scope, from memory that is not symmetric and
// into it, at odd offsets; checked against each PE's random data with the bytes around poisoned.
// Then 4096 threads put 8 bytes each (the ring of 1024 entries wraps) and quiet.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "rma_testing.h"
#include "symcoll_device.cuh"

using namespace rma_testing;

namespace {

enum Scope { kThread, kWarp, kBlock };

__global__ void put_kernel(symcoll_device_t h, char *dst, const char *src, size_t bytes, int pe,
                           Scope scope) {
    if (scope == kThread && threadIdx.x == 0)
        symcoll_dev_put(h, dst, src, bytes, pe);
    if (scope == kWarp && threadIdx.x < 32)
        symcoll_dev_put_warp(h, dst, src, bytes, pe);
    if (scope == kBlock)
        symcoll_dev_put_block(h, dst, src, bytes, pe);
    if (threadIdx.x == 0)
        symcoll_dev_quiet(h);
}

__global__ void get_kernel(symcoll_device_t h, char *dst, const char *src, size_t bytes, int pe,
                           Scope scope) {
    if (scope == kThread && threadIdx.x == 0)
        symcoll_dev_get(h, dst, src, bytes, pe);
    if (scope == kWarp && threadIdx.x < 32)
        symcoll_dev_get_warp(h, dst, src, bytes, pe);
    if (scope == kBlock)
        symcoll_dev_get_block(h, dst, src, bytes, pe);
}

// Each PE puts to its partner with a signal, then waits for its own signal and copies what it
// received into out (so the kernel itself reads the data after the signal).
__global__ void put_signal_kernel(symcoll_device_t h, char *dst, const char *src, size_t bytes,
                                  uint64_t *sig, uint64_t round, int pe, char *out, int *ok) {
    symcoll_dev_put_signal_block(h, dst, src, bytes, sig, 1, SYMCOLL_SIGNAL_ADD, pe);
    __shared__ bool arrived;
    if (threadIdx.x == 0)
        arrived = symcoll_dev_signal_wait_until(h, sig, SYMCOLL_CMP_GE, round);
    __syncthreads();
    if (threadIdx.x == 0)
        *ok = arrived;
    if (arrived)
        for (size_t i = threadIdx.x; i < bytes; i += blockDim.x)
            out[i] = ((volatile char *)dst)[i];
}

__global__ void many_puts_kernel(symcoll_device_t h, uint64_t *dst, const uint64_t *src, int pe) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    symcoll_dev_put(h, dst + i, src + i, sizeof(uint64_t), pe);
    symcoll_dev_quiet(h);
}

constexpr size_t kOffset = 3;
constexpr size_t kGuard = 64;

class NodesDevice : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(n == 2 || n == 4) << n << " PEs";
        ASSERT_NE(std::getenv("SYMCOLL_NODE_ID"), nullptr);
        ASSERT_EQ(h.team_size, n) << symcoll_last_error();
        ASSERT_NE(h.proxy_ring.entries, nullptr) << "no proxy ring across nodes";
    }
    int n = symcoll_n_pes(), me = symcoll_my_pe(), partner = (me + n / 2) % n;
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    Stream stream;

    // The partner's data for seed at kOffset of got, poison around it.
    void expect_from_partner(const std::vector<uint8_t> &got, size_t bytes, uint64_t seed,
                             const char *what) {
        std::vector<uint8_t> want = random_bytes(bytes, seed, partner);
        EXPECT_EQ(first_unpoisoned(got.data(), kOffset), -1) << what << " " << bytes;
        EXPECT_EQ(first_mismatch(got.data() + kOffset, want.data(), bytes), -1)
            << what << " " << bytes;
        EXPECT_EQ(first_unpoisoned(got.data() + kOffset + bytes, kGuard), -1)
            << what << " " << bytes;
    }
};

struct SizeScope {
    size_t bytes;
    Scope scope;
};

const SizeScope kCases[] = {{1, kThread},
                            {7, kThread},
                            {4093, kThread},
                            {(1u << 20) + 1, kThread},
                            {(3u << 20) + 5, kThread},
                            {4093, kWarp},
                            {(1u << 20) + 1, kWarp},
                            {4093, kBlock},
                            {(1u << 20) + 1, kBlock}};

TEST_F(NodesDevice, PutsFromAKernelReachTheOtherNode) {
    SEED_TRACE();
    const size_t span = kOffset + (3u << 20) + 5 + kGuard;
    SymBuffer dst(span);
    DeviceBuffer src(span);
    std::vector<uint8_t> got(span);
    for (SizeScope c : kCases) {
        uint64_t seed = mix(run_seed(), c.bytes * 3 + c.scope);
        std::vector<uint8_t> mine = random_bytes(c.bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), c.bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream);
        put_kernel<<<1, 128, 0, stream>>>(h, dst.as<char>() + kOffset, src.as<char>(), c.bytes,
                                          partner, c.scope);
        CUDA_OK(cudaGetLastError());
        barrier_sync(stream);
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, span, cudaMemcpyDeviceToHost));
        expect_from_partner(got, c.bytes, seed, c.scope == kThread ? "put" : "scoped put");
    }
}

TEST_F(NodesDevice, GetsFromAKernelBringTheOtherNodesData) {
    SEED_TRACE();
    const size_t span = kOffset + (3u << 20) + 5 + kGuard;
    SymBuffer src(span);
    DeviceBuffer dst(span);
    std::vector<uint8_t> got(span);
    for (SizeScope c : kCases) {
        uint64_t seed = mix(run_seed(), c.bytes * 5 + c.scope);
        std::vector<uint8_t> mine = random_bytes(c.bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.as<char>() + kOffset, mine.data(), c.bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream);
        get_kernel<<<1, 128, 0, stream>>>(h, dst.as<char>() + kOffset, src.as<char>() + kOffset,
                                          c.bytes, partner, c.scope);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, span, cudaMemcpyDeviceToHost));
        expect_from_partner(got, c.bytes, seed, "get");
        barrier_sync(stream); // every get done before the next case overwrites the source
    }
}

TEST_F(NodesDevice, PutWithSignalIsSeenByTheWaitingKernel) {
    SEED_TRACE();
    const size_t bytes = (1u << 20) + 7;
    SymBuffer dst(bytes), sig(sizeof(uint64_t));
    DeviceBuffer src(bytes), out(bytes), ok(sizeof(int));
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));
    std::vector<uint8_t> got(bytes);
    for (uint64_t round = 1; round <= 3; round++) {
        uint64_t seed = mix(run_seed(), 77 + round);
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(out.ptr, 0, bytes));
        barrier_sync(stream); // the previous round's reads are done everywhere
        put_signal_kernel<<<1, 128, 0, stream>>>(h, dst.as<char>(), src.as<char>(), bytes,
                                                 sig.as<uint64_t>(), round, partner, out.as<char>(),
                                                 ok.as<int>());
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(stream));
        int arrived = 0;
        CUDA_OK(cudaMemcpy(&arrived, ok.ptr, sizeof arrived, cudaMemcpyDeviceToHost));
        ASSERT_EQ(arrived, 1) << "round " << round << ": the signal did not come";
        CUDA_OK(cudaMemcpy(got.data(), out.ptr, bytes, cudaMemcpyDeviceToHost));
        std::vector<uint8_t> want = random_bytes(bytes, seed, partner);
        EXPECT_EQ(first_mismatch(got.data(), want.data(), bytes), -1) << "round " << round;
    }
}

// 4096 threads of 32 blocks put one word each: the ring of 1024 entries wraps four times.
TEST_F(NodesDevice, ManySmallPutsWrapTheRing) {
    SEED_TRACE();
    const int words = 4096;
    SymBuffer dst(words * sizeof(uint64_t));
    DeviceBuffer src(words * sizeof(uint64_t));
    std::vector<uint64_t> mine(words), got(words);
    for (int i = 0; i < words; i++)
        mine[i] = mix(run_seed(), (uint64_t)me * words + i);
    CUDA_OK(cudaMemcpy(src.ptr, mine.data(), words * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dst.ptr, 0, words * sizeof(uint64_t)));
    barrier_sync(stream);
    many_puts_kernel<<<words / 128, 128, 0, stream>>>(h, dst.as<uint64_t>(), src.as<uint64_t>(),
                                                      partner);
    CUDA_OK(cudaGetLastError());
    barrier_sync(stream);
    CUDA_OK(cudaMemcpy(got.data(), dst.ptr, words * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    for (int i = 0; i < words; i++)
        if (got[i] != mix(run_seed(), (uint64_t)partner * words + i)) {
            ADD_FAILURE() << "word " << i << " of the partner's puts";
            break;
        }
}

} // namespace
