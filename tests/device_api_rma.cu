// Device API from a user kernel (this file is built without -rdc): put/get at thread, warp
// and block scope, put_signal set and add, p/g, fence and quiet as message ordering, the
// block barrier, and device addressing against the host's symcoll_ptr.
#include "symcoll_device.cuh"
#include "rma_testing.h"

#if defined(__CUDACC_RDC__)
#error "the device API must work without relocatable device code"
#endif

using namespace rma_testing;

namespace {

enum Scope { THREAD, WARP, BLOCK };
enum Op { PUT, GET, PUT_SIGNAL };
const char *const kScopeNames[] = {"thread", "warp", "block"};

// 3 blocks of 80 threads: the last warp of each block has 16 threads.
constexpr int kBlocks = 3, kThreads = 80, kWarpsPerBlock = (kThreads + 31) / 32;

struct Group {
    unsigned index, count;
};

__device__ Group my_group(Scope scope) {
    switch (scope) {
    case THREAD:
        return {blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x};
    case WARP: {
        unsigned warps = (blockDim.x + 31) / 32;
        return {blockIdx.x * warps + threadIdx.x / 32, gridDim.x * warps};
    }
    default:
        return {blockIdx.x, gridDim.x};
    }
}

// Each group of the scope moves its share [begin, end) of the range (shares of uneven,
// mostly odd lengths); put_signal adds sig_value (or sets it) once per group.
__global__ void transfer_kernel(symcoll_device_t h, Scope scope, Op op, char *dst, const char *src,
                                size_t bytes, uint64_t *sig, uint64_t sig_value,
                                symcoll_signal_op_t sig_op, int pe) {
    Group g = my_group(scope);
    size_t begin = bytes * g.index / g.count, end = bytes * (g.index + 1) / g.count;
    char *d = dst + begin;
    const char *s = src + begin;
    size_t n = end - begin;
    switch (op * 3 + scope) {
    case PUT * 3 + THREAD:
        symcoll_dev_put(h, d, s, n, pe);
        break;
    case PUT * 3 + WARP:
        symcoll_dev_put_warp(h, d, s, n, pe);
        break;
    case PUT * 3 + BLOCK:
        symcoll_dev_put_block(h, d, s, n, pe);
        break;
    case GET * 3 + THREAD:
        symcoll_dev_get(h, d, s, n, pe);
        break;
    case GET * 3 + WARP:
        symcoll_dev_get_warp(h, d, s, n, pe);
        break;
    case GET * 3 + BLOCK:
        symcoll_dev_get_block(h, d, s, n, pe);
        break;
    case PUT_SIGNAL * 3 + THREAD:
        symcoll_dev_put_signal(h, d, s, n, sig, sig_value, sig_op, pe);
        break;
    case PUT_SIGNAL * 3 + WARP:
        symcoll_dev_put_signal_warp(h, d, s, n, sig, sig_value, sig_op, pe);
        break;
    default:
        symcoll_dev_put_signal_block(h, d, s, n, sig, sig_value, sig_op, pe);
        break;
    }
}

__global__ void wait_kernel(symcoll_device_t h, const uint64_t *sig, symcoll_cmp_t cmp,
                            uint64_t value, int *ok) {
    *ok = symcoll_dev_signal_wait_until(h, sig, cmp, value);
}

unsigned group_count(Scope scope, bool single) {
    if (single)
        return 1;
    return scope == THREAD ? kBlocks * kThreads
           : scope == WARP ? kBlocks * kWarpsPerBlock
                           : kBlocks;
}

// Launch shape: a single group (for SET, where one signal must announce all the data) or
// the full grid.
void launch_shape(Scope scope, bool single, dim3 *grid, dim3 *block) {
    *grid = dim3(single ? 1 : kBlocks);
    *block = dim3(!single ? kThreads : scope == THREAD ? 1 : scope == WARP ? 20 : kThreads);
}

constexpr size_t kGuard = 64, kMaxOff = 16;
constexpr size_t kBufBytes = kLargest + 2 * kGuard + kMaxOff;
struct Offsets {
    size_t dst, src;
};
const Offsets kOffsets[] = {{0, 0}, {5, 5}, {1, 6}};

class DeviceRma : public ::testing::Test {
  protected:
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    Stream stream;
    uint64_t case_id = 0;

