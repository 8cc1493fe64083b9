// Host RMA on a stream (put, get, put_signal set/add, signal_wait_until), PE me -> me + 1
// around a ring, at every size class, aligned and unaligned, against the data each PE can
// compute for any other PE.
#include <chrono>
#include <thread>
#include "rma_testing.h"

using namespace rma_testing;

namespace {

constexpr size_t kGuard = 64;  // poisoned bytes on both sides of every destination range
constexpr size_t kMaxOff = 16; // largest destination or source offset below
constexpr size_t kBufBytes = kLargest + 2 * kGuard + kMaxOff;

struct Offsets {
    size_t dst, src;
};
// Aligned; both off by the same amount; mismatched alignments.
const Offsets kOffsets[] = {{0, 0}, {5, 5}, {1, 6}, {8, 12}};

class HostRma : public ::testing::Test {
  protected:
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    Stream stream;
    uint64_t case_id = 0;

    // A new seed for each case, the same on every PE (every PE runs the same cases).
    uint64_t next_case() {
        return mix(run_seed(), ++case_id);
    }

    // Checks the destination window [dst_off - kGuard, dst_off + bytes + kGuard) of a
    // device buffer: the payload equals want, the guards are still poison.
    void expect_window(const void *dev, size_t dst_off, const std::vector<uint8_t> &want,
                       const char *what) {
        size_t bytes = want.size();
        std::vector<uint8_t> got(bytes + 2 * kGuard);
        CUDA_OK(cudaMemcpy(got.data(), (const char *)dev + dst_off, got.size(),
                           cudaMemcpyDeviceToHost));
        long bad = first_mismatch(got.data() + kGuard, want.data(), bytes);
        EXPECT_EQ(bad, -1) << what << ": " << bytes << " bytes at offset " << dst_off
                           << ": first wrong byte " << bad;
        long before = first_unpoisoned(got.data(), kGuard);
        long after = first_unpoisoned(got.data() + kGuard + bytes, kGuard);
        EXPECT_EQ(before, -1) << what << ": wrote before the range (" << bytes << " bytes)";
        EXPECT_EQ(after, -1) << what << ": wrote past the range (" << bytes << " bytes)";
    }

    // Uploads this PE's bytes of the case to src and poisons the whole dst buffer.
    void upload_and_poison(uint64_t seed, size_t bytes, char *src, void *dst) {
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemsetAsync(dst, kPoison, kBufBytes, stream));
    }

    // put writes into the right neighbour's symmetric dst, get reads the left neighbour's
    // symmetric src: either way dst ends up with the left neighbour's bytes.
    enum Direction { PUT, GET };
    void check_put_or_get(Direction direction) {
        SymBuffer sym(kBufBytes);
        DeviceBuffer local(kBufBytes);
        char *dst = direction == PUT ? sym.as<char>() : local.as<char>();
        char *src = direction == PUT ? local.as<char>() : sym.as<char>();
        for (size_t bytes : size_classes())
            for (Offsets off : kOffsets) {
                uint64_t seed = next_case();
                upload_and_poison(seed, bytes, src + off.src, dst);
                SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                if (direction == PUT)
                    SYM_OK(symcoll_put_on_stream(dst + kGuard + off.dst, src + off.src, bytes,
                                                 right, stream));
                else
                    SYM_OK(symcoll_get_on_stream(dst + kGuard + off.dst, src + off.src, bytes, left,
                                                 stream));
                // Nobody refills src (get) or reads dst (put) before every PE is done.
                SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                CUDA_OK(cudaStreamSynchronize(stream));
                expect_window(dst, off.dst, random_bytes(bytes, seed, left),
                              direction == PUT ? "put" : "get");
            }
    }
};

TEST_F(HostRma, PutEverySizeAndAlignment) {
    SEED_TRACE();
    check_put_or_get(PUT);
}

TEST_F(HostRma, GetEverySizeAndAlignment) {
    SEED_TRACE();
    check_put_or_get(GET);
}

