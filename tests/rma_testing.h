// Helpers shared by the RMA, device-API and barrier GPU tests: status assertions, a per-run
// seed that every PE agrees on, reproducible random data per (seed, PE), symmetric buffers.
#ifndef SYMCOLL_RMA_TESTING_H
#define SYMCOLL_RMA_TESTING_H

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include "symcoll.h"

#define CUDA_OK(expr)                                                                              \
    do {                                                                                           \
        cudaError_t err_ = (expr);                                                                 \
        ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_);                 \
    } while (0)

#define SYM_OK(expr)                                                                               \
    do {                                                                                           \
        symcoll_status_t st_ = (expr);                                                             \
        ASSERT_EQ(st_, SYMCOLL_SUCCESS)                                                            \
            << #expr << ": " << symcoll_status_string(st_) << ": " << symcoll_last_error();        \
    } while (0)

namespace rma_testing {

inline uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
inline uint64_t mix(uint64_t a, uint64_t b) {
    return mix(a ^ mix(b));
}

// The same seed on every PE, new for every run (SYMCOLL_TEST_SEED repeats one): PE 0 draws
// it and puts it into every PE's copy of a symmetric word (of its node or of another) before a
// barrier.
inline uint64_t run_seed() {
    static uint64_t seed = [] {
        uint64_t s = 0;
        if (const char *env = std::getenv("SYMCOLL_TEST_SEED"))
            return (uint64_t)std::strtoull(env, nullptr, 0);
        uint64_t *word = (uint64_t *)symcoll_malloc(sizeof(uint64_t));
        if (!word) {
            ADD_FAILURE() << "symcoll_malloc: " << symcoll_last_error();
            return s;
        }
        if (symcoll_my_pe() == 0) {
            s = ((uint64_t)std::random_device{}() << 32) ^ std::random_device{}();
            EXPECT_EQ(cudaMemcpy(word, &s, sizeof s, cudaMemcpyHostToDevice), cudaSuccess);
            for (int pe = 1; pe < symcoll_n_pes(); pe++)
                EXPECT_EQ(symcoll_put_on_stream(word, word, sizeof s, pe, 0), SYMCOLL_SUCCESS)
                    << symcoll_last_error();
        }
        EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0), SYMCOLL_SUCCESS);
        EXPECT_EQ(cudaStreamSynchronize(0), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(&s, word, sizeof s, cudaMemcpyDeviceToHost), cudaSuccess);
        symcoll_free(word);
        return s;
    }();
    return seed;
}

// Names the seed in every failure message of the enclosing scope.
#define SEED_TRACE()                                                                               \
    SCOPED_TRACE("run seed " + std::to_string(rma_testing::run_seed()) +                           \
                 " (repeat with SYMCOLL_TEST_SEED), PE " + std::to_string(symcoll_my_pe()))

// Reproducible bytes of one (case seed, PE) pair; any PE can compute any PE's data.
inline std::vector<uint8_t> random_bytes(size_t n, uint64_t case_seed, int pe) {
    std::vector<uint8_t> v(n);
    uint64_t state = mix(case_seed, (uint64_t)pe + 1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t r = mix(state + i);
        std::memcpy(&v[i], &r, 8);
    }
    for (uint64_t r = mix(state + i); i < n; i++, r >>= 8)
        v[i] = (uint8_t)r;
    return v;
}

constexpr uint8_t kPoison = 0xA5;

// First index where got differs from want, or -1.
inline long first_mismatch(const uint8_t *got, const uint8_t *want, size_t n) {
    if (std::memcmp(got, want, n) == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return (long)i;
    return -1;
}
// First index in [0, n) whose byte is not the poison, or -1.
inline long first_unpoisoned(const uint8_t *got, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (got[i] != kPoison)
            return (long)i;
    return -1;
}

// A barrier over WORLD on the legacy stream, waited for on the host: no PE runs a kernel of
// the test when it returns.
inline void barrier_and_wait() {
    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0));
    CUDA_OK(cudaStreamSynchronize(0));
}

// A symmetric allocation for the lifetime of a test (collective on construction and
// destruction: every PE builds and drops the same buffers in the same order).
struct SymBuffer {
    void *ptr = nullptr;
    size_t bytes = 0;
    explicit SymBuffer(size_t n) : ptr(symcoll_malloc(n)), bytes(n) {
        EXPECT_NE(ptr, nullptr) << "symcoll_malloc(" << n << "): " << symcoll_last_error();
    }
    ~SymBuffer() {
        symcoll_free(ptr);
    }
    SymBuffer(const SymBuffer &) = delete;
    SymBuffer &operator=(const SymBuffer &) = delete;
    template <typename T> T *as() const {
        return (T *)ptr;
    }
};

// A plain device allocation of this PE.
struct DeviceBuffer {
    void *ptr = nullptr;
    explicit DeviceBuffer(size_t n) {
        EXPECT_EQ(cudaMalloc(&ptr, n), cudaSuccess);
    }
    ~DeviceBuffer() {
        cudaFree(ptr);
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    template <typename T> T *as() const {
        return (T *)ptr;
    }
};

// A stream of this PE's GPU for one test. Blocking, so the tests' plain cudaMemcpy and
// cudaMemset calls (legacy default stream) are ordered with it.
struct Stream {
    cudaStream_t s = nullptr;
    Stream() {
        EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
    }
    ~Stream() {
        cudaStreamDestroy(s);
    }
    operator cudaStream_t() const {
        return s;
    }
};

// Every PE reaches this point before any leaves it (host and stream synchronized).
inline void barrier_sync(cudaStream_t s) {
    ASSERT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, s), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
}

// Sizes of every class: one byte, odd, past the fused put_signal limit, past L2 (50 MB).
inline std::vector<size_t> size_classes() {
    return {1, 7, 4093, 64 * 1024 + 13, (1 << 20) + 1, (64u << 20) + 3};
}
constexpr size_t kLargest = (64u << 20) + 3;

// Timeout tests: SYMCOLL_TIMEOUT_MS as the test sees it (-1 if unset), the margin a
// timed-out wait may take beyond it, and elapsed wall time.
inline long timeout_ms_from_env() {
    const char *v = std::getenv("SYMCOLL_TIMEOUT_MS");
    return v ? std::atol(v) : -1;
}
constexpr double kMarginMs = 1000;
using TimeoutClock = std::chrono::steady_clock;
inline double ms_since(TimeoutClock::time_point t) {
    return std::chrono::duration<double, std::milli>(TimeoutClock::now() - t).count();
}

} // namespace rma_testing

#endif