    void SetUp() override {
        ASSERT_GT(h.team_size, 0) << symcoll_last_error();
    }
    uint64_t next_case() {
        return mix(run_seed(), ++case_id);
    }
    template <typename T> void check_p_and_g();
    void expect_window(const void *dev, size_t off, const std::vector<uint8_t> &want,
                       const std::string &what) {
        std::vector<uint8_t> got(want.size() + 2 * kGuard);
        CUDA_OK(
            cudaMemcpy(got.data(), (const char *)dev + off, got.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_mismatch(got.data() + kGuard, want.data(), want.size()), -1)
            << what << ": " << want.size() << " bytes at offset " << off;
        EXPECT_EQ(first_unpoisoned(got.data(), kGuard), -1) << what << ": wrote before";
        EXPECT_EQ(first_unpoisoned(got.data() + kGuard + want.size(), kGuard), -1)
            << what << ": wrote past";
    }
    // Uploads this PE's bytes of the case to src and poisons the whole dst buffer.
    void upload_and_poison(uint64_t seed, size_t bytes, char *src, void *dst) {
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemsetAsync(dst, kPoison, kBufBytes, stream));
    }
    // put writes into the right neighbour's symmetric dst, get reads the left neighbour's
    // symmetric src: either way dst ends up with the left neighbour's bytes.
    void check_put_or_get(Op op) {
        SymBuffer sym(kBufBytes);
        DeviceBuffer local(kBufBytes);
        char *dst = op == PUT ? sym.as<char>() : local.as<char>();
        char *src = op == PUT ? local.as<char>() : sym.as<char>();
        for (Scope scope : {THREAD, WARP, BLOCK})
            for (size_t bytes : size_classes())
                for (Offsets off : kOffsets) {
                    std::string what =
                        std::string(op == PUT ? "put_" : "get_") + kScopeNames[scope];
                    uint64_t seed = next_case();
                    upload_and_poison(seed, bytes, src + off.src, dst);
                    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                    transfer_kernel<<<kBlocks, kThreads, 0, stream>>>(
                        h, scope, op, dst + kGuard + off.dst, src + off.src, bytes, nullptr, 0,
                        SYMCOLL_SIGNAL_SET, op == PUT ? right : left);
                    CUDA_OK(cudaGetLastError());
                    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                    CUDA_OK(cudaStreamSynchronize(stream));
                    expect_window(dst, off.dst, random_bytes(bytes, seed, left), what);
                }
    }
};

// Counters that a test kernel bumps: words it read wrong, and waits that timed out.
struct KernelErrors {
    DeviceBuffer counters{sizeof(unsigned long long) + sizeof(int)};
    unsigned long long *wrong_words() const {
        return counters.as<unsigned long long>();
    }
    int *timeouts() const {
        return (int *)(wrong_words() + 1);
    }
    void reset() {
        CUDA_OK(cudaMemset(counters.ptr, 0, sizeof(unsigned long long) + sizeof(int)));
    }
    void expect_none(const char *wrong_words_mean) const {
        unsigned long long bad = 0;
        int timed_out = 0;
        CUDA_OK(cudaMemcpy(&bad, wrong_words(), sizeof bad, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(&timed_out, timeouts(), sizeof timed_out, cudaMemcpyDeviceToHost));
        EXPECT_EQ(timed_out, 0);
        EXPECT_EQ(bad, 0u) << wrong_words_mean;
    }
};

TEST_F(DeviceRma, PutEveryScopeSizeAndAlignment) {
    SEED_TRACE();
    check_put_or_get(PUT);
}

TEST_F(DeviceRma, GetEveryScopeSizeAndAlignment) {
    SEED_TRACE();
    check_put_or_get(GET);
}

// The receiver waits in a kernel for the signal alone, then reads the data. SET: one group
// moves everything and sets a new value; ADD: every group adds 1 for its share.
TEST_F(DeviceRma, PutSignalEveryScopeSetAndAdd) {
    SEED_TRACE();
    SymBuffer dst(kBufBytes);
    SymBuffer sigs(2 * sizeof(uint64_t));
    DeviceBuffer src(kBufBytes);
    DeviceBuffer ok(sizeof(int));
    uint64_t *set_sig = sigs.as<uint64_t>(), *add_sig = set_sig + 1;
    CUDA_OK(cudaMemset(sigs.ptr, 0, sigs.bytes));
    uint64_t set_value = 0, add_total = 0;
    for (symcoll_signal_op_t op : {SYMCOLL_SIGNAL_SET, SYMCOLL_SIGNAL_ADD})
        for (Scope scope : {THREAD, WARP, BLOCK})
            for (size_t bytes : size_classes())
                for (Offsets off : kOffsets) {
                    bool single = op == SYMCOLL_SIGNAL_SET;
                    // One thread copying bytewise: keep the single-group cases below L2.
                    if (single && bytes > (4u << 20))
                        continue;
                    std::string what =
                        std::string(single ? "set " : "add ") + "put_signal_" + kScopeNames[scope];
                    uint64_t seed = next_case();
                    uint64_t *sig = single ? set_sig : add_sig;
                    uint64_t value = single ? ++set_value : 1;
                    uint64_t expect = single ? value : (add_total += group_count(scope, false));
                    upload_and_poison(seed, bytes, src.as<char>() + off.src, dst.ptr);
                    CUDA_OK(cudaMemsetAsync(ok.ptr, 0, sizeof(int), stream));
                    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                    dim3 grid, block;
                    launch_shape(scope, single, &grid, &block);
                    transfer_kernel<<<grid, block, 0, stream>>>(
                        h, scope, PUT_SIGNAL, dst.as<char>() + kGuard + off.dst,
                        src.as<char>() + off.src, bytes, sig, value, op, right);
                    wait_kernel<<<1, 1, 0, stream>>>(h, sig, SYMCOLL_CMP_EQ, expect, ok.as<int>());
                    CUDA_OK(cudaGetLastError());
                    CUDA_OK(cudaStreamSynchronize(stream));
                    int waited = 0;
                    CUDA_OK(cudaMemcpy(&waited, ok.ptr, sizeof waited, cudaMemcpyDeviceToHost));
                    ASSERT_EQ(waited, 1) << what << ": the signal wait timed out";
                    expect_window(dst.ptr, off.dst, random_bytes(bytes, seed, left), what);
                }
}

template <typename T>
__global__ void p_kernel(symcoll_device_t h, T *dst, const T *values, int count, int pe) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        symcoll_dev_p(h, dst + i, values[i], pe);
}
template <typename T>
__global__ void g_kernel(symcoll_device_t h, T *out, const T *src, int count, int pe) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = symcoll_dev_g(h, src + i, pe);
}