// The receiver waits only for the signal, then reads: the data must already be there.
TEST_F(HostRma, PutSignalSetAndAddPublishData) {
    SEED_TRACE();
    SymBuffer dst(kBufBytes);
    SymBuffer sigs(2 * sizeof(uint64_t));
    DeviceBuffer src(kBufBytes);
    uint64_t *set_sig = sigs.as<uint64_t>(), *add_sig = set_sig + 1;
    CUDA_OK(cudaMemset(sigs.ptr, 0, sigs.bytes));
    uint64_t set_value = 0, add_total = 0;
    for (symcoll_signal_op_t op : {SYMCOLL_SIGNAL_SET, SYMCOLL_SIGNAL_ADD})
        for (size_t bytes : size_classes())
            for (Offsets off : kOffsets) {
                SCOPED_TRACE(op == SYMCOLL_SIGNAL_SET ? "set" : "add");
                uint64_t seed = next_case();
                uint64_t *sig = op == SYMCOLL_SIGNAL_SET ? set_sig : add_sig;
                // SET: a new value each case; ADD: a random increment, summed on every PE.
                uint64_t value = op == SYMCOLL_SIGNAL_SET ? ++set_value : mix(seed) % 1000 + 1;
                uint64_t expect = op == SYMCOLL_SIGNAL_SET ? value : (add_total += value);
                upload_and_poison(seed, bytes, src.as<char>() + off.src, dst.ptr);
                SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                SYM_OK(symcoll_put_signal_on_stream(dst.as<char>() + kGuard + off.dst,
                                                    src.as<char>() + off.src, bytes, sig, value, op,
                                                    right, stream));
                SYM_OK(symcoll_signal_wait_until_on_stream(sig, SYMCOLL_CMP_EQ, expect, stream));
                CUDA_OK(cudaStreamSynchronize(stream));
                expect_window(dst.ptr, off.dst, random_bytes(bytes, seed, left), "put_signal");
                uint64_t got = 0;
                CUDA_OK(cudaMemcpy(&got, sig, sizeof got, cudaMemcpyDeviceToHost));
                EXPECT_EQ(got, expect);
            }
}

// A signal-only update (0 bytes) needs no data pointers.
TEST_F(HostRma, PutSignalWithoutData) {
    SEED_TRACE();
    SymBuffer sig(sizeof(uint64_t));
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));
    barrier_sync(stream);
    for (uint64_t k = 1; k <= 3; k++) {
        SYM_OK(symcoll_put_signal_on_stream(nullptr, nullptr, 0, sig.as<uint64_t>(), 2,
                                            SYMCOLL_SIGNAL_ADD, right, stream));
        SYM_OK(
            symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), SYMCOLL_CMP_GE, 2 * k, stream));
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    uint64_t got = 0;
    CUDA_OK(cudaMemcpy(&got, sig.ptr, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, 6u);
    barrier_sync(stream);
}

struct WaitCase {
    symcoll_cmp_t cmp;
    uint64_t initial, operand, written; // initial fails (initial cmp operand); written holds
    const char *name;
};
const WaitCase kWaitCases[] = {
    {SYMCOLL_CMP_EQ, 0, 5, 5, "EQ"},  {SYMCOLL_CMP_NE, 3, 3, 9, "NE"},
    {SYMCOLL_CMP_GT, 5, 5, 6, "GT"},  {SYMCOLL_CMP_GE, 4, 5, 5, "GE"},
    {SYMCOLL_CMP_LT, 10, 5, 4, "LT"}, {SYMCOLL_CMP_LE, 10, 5, 5, "LE"},
};

// For each comparison: the wait is enqueued while the condition fails; it must still be
// pending after a while, and must let the stream go on once the left neighbour's
// put_signal makes the condition hold, with that put's data in place.
TEST_F(HostRma, SignalWaitUntilEveryComparison) {
    SEED_TRACE();
    constexpr size_t kBytes = 1000;
    SymBuffer dst(kBytes);
    SymBuffer sig(sizeof(uint64_t));
    DeviceBuffer src(kBytes);
    DeviceBuffer landed(kBytes); // what the waiting stream saw right after the wait
    Stream sender;
    std::vector<uint8_t> got(kBytes);
    for (const WaitCase &c : kWaitCases) {
        SCOPED_TRACE(c.name);
        uint64_t seed = next_case();
        std::vector<uint8_t> mine = random_bytes(kBytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), kBytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, kBytes));
        CUDA_OK(cudaMemcpy(sig.ptr, &c.initial, sizeof c.initial, cudaMemcpyHostToDevice));
        barrier_sync(stream);

        SYM_OK(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), c.cmp, c.operand, stream));
        CUDA_OK(cudaMemcpyAsync(landed.ptr, dst.ptr, kBytes, cudaMemcpyDeviceToDevice, stream));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady)
            << "the wait passed although the signal did not satisfy it";
        barrier_sync(sender); // nobody sends before every PE has looked
        SYM_OK(symcoll_put_signal_on_stream(dst.ptr, src.ptr, kBytes, sig.as<uint64_t>(), c.written,
                                            SYMCOLL_SIGNAL_SET, right, sender));
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaStreamSynchronize(sender));
        CUDA_OK(cudaMemcpy(got.data(), landed.ptr, kBytes, cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_mismatch(got.data(), random_bytes(kBytes, seed, left).data(), kBytes), -1);
        // Already satisfied: passes at once.
        SYM_OK(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), c.cmp, c.operand, stream));
        barrier_sync(stream);
    }
}

TEST_F(HostRma, ZeroBytesEnqueueNothing) {
    SYM_OK(symcoll_put_on_stream(nullptr, nullptr, 0, right, stream));
    SYM_OK(symcoll_get_on_stream(nullptr, nullptr, 0, left, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
}

} // namespace
