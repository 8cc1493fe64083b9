// The proxy (src/transport/proxy) over the UCX transport, on the CPU under mpirun with the PMIx
// bootstrap: heaps of host memory, copies by memcpy, so that the staging protocol (the staging
// ring, mailbox records, announcements, freed records, signals after data, gets answered by
// replies) is checked without a GPU, and so is the draining of the device API's ring. UCX registers
// host heaps, so SYMCOLL_PROXY_DIRECT=1 takes the proxy's direct path (puts and gets between the
// heaps, signals as records of no data); otherwise it stages, as the library's variable says.
// SYMCOLL_PROXY_EAGER_BYTES sends records of chunks up to that size as messages, the others through
// the window (none unless set), so a run of mixed sizes mixes the two. Each PE puts to its right
// neighbour. Small slots and a short request ring make every put wrap the
// staging ring and every burst wait for room. Exit 77 without PMIx or UCX.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "internal.h"
#include "nodes_device_ring.h"
#include "proxy_host_heap.h"
#include "ucx_test_job.h"
#include "transport/proxy/proxy.h"
#include "transport/ucx/ucx_transport.h"

namespace {

symcoll_bootstrap_t *boot;
symcoll_ucx_t *ucx;

constexpr uint64_t kTimeoutMs = 60000;
constexpr size_t kSlotBytes = 4096 + 64; // a put of 1 MiB takes 250 slots, 3 in flight
constexpr unsigned kSlots = 3;
constexpr unsigned kRingEntries = 8;
constexpr size_t kHalf = 4u << 20;            // each heap: incoming half, then outgoing half
constexpr size_t kHeapBytes = 2 * kHalf + 64; // and signal words at the end
constexpr size_t kSignal = 2 * kHalf;         // this PE's signal words (8 of them)
constexpr uint8_t kPoison = 0xee;

// The path this run asks for (SYMCOLL_PROXY_DIRECT, staged unless set to 1).
bool staged_run() {
    const char *direct = std::getenv("SYMCOLL_PROXY_DIRECT");
    return !direct || std::string(direct) != "1";
}

// The largest chunk this run sends eagerly (SYMCOLL_PROXY_EAGER_BYTES, none unless set).
size_t eager_bytes() {
    const char *eager = std::getenv("SYMCOLL_PROXY_EAGER_BYTES");
    return eager ? std::strtoull(eager, nullptr, 0) : 0;
}

symcoll_proxy_config_t config_of(size_t slot_bytes, unsigned slots, unsigned ring_entries) {
    return {slot_bytes, slots, ring_entries, staged_run(), eager_bytes()};
}

// Odd sizes at odd offsets, one after the other: within a slot, across slot boundaries, and
// many times the slots in flight.
const size_t kSizes[] = {1, 7, kSlotBytes - 1, kSlotBytes + 1, 3 * kSlotBytes + 5, (1u << 20) + 3};
size_t offset_of(int index) {
    size_t offset = 3;
    for (int i = 0; i < index; i++)
        offset += kSizes[i] + 5;
    return offset;
}
constexpr int kNumSizes = sizeof kSizes / sizeof kSizes[0];

class Proxy : public ::testing::Test {
  protected:
    std::vector<uint64_t> storage = std::vector<uint64_t>(kHeapBytes / 8);
    char *heap = reinterpret_cast<char *>(storage.data());
    HostHeap memory;
    symcoll_proxy_t *proxy = nullptr;
    int rank = boot->rank, size = boot->size;
    int right = (boot->rank + 1) % boot->size;
    int left = (boot->rank + boot->size - 1) % boot->size;