template <typename T> void DeviceRma::check_p_and_g() {
    constexpr int kCount = 1003;
    constexpr size_t kBytes = kCount * sizeof(T);
    uint64_t seed = next_case();
    SymBuffer sym(kBytes);
    DeviceBuffer values(kBytes), out(kBytes);
    cudaStream_t s = stream;
    std::vector<uint8_t> mine = random_bytes(kBytes, seed, me);

    // p: every element into the right neighbour's copy.
    CUDA_OK(cudaMemcpy(values.ptr, mine.data(), kBytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(sym.ptr, kPoison, kBytes));
    barrier_sync(s);
    p_kernel<T><<<(kCount + 127) / 128, 128, 0, s>>>(h, sym.as<T>(), values.as<T>(), kCount, right);
    CUDA_OK(cudaGetLastError());
    barrier_sync(s);
    std::vector<uint8_t> got(kBytes);
    CUDA_OK(cudaMemcpy(got.data(), sym.ptr, kBytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(first_mismatch(got.data(), random_bytes(kBytes, seed, left).data(), kBytes), -1)
        << "p of " << sizeof(T) << "-byte elements";

    // g: every element of the right neighbour's copy (which now holds this PE's data).
    CUDA_OK(cudaMemset(out.ptr, kPoison, kBytes));
    g_kernel<T><<<(kCount + 127) / 128, 128, 0, s>>>(h, out.as<T>(), sym.as<T>(), kCount, right);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(got.data(), out.ptr, kBytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(first_mismatch(got.data(), mine.data(), kBytes), -1)
        << "g of " << sizeof(T) << "-byte elements";
    barrier_sync(s);
}

TEST_F(DeviceRma, PAndGEveryElementSize) {
    SEED_TRACE();
    check_p_and_g<uint8_t>();
    check_p_and_g<int16_t>();
    check_p_and_g<int32_t>();
    check_p_and_g<float>();
    check_p_and_g<double>();
    check_p_and_g<uint64_t>();
}

__device__ uint32_t message_word(uint64_t seed, int pe, int round, size_t i) {
    uint64_t x = seed ^ ((uint64_t)pe << 56) ^ ((uint64_t)round << 32) ^ i;
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull;
    return (uint32_t)(x ^ (x >> 29));
}

// Block 0 sends rounds of words to the right neighbour: put_block, then fence or quiet by
// one thread, then a flag with p. Block 1 receives from the left: waits for the flag,
// checks every word at once, acknowledges with p. Without the ordering, the receiver would
// read stale words.
__global__ void message_kernel(symcoll_device_t h, uint32_t *inbox, uint32_t *staging,
                               uint64_t *ready, uint64_t *ack, size_t words, int rounds,
                               bool use_quiet, uint64_t seed, unsigned long long *errors,
                               int *timeouts) {
    int right = (h.my_pe + 1) % h.n_pes, left = (h.my_pe + h.n_pes - 1) % h.n_pes;
    __shared__ int ok;
    for (int r = 1; r <= rounds; r++) {
        if (threadIdx.x == 0)
            ok = symcoll_dev_signal_wait_until(h, blockIdx.x == 0 ? ack : ready, SYMCOLL_CMP_GE,
                                               blockIdx.x == 0 ? r - 1 : r);
        __syncthreads();
        if (!ok) {
            if (threadIdx.x == 0)
                atomicAdd(timeouts, 1);
            return;
        }
        if (blockIdx.x == 0) {
            for (size_t i = threadIdx.x; i < words; i += blockDim.x)
                staging[i] = message_word(seed, h.my_pe, r, i);
            __syncthreads();
            symcoll_dev_put_block(h, inbox, staging, words * sizeof(uint32_t), right);
            if (threadIdx.x == 0) {
                if (use_quiet)
                    symcoll_dev_quiet(h);
                else
                    symcoll_dev_fence(h);
                symcoll_dev_p(h, ready, (uint64_t)r, right);
            }
        } else {
            unsigned long long bad = 0;
            for (size_t i = threadIdx.x; i < words; i += blockDim.x)
                bad += inbox[i] != message_word(seed, left, r, i);
            if (bad)
                atomicAdd(errors, bad);
            __syncthreads();
            if (threadIdx.x == 0) {
                symcoll_dev_fence(h);
                symcoll_dev_p(h, ack, (uint64_t)r, left);
            }
        }
        __syncthreads();
    }
}

TEST_F(DeviceRma, FenceAndQuietOrderPutsBeforeAFlag) {
    SEED_TRACE();
    constexpr size_t kWords = 4099;
    constexpr int kRounds = 300;
    SymBuffer inbox(kWords * sizeof(uint32_t));
    SymBuffer flags(2 * sizeof(uint64_t));
    DeviceBuffer staging(kWords * sizeof(uint32_t));
    KernelErrors errors;
    for (bool use_quiet : {false, true}) {
        SCOPED_TRACE(use_quiet ? "quiet" : "fence");
        CUDA_OK(cudaMemset(flags.ptr, 0, flags.bytes));
        errors.reset();
        barrier_sync(stream);
        uint64_t *ready = flags.as<uint64_t>(), *ack = ready + 1;
        message_kernel<<<2, 256, 0, stream>>>(h, inbox.as<uint32_t>(), staging.as<uint32_t>(),
                                              ready, ack, kWords, kRounds, use_quiet, next_case(),
                                              errors.wrong_words(), errors.timeouts());
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(stream));
        errors.expect_none("words read before they arrived");
        barrier_sync(stream);
    }
}

// The relaxed barrier promises only the arrival of every PE. The test sees that arrival
// through the round's words, fenced by their writers before the barrier and by their readers
// after it: this leans on the hardware (a thread's system fence completes its own stores
// before its later ones), not on the PTX model, which orders nothing across the relaxed flag.
template <bool Relaxed> __device__ bool barrier_of(const symcoll_device_t &h) {
    if (!Relaxed)
        return symcoll_dev_barrier(h);
    symcoll_dev_fence(h);
    bool ok = symcoll_dev_barrier_relaxed(h);
    symcoll_dev_fence(h);
    return ok;
}

// Every round: each thread writes a round-stamped word into the right neighbour's copy,
// block barrier, reads the word the left neighbour wrote, block barrier.
template <bool Relaxed>
__global__ void block_barrier_kernel(symcoll_device_t h, uint64_t *words, int rounds, uint64_t base,
                                     unsigned long long *errors, int *timeouts) {
    int right = (h.my_pe + 1) % h.n_pes, left = (h.my_pe + h.n_pes - 1) % h.n_pes;
    unsigned t = threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        uint64_t stamp = base + (uint64_t)r * 1000003u;
        symcoll_dev_p(h, words + t, stamp ^ ((uint64_t)h.my_pe << 48) ^ t, right);
        if (!barrier_of<Relaxed>(h))
            break;
        if (words[t] != (stamp ^ ((uint64_t)left << 48) ^ t))
            atomicAdd(errors, 1ull);
        if (!barrier_of<Relaxed>(h))
            break;
    }
    if (t == 0 && symcoll_dev_team_broken(h))
        atomicAdd(timeouts, 1);
}

// Both barriers order the rounds; launches of the two in turn (and the library's barrier
// between them) share the slot's count, so they stay in step across launches.
TEST_F(DeviceRma, BlockBarrierOrdersRoundsAcrossLaunches) {
    SEED_TRACE();
    constexpr int kWordThreads = 128, kRounds = 1000, kLaunches = 2;
    SymBuffer words(kWordThreads * sizeof(uint64_t));
    KernelErrors errors;
    errors.reset();
    barrier_sync(stream);
    for (int l = 0; l < kLaunches; l++) {
        for (bool relaxed : {false, true}) {
            if (relaxed)
                block_barrier_kernel<true>
                    <<<1, kWordThreads, 0, stream>>>(h, words.as<uint64_t>(), kRounds, next_case(),
                                                     errors.wrong_words(), errors.timeouts());
            else
                block_barrier_kernel<false>
                    <<<1, kWordThreads, 0, stream>>>(h, words.as<uint64_t>(), kRounds, next_case(),
                                                     errors.wrong_words(), errors.timeouts());
            CUDA_OK(cudaGetLastError());
            // The library's barrier in between shares the team but not the slot.
            SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
        }
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    errors.expect_none("words read before the barrier delivered them");
    barrier_sync(stream);
}

__global__ void ptr_kernel(symcoll_device_t h, void *sym, int first_pe, int count, void **out) {
    int i = threadIdx.x;
    if (i < count)
        out[i] = symcoll_dev_ptr(h, sym, first_pe + i);
}

TEST_F(DeviceRma, DevicePtrMatchesHostPtr) {
    SymBuffer sym(4096);
    int count = n + 2; // PEs -1 .. n: both ends are out of range
    DeviceBuffer out(count * sizeof(void *));
    void *at = sym.as<char>() + 1000;
    ptr_kernel<<<1, 64, 0, stream>>>(h, at, -1, count, out.as<void *>());
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<void *> got(count);
    CUDA_OK(cudaMemcpy(got.data(), out.ptr, count * sizeof(void *), cudaMemcpyDeviceToHost));
    for (int i = 0; i < count; i++) {
        int pe = i - 1;
        void *want = pe >= 0 && pe < n ? symcoll_ptr(at, pe) : nullptr;
        EXPECT_EQ(got[i], want) << "pe " << pe;
    }
    EXPECT_EQ(got[me + 1], at);
}

TEST(DeviceHandle, DescribesTheTeam) {
    for (symcoll_team_t team : {SYMCOLL_TEAM_WORLD, SYMCOLL_TEAM_NODE}) {
        symcoll_device_t h = symcoll_device_handle(team);
        EXPECT_EQ(h.team, team);
        EXPECT_EQ(h.my_pe, symcoll_my_pe());
        EXPECT_EQ(h.n_pes, symcoll_n_pes());
        EXPECT_EQ(h.team_size, symcoll_team_n_pes(team));
        EXPECT_EQ(h.team_my_pe, symcoll_team_my_pe(team));
        EXPECT_NE(h.team_sync, nullptr);
        EXPECT_NE(h.record, nullptr);
        EXPECT_EQ(h.team_start + h.team_my_pe * h.team_stride, symcoll_my_pe());
    }
    symcoll_device_t bad = symcoll_device_handle(12345);
    EXPECT_EQ(bad.team_size, 0);
    EXPECT_NE(std::string(symcoll_last_error()), "");
}

} // namespace