    void SetUp() override {
        ASSERT_GE(size, 2) << "run under mpirun -np 2 or more";
        std::memset(heap, kPoison, 2 * kHalf);
        create(ucx, kTimeoutMs);
    }
    void create(symcoll_ucx_t *t, uint64_t timeout_ms) {
        symcoll_proxy_memory_t ops = memory.ops();
        symcoll_proxy_config_t config = config_of(kSlotBytes, kSlots, kRingEntries);
        ASSERT_EQ(
            symcoll_proxy_create(boot, t, heap, kHeapBytes, &ops, &config, timeout_ms, &proxy),
            SYMCOLL_SUCCESS)
            << symcoll_last_error();
    }
    void TearDown() override {
        if (proxy)
            EXPECT_EQ(symcoll_proxy_destroy(proxy, 0), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    uint64_t *signal_word(int i) {
        return reinterpret_cast<uint64_t *>(heap + kSignal) + i;
    }
    // Waits until this PE's signal word i reaches value; false after the test's timeout.
    bool wait_signal(int i, uint64_t value) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
        while (__atomic_load_n(signal_word(i), __ATOMIC_ACQUIRE) < value) {
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::yield(); // PEs' threads outnumber the cores
        }
        return true;
    }
    // Each size's data of this PE, at its offset of the outgoing half.
    void stage_sizes() {
        for (int i = 0; i < kNumSizes; i++) {
            std::vector<uint8_t> mine = data_of(rank, i, kSizes[i]);
            std::memcpy(heap + kHalf + offset_of(i), mine.data(), kSizes[i]);
        }
    }
    // Each size's data of PE writer at its offset of the incoming half, and nothing after it.
    void expect_sizes_from(int writer) {
        for (int i = 0; i < kNumSizes; i++) {
            std::vector<uint8_t> want = data_of(writer, i, kSizes[i]);
            EXPECT_EQ(std::memcmp(heap + offset_of(i), want.data(), want.size()), 0)
                << kSizes[i] << " bytes at offset " << offset_of(i) << " from PE " << writer;
            for (size_t gap = 0; gap < 5; gap++)
                EXPECT_EQ((uint8_t)heap[offset_of(i) + kSizes[i] + gap], kPoison);
        }
    }
    symcoll_status_t put(size_t dst, const void *src, size_t bytes, bool signal = false,
                         int word = 0, uint64_t value = 0,
                         symcoll_ucx_signal_op_t op = SYMCOLL_UCX_SIGNAL_ADD) {
        symcoll_proxy_put_t p = {right, dst, src, bytes, signal, kSignal + 8 * (size_t)word,
                                 value, op};
        return symcoll_proxy_put(proxy, &p, nullptr);
    }
};

TEST_F(Proxy, TakesThePathAskedFor) {
    EXPECT_EQ(symcoll_proxy_direct(proxy), !staged_run());
}

TEST_F(Proxy, PutsOfEverySizeLandBeforeTheSignalAndNothingElseChanges) {
    stage_sizes();
    for (int i = 0; i < kNumSizes; i++)
        ASSERT_EQ(put(offset_of(i), heap + kHalf + offset_of(i), kSizes[i]), SYMCOLL_SUCCESS)
            << symcoll_last_error();
    ASSERT_EQ(put(0, nullptr, 0, true, 0, 1), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_TRUE(wait_signal(0, 1)) << "no signal from PE " << left;
    // Everything from the left arrived before its signal, and only where it was put.
    expect_sizes_from(left);
    for (size_t b = 0; b < 3; b++)
        EXPECT_EQ((uint8_t)heap[b], kPoison);
    EXPECT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
}

TEST_F(Proxy, EachSignalFollowsItsOwnDataRoundAfterRound) {
    const size_t bytes = 3 * kSlotBytes + 11;
    memory.copy_delay_us = 2000;
    for (int round = 1; round <= 20; round++) {
        std::vector<uint8_t> mine = data_of(rank, round, bytes);
        // Two source buffers in turn: the one posted last round stays untouched until quiet.
        char *src = heap + kHalf + (round % 2) * bytes;
        ASSERT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
        std::memcpy(src, mine.data(), bytes);
        ASSERT_EQ(put((round % 2) * bytes, src, bytes, true, 1, 1), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        ASSERT_TRUE(wait_signal(1, round)) << "round " << round;
        std::vector<uint8_t> want = data_of(left, round, bytes);
        ASSERT_EQ(std::memcmp(heap + (round % 2) * bytes, want.data(), bytes), 0)
            << "round " << round << ": the signal came before the data";
        // The left PE writes this buffer again in two rounds: only after this one has read it.
        ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
}

TEST_F(Proxy, BurstsLongerThanTheRingWaitForRoomAndQuietCompletesThem) {
    const int n = 25 * kRingEntries;
    auto *words = reinterpret_cast<uint64_t *>(heap + kHalf);
    for (int i = 0; i < n; i++) {
        words[i] = (uint64_t)rank << 32 | (uint64_t)i;
        ASSERT_EQ(put(8 * (size_t)i, &words[i], 8), SYMCOLL_SUCCESS)
            << "put " << i << ": " << symcoll_last_error();
    }
    ASSERT_EQ(put(0, nullptr, 0, true, 2, 12345, SYMCOLL_UCX_SIGNAL_SET), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    ASSERT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
    // Quiet means applied at the target: after a barrier, no wait is needed.
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(__atomic_load_n(signal_word(2), __ATOMIC_ACQUIRE), 12345u);
    auto *got = reinterpret_cast<const uint64_t *>(heap);
    for (int i = 0; i < n; i++)
        ASSERT_EQ(got[i], (uint64_t)left << 32 | (uint64_t)i) << "word " << i;
    EXPECT_EQ((uint8_t)heap[8 * n], kPoison);
}

TEST_F(Proxy, GetsOfEverySizeBringTheRightBytesAndNothingElse) {
    stage_sizes();
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    for (int i = 0; i < kNumSizes; i++) {
        symcoll_proxy_get_t g = {right, kHalf + offset_of(i), heap + offset_of(i), kSizes[i]};
        ASSERT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    ASSERT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
    expect_sizes_from(right);
    // The right PE's heap is read, not written: its source is as it was.
    std::vector<uint8_t> mine = data_of(rank, kNumSizes - 1, kSizes[kNumSizes - 1]);
    EXPECT_EQ(std::memcmp(heap + kHalf + offset_of(kNumSizes - 1), mine.data(), mine.size()), 0);
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// Gets and puts in one stream, more than the ring holds: word i of the left PE's outgoing half
// comes here by a get while this PE's word i goes right by a put.
TEST_F(Proxy, GetsAndPutsInterleavedPastTheRing) {
    const int n = 10 * kRingEntries;
    auto *outgoing = reinterpret_cast<uint64_t *>(heap + kHalf);
    for (int i = 0; i < n; i++)
        outgoing[i] = (uint64_t)rank << 32 | (uint64_t)i;
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    auto *got = reinterpret_cast<uint64_t *>(heap + kHalf / 2);
    for (int i = 0; i < n; i++) {
        symcoll_proxy_get_t g = {left, kHalf + 8 * (size_t)i, &got[i], 8};
        ASSERT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_SUCCESS) << symcoll_last_error();
        ASSERT_EQ(put(8 * (size_t)i, &outgoing[i], 8), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    ASSERT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    auto *put_here = reinterpret_cast<const uint64_t *>(heap);
    for (int i = 0; i < n; i++) {
        ASSERT_EQ(got[i], (uint64_t)left << 32 | (uint64_t)i) << "get " << i;
        ASSERT_EQ(put_here[i], (uint64_t)left << 32 | (uint64_t)i) << "put " << i;
    }
}

// Four threads post at once, each its own words, with quiets between: every word lands once.
TEST_F(Proxy, ThreadsPostAtOnce) {
    const int threads = 4, per_thread = 300;
    auto *words = reinterpret_cast<uint64_t *>(heap + kHalf);
    for (int i = 0; i < threads * per_thread; i++)
        words[i] = (uint64_t)rank << 32 | (uint64_t)i;
    std::vector<std::thread> posters;
    std::atomic<int> failures{0};
    for (int t = 0; t < threads; t++)
        posters.emplace_back([&, t] {
            for (int k = 0; k < per_thread; k++) {
                int i = t * per_thread + k;
                symcoll_proxy_put_t p = {right, 8 * (size_t)i,         &words[i], 8, false, 0,
                                         0,     SYMCOLL_UCX_SIGNAL_ADD};
                if (symcoll_proxy_put(proxy, &p, nullptr) != SYMCOLL_SUCCESS ||
                    (k % 50 == 49 && symcoll_proxy_quiet(proxy) != SYMCOLL_SUCCESS))
                    failures++;
            }
        });
    for (auto &poster : posters)
        poster.join();
    EXPECT_EQ(failures.load(), 0) << symcoll_last_error();
    ASSERT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
    auto *got = reinterpret_cast<const uint64_t *>(heap);
    for (int i = 0; i < threads * per_thread; i++)
        ASSERT_EQ(got[i], (uint64_t)left << 32 | (uint64_t)i) << "word " << i;
}

// The device API's ring (src/nodes_device_ring.c) over host memory, the test's thread standing
// in for the GPU's: 1100 one-word puts (64 slots in flight) wrap the ring's 1024 entries and the
// proxy's 256, the last with a signal, three in four from their pre-staging slots (slot i % 32,
// reused by entry i + 32 once entry i is complete); then a pre-staged put of 40000 bytes, which
// the proxy carries in slots of 4160 bytes, with a signal; then a get of the right neighbour's
// words. The proxy thread takes the entries in
// order without waiting for room in its own ring.
TEST_F(Proxy, TheDeviceRingIsDrainedInOrderPastItsEntries) {
    ASSERT_EQ(symcoll_proxy_destroy(proxy, 0), SYMCOLL_SUCCESS) << symcoll_last_error();
    proxy = nullptr;
    std::vector<symcoll_proxy_ring_entry_t> entries(SYMCOLL_PROXY_RING_ENTRIES);
    std::vector<uint64_t> progress(SYMCOLL_PROXY_RING_WORDS);
    const size_t slot_bytes = SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES;
    std::vector<char> prestage((size_t)SYMCOLL_PROXY_PRESTAGE_SLOTS * slot_bytes);
    ASSERT_EQ(symcoll_nodes_device_ring_serve(entries.data(), progress.data(), prestage.data()),
              SYMCOLL_SUCCESS);
    // A failed ASSERT returns early: the proxy must stop polling the ring before the vectors go.
    struct StopFirst {
        symcoll_proxy_t *&proxy;
        ~StopFirst() {
            if (proxy)
                symcoll_proxy_destroy(proxy, 1);
            proxy = nullptr;
            symcoll_nodes_device_ring_destroy();
        }
    } stop_first{proxy};
    symcoll_proxy_memory_t ops = memory.ops();
    ops.poll = symcoll_nodes_device_ring_poll;
    symcoll_proxy_config_t config = config_of(kSlotBytes, 64, 256);
    ASSERT_EQ(symcoll_proxy_create(boot, ucx, heap, kHeapBytes, &ops, &config, kTimeoutMs, &proxy),
              SYMCOLL_SUCCESS)
        << symcoll_last_error();
    auto reaches = [&](int word, uint64_t value) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
        while (__atomic_load_n(&progress[word], __ATOMIC_ACQUIRE) < value) {
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::yield();
        }
        return true;
    };
    auto post = [&](uint64_t i, symcoll_proxy_ring_entry_t request) {
        uint64_t reusable =
            i + 1 > SYMCOLL_PROXY_RING_ENTRIES ? i + 1 - SYMCOLL_PROXY_RING_ENTRIES : 0;
        if (!reaches(SYMCOLL_PROXY_RING_CONSUMED, reusable))
            return false;
        symcoll_proxy_ring_entry_t *e = &entries[i % SYMCOLL_PROXY_RING_ENTRIES];
        request.ready = 0;
        *e = request;
        __atomic_store_n(&e->ready, i + 1, __ATOMIC_RELEASE);
        return true;
    };
    const uint64_t n = 1100;
    uint64_t *words = reinterpret_cast<uint64_t *>(heap + kHalf);
    for (uint64_t i = 0; i < n; i++)
        words[i] = (uint64_t)rank * 1000000 + i;
    for (uint64_t i = 0; i < n; i++) {
        symcoll_proxy_ring_entry_t put = {};
        put.remote_offset = i * 8;
        put.local = (uint64_t)(uintptr_t)(words + i);
        put.bytes = 8;
        put.pe = right;
        put.kind = SYMCOLL_PROXY_RING_PUT;
        if (i % 4 != 0) {
            uint64_t slot = i % SYMCOLL_PROXY_PRESTAGE_SLOTS;
            uint64_t reused =
                i >= SYMCOLL_PROXY_PRESTAGE_SLOTS ? i + 1 - SYMCOLL_PROXY_PRESTAGE_SLOTS : 0;
            ASSERT_TRUE(reaches(SYMCOLL_PROXY_RING_COMPLETE, reused))
                << "slot " << slot << " never freed";
            std::memcpy(&prestage[slot * slot_bytes], &words[i], 8);
            put.local = slot * slot_bytes;
            put.kind = SYMCOLL_PROXY_RING_PUT_PRESTAGED;
        }
        put.has_signal = i == n - 1;
        put.signal_offset = kSignal;
        put.value = 1;
        put.op = SYMCOLL_SIGNAL_ADD;
        ASSERT_TRUE(post(i, put)) << "entry " << i << " never freed";
    }
    ASSERT_TRUE(reaches(SYMCOLL_PROXY_RING_COMPLETE, n)) << symcoll_last_error();
    EXPECT_GE(__atomic_load_n(&progress[SYMCOLL_PROXY_RING_STAGED], __ATOMIC_ACQUIRE), n);
    ASSERT_TRUE(wait_signal(0, 1)) << "no signal from PE " << left;
    const uint64_t *received = reinterpret_cast<const uint64_t *>(heap);
    for (uint64_t i = 0; i < n; i++)
        if (received[i] != (uint64_t)left * 1000000 + i) {
            ADD_FAILURE() << "word " << i << " from PE " << left << ": " << received[i];
            break;
        }
    const size_t large = 40000, large_at = 2u << 20;
    symcoll_proxy_ring_entry_t put = {};
    put.remote_offset = large_at;
    put.local = n % SYMCOLL_PROXY_PRESTAGE_SLOTS * slot_bytes;
    put.bytes = large;
    put.pe = right;
    put.kind = SYMCOLL_PROXY_RING_PUT_PRESTAGED;
    put.has_signal = 1;
    put.signal_offset = kSignal + 8;
    put.value = 1;
    put.op = SYMCOLL_SIGNAL_ADD;
    ASSERT_TRUE(reaches(SYMCOLL_PROXY_RING_COMPLETE, n + 1 - SYMCOLL_PROXY_PRESTAGE_SLOTS));
    for (size_t k = 0; k < large; k++)
        prestage[put.local + k] = (char)(k * 131 + rank);
    ASSERT_TRUE(post(n, put));
    ASSERT_TRUE(wait_signal(1, 1)) << "no signal after the large put from PE " << left;
    for (size_t k = 0; k < large; k++)
        if ((uint8_t)heap[large_at + k] != (uint8_t)(k * 131 + left)) {
            ADD_FAILURE() << "byte " << k << " of the large put from PE " << left;
            break;
        }
    symcoll_proxy_ring_entry_t get = {};
    get.remote_offset = kHalf;
    get.local = (uint64_t)(uintptr_t)(heap + (1u << 20));
    get.bytes = n * 8;
    get.pe = right;
    get.kind = SYMCOLL_PROXY_RING_GET;
    ASSERT_TRUE(post(n + 1, get));
    ASSERT_TRUE(reaches(SYMCOLL_PROXY_RING_COMPLETE, n + 2)) << symcoll_last_error();
    const uint64_t *fetched = reinterpret_cast<const uint64_t *>(heap + (1u << 20));
    for (uint64_t i = 0; i < n; i++)
        if (fetched[i] != (uint64_t)right * 1000000 + i) {
            ADD_FAILURE() << "word " << i << " of the get from PE " << right << ": " << fetched[i];
            break;
        }
    EXPECT_EQ(symcoll_proxy_destroy(proxy, 0), SYMCOLL_SUCCESS) << symcoll_last_error();
    proxy = nullptr;
    symcoll_nodes_device_ring_destroy();
}

TEST_F(Proxy, RefusesWhatItCannotCarryNamingIt) {
    auto refused = [&](symcoll_proxy_put_t p, const char *says) {
        EXPECT_EQ(symcoll_proxy_put(proxy, &p, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT) << says;
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find(says), std::string::npos) << why;
    };
    const auto set = SYMCOLL_UCX_SIGNAL_SET;
    refused({rank, 0, heap + kHalf, 8, false, 0, 0, set}, "is not a PE of another node");
    refused({size, 0, heap + kHalf, 8, false, 0, 0, set}, "is not a PE of another node");
    refused({-1, 0, heap + kHalf, 8, false, 0, 0, set}, "pe -1");
    refused({right, kHeapBytes - 4, heap + kHalf, 8, false, 0, 0, set}, "overrun the");
    const uint8_t outside = 1;
    refused({right, 0, &outside, 1, false, 0, 0, set}, "not inside this PE's heap");
    refused({right, 0, heap + kHeapBytes - 4, 8, false, 0, 0, set}, "not inside this PE's heap");
    refused({right, 0, nullptr, 0, true, kSignal + 4, 1, set}, "signal_offset");
    refused({right, 0, nullptr, 0, true, kHeapBytes - 4, 1, set}, "signal_offset");
    refused({right, 0, nullptr, 0, true, kSignal, 1, (symcoll_ucx_signal_op_t)7},
            "op 7 is neither SET nor ADD");
    EXPECT_EQ(symcoll_proxy_put(proxy, nullptr, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    symcoll_proxy_get_t g = {right, kHeapBytes - 4, heap, 8};
    EXPECT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("src_offset"), std::string::npos);
    g = {right, 0, const_cast<uint8_t *>(&outside), 1};
    EXPECT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("dst"), std::string::npos);
    EXPECT_EQ(symcoll_proxy_get(proxy, nullptr, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    // A get of nothing is checked, not sent: a NULL dst is fine, a bad PE is not.
    g = {right, 0, nullptr, 0};
    EXPECT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_SUCCESS) << symcoll_last_error();
    g = {rank, 0, nullptr, 0};
    EXPECT_EQ(symcoll_proxy_get(proxy, &g, nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_proxy_quiet(proxy), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// Heaps of different sizes would let one PE accept offsets that another refuses: create says so
// on every PE, and the transport stays usable.
TEST(ProxyCreate, HeapsOfDifferentSizesAreRefusedEverywhere) {
    std::vector<uint64_t> storage(kHeapBytes / 8 + 8);
    HostHeap memory;
    symcoll_proxy_memory_t ops = memory.ops();
    symcoll_proxy_t *proxy = nullptr;
    size_t bytes = kHeapBytes + (boot->rank == 0 ? 64 : 0);
    EXPECT_EQ(symcoll_proxy_create(boot, ucx, reinterpret_cast<char *>(storage.data()), bytes, &ops,
                                   nullptr, kTimeoutMs, &proxy),
              SYMCOLL_ERROR_SYMMETRY);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("-byte heap"), std::string::npos) << why;
    EXPECT_EQ(proxy, nullptr);
    EXPECT_EQ(symcoll_ucx_barrier(ucx), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// A staging chunk past the bounds, with the slots left to the default (which divides by it; with
// an even count of PEs, 2^63 times it wraps to 0): refused naming both, on every PE, and the
// transport stays usable.
TEST(ProxyCreate, AChunkTooLargeIsRefusedWithDefaultSlots) {
    std::vector<uint64_t> storage(kHeapBytes / 8);
    HostHeap memory;
    symcoll_proxy_memory_t ops = memory.ops();
    symcoll_proxy_t *proxy = nullptr;
    for (size_t slot_bytes : {(size_t)1 << 63, ((size_t)1 << 30) + 1}) {
        symcoll_proxy_config_t config = config_of(slot_bytes, 0, kRingEntries);
        EXPECT_EQ(symcoll_proxy_create(boot, ucx, reinterpret_cast<char *>(storage.data()),
                                       kHeapBytes, &ops, &config, kTimeoutMs, &proxy),
                  SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("slot_bytes " + std::to_string(slot_bytes)), std::string::npos) << why;
        EXPECT_EQ(proxy, nullptr);
        EXPECT_EQ(symcoll_ucx_barrier(ucx), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
}

// PE 1 stops applying records (its copy into the heap sleeps 3 s): PE 0's quiet gives up after
// the proxy's 500 ms, naming PE 1, even while PE 2 (with 3 PEs) keeps putting into PE 0: other
// traffic is no progress of the request that waits. Its own transport, as a TIMEOUT leaves one
// only to destroy. Staged: a direct put without a signal leaves the target nothing to apply.
TEST(ProxyTimeout, QuietNamesThePeThatStoppedApplying) {
    ASSERT_GE(boot->size, 2);
    symcoll_ucx_t *t = nullptr;
    ASSERT_EQ(symcoll_ucx_create(boot, nullptr, 500, &t), SYMCOLL_SUCCESS) << symcoll_last_error();
    std::vector<uint64_t> storage(kHeapBytes / 8);
    char *heap = reinterpret_cast<char *>(storage.data());
    HostHeap memory;
    memory.stall_ms = boot->rank == 1 ? 3000 : 0;
    symcoll_proxy_memory_t ops = memory.ops();
    symcoll_proxy_config_t config = {kSlotBytes, kSlots, kRingEntries, true};
    symcoll_proxy_t *proxy = nullptr;
    ASSERT_EQ(symcoll_proxy_create(boot, t, heap, kHeapBytes, &ops, &config, 500, &proxy),
              SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (boot->rank == 0) {
        auto start = std::chrono::steady_clock::now();
        symcoll_proxy_put_t p = {1, 0, heap + kHalf,          kSlotBytes, false,
                                 0, 0, SYMCOLL_UCX_SIGNAL_ADD};
        symcoll_status_t st = symcoll_proxy_put(proxy, &p, nullptr);
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_proxy_quiet(proxy);
        double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(st, SYMCOLL_ERROR_TIMEOUT) << symcoll_last_error();
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("PE 1 applied 0 of the 1 records"), std::string::npos) << why;
        EXPECT_GE(waited, 0.45);
        EXPECT_LT(waited, 2.5);
        // A failed proxy keeps failing.
        EXPECT_EQ(symcoll_proxy_put(proxy, &p, nullptr), SYMCOLL_ERROR_TIMEOUT);
    } else if (boot->rank == 2) {
        // Until PE 0's proxy fails, and then its own: failures are expected here.
        symcoll_proxy_put_t p = {0, kHalf, heap + kHalf, 64, false, 0, 0, SYMCOLL_UCX_SIGNAL_ADD};
        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        while (std::chrono::steady_clock::now() < end &&
               symcoll_proxy_put(proxy, &p, nullptr) == 0 && symcoll_proxy_quiet(proxy) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_until(end + std::chrono::seconds(1));
    } else {
        std::this_thread::sleep_for(std::chrono::seconds(4));
    }
    EXPECT_EQ(symcoll_proxy_destroy(proxy, 1), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_ucx_destroy(t, 1), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
}

} // namespace

int main(int argc, char **argv) {
    return run_ucx_tests(argc, argv, kTimeoutMs, &boot, &ucx);
}
