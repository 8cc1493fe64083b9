// The first-fit offset allocator behind the symmetric heap (src/allocator.h), checked against
// a brute-force model: the lowest aligned offset where a request fits.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "allocator.h"
#include "internal.h"

namespace {

constexpr size_t kAlign = 256;

// An allocator for the lifetime of a test.
struct Allocator {
    symcoll_allocator_t a;
    Allocator(size_t capacity, size_t alignment = kAlign) {
        symcoll_allocator_init(&a, capacity, alignment);
    }
    ~Allocator() {
        symcoll_allocator_destroy(&a);
    }
    Allocator(const Allocator &) = delete;
    Allocator &operator=(const Allocator &) = delete;
    // The offset, or -1 when the allocator refuses.
    long long alloc(size_t size) {
        size_t offset = 0;
        return symcoll_allocator_alloc(&a, size, &offset) == 0 ? (long long)offset : -1;
    }
    int free(size_t offset) {
        return symcoll_allocator_free(&a, offset);
    }
};

// The lowest aligned offset where [offset, offset + size) misses every live block. Only 0
// and the aligned ends of live blocks can be lowest, so only they are tried.
long long first_fit(const std::map<size_t, size_t> &live, size_t capacity, size_t size) {
    std::vector<size_t> candidates = {0};
    for (const auto &[start, bytes] : live)
        candidates.push_back((start + bytes + kAlign - 1) / kAlign * kAlign);
    long long best = -1;
    for (size_t offset : candidates) {
        bool clear = offset + size <= capacity;
        for (const auto &[start, bytes] : live)
            clear = clear && !(offset < start + bytes && start < offset + size);
        if (clear && (best < 0 || (long long)offset < best))
            best = (long long)offset;
    }
    return best;
}

uint64_t test_seed() {
    if (const char *env = std::getenv("SYMCOLL_TEST_SEED"))
        return std::strtoull(env, nullptr, 0);
    return ((uint64_t)std::random_device{}() << 32) ^ std::random_device{}();
}

TEST(Allocator, OffsetsAreDeterministicAndAligned) {
    Allocator x(1 << 20);
    EXPECT_EQ(x.alloc(100), 0);
    EXPECT_EQ(x.alloc(1), 256);
    EXPECT_EQ(x.alloc(256), 512);
    EXPECT_EQ(x.alloc(257), 768);
    EXPECT_EQ(x.alloc(3), 1280);
    EXPECT_EQ(x.a.n_live, 5u);
}

TEST(Allocator, HonoursOtherAlignments) {
    Allocator x(1 << 16, 4096);
    EXPECT_EQ(x.alloc(1), 0);
    EXPECT_EQ(x.alloc(4097), 4096);
    EXPECT_EQ(x.alloc(1), 12288);
}

TEST(Allocator, FirstFitReusesFreedGaps) {
    Allocator x(1 << 20);
    long long a = x.alloc(1000), b = x.alloc(1000), c = x.alloc(1000);
    ASSERT_EQ(a, 0);
    ASSERT_EQ(b, 1024);
    ASSERT_EQ(c, 2048);
    ASSERT_EQ(x.free((size_t)b), 0);
    EXPECT_EQ(x.alloc(2000), 3072) << "a 2000-byte block does not fit the 1024-byte gap";
    EXPECT_EQ(x.alloc(600), 1024) << "first fit reuses the freed gap";
    EXPECT_EQ(x.alloc(300), 5120) << "the rest of the gap is smaller than 512 bytes";
    ASSERT_EQ(x.free(0), 0);
    EXPECT_EQ(x.alloc(1024), 0);
}

TEST(Allocator, FindCoversInteriorAndEndPointersOnly) {
    Allocator x(1 << 20);
    ASSERT_EQ(x.alloc(200), 0);
    ASSERT_EQ(x.alloc(100), 256);
    ASSERT_EQ(x.alloc(300), 512);
    symcoll_block_t block;
    ASSERT_EQ(symcoll_allocator_find(&x.a, 256, &block), 0);
    EXPECT_EQ(block.offset, 256u);
    EXPECT_EQ(block.size, 100u);
    ASSERT_EQ(symcoll_allocator_find(&x.a, 256 + 57, &block), 0);
    EXPECT_EQ(block.offset, 256u);
    ASSERT_EQ(symcoll_allocator_find(&x.a, 356, &block), 0) << "the end belongs to the block";
    EXPECT_EQ(block.offset, 256u);
    EXPECT_EQ(symcoll_allocator_find(&x.a, 357, &block), -1) << "alignment padding";
    ASSERT_EQ(symcoll_allocator_find(&x.a, 200, &block), 0) << "the end of the first block";
    EXPECT_EQ(block.offset, 0u);
    EXPECT_EQ(symcoll_allocator_find(&x.a, 201, &block), -1) << "alignment padding";
    EXPECT_EQ(symcoll_allocator_find(&x.a, 511, &block), -1) << "alignment padding";
    ASSERT_EQ(symcoll_allocator_find(&x.a, 811, &block), 0);
    EXPECT_EQ(block.offset, 512u);
    EXPECT_EQ(symcoll_allocator_find(&x.a, 813, &block), -1) << "past the last block";
    ASSERT_EQ(x.free(256), 0);
    EXPECT_EQ(symcoll_allocator_find(&x.a, 256, &block), -1) << "freed block";
    EXPECT_EQ(symcoll_allocator_find(&x.a, 300, &block), -1) << "freed block";
    ASSERT_EQ(x.free(0), 0);
    EXPECT_EQ(symcoll_allocator_find(&x.a, 0, &block), -1) << "before the first live block";
}

TEST(Allocator, OutOfMemoryWhenFullAndUsableAfter) {
    Allocator x(4096);
    EXPECT_EQ(symcoll_allocator_largest_free(&x.a), 4096u);
    EXPECT_EQ(x.alloc(4097), -1);
    ASSERT_EQ(x.alloc(1024), 0);
    ASSERT_EQ(x.alloc(1024), 1024);
    ASSERT_EQ(x.alloc(2048), 2048);
    EXPECT_EQ(x.alloc(1), -1);
    EXPECT_EQ(symcoll_allocator_largest_free(&x.a), 0u);
    EXPECT_EQ(x.a.n_live, 3u) << "a failed allocation left a block behind";
    ASSERT_EQ(x.free(1024), 0);
    EXPECT_EQ(symcoll_allocator_largest_free(&x.a), 1024u);
    EXPECT_EQ(x.alloc(1025), -1) << "larger than the only gap";
    EXPECT_EQ(x.alloc(1024), 1024);
    ASSERT_EQ(x.free(0), 0);
    ASSERT_EQ(x.free(1024), 0);
    EXPECT_EQ(symcoll_allocator_largest_free(&x.a), 2048u);
    EXPECT_EQ(x.alloc(2048), 0);
}

TEST(Allocator, ZeroBytesIsRefused) {
    Allocator x(4096);
    EXPECT_EQ(x.alloc(0), -1);
    EXPECT_EQ(x.a.n_live, 0u);
}

TEST(Allocator, FreeOfUnknownOffsetFails) {
    Allocator x(1 << 20);
    EXPECT_EQ(x.free(0), -1) << "empty allocator";
    ASSERT_EQ(x.alloc(512), 0);
    ASSERT_EQ(x.alloc(512), 512);
    EXPECT_EQ(x.free(256), -1) << "interior offset";
    EXPECT_EQ(x.free(1024), -1) << "past every block";
    EXPECT_EQ(x.free(SIZE_MAX), -1);
    ASSERT_EQ(x.free(512), 0);
    EXPECT_EQ(x.free(512), -1) << "double free";
    EXPECT_EQ(x.a.n_live, 1u);
}

TEST(Allocator, ManyLiveBlocks) {
    Allocator x(1 << 20);
    for (size_t i = 0; i < 1000; i++)
        ASSERT_EQ(x.alloc(1), (long long)(i * kAlign)) << "block " << i;
    for (size_t i = 0; i < 1000; i += 2)
        ASSERT_EQ(x.free(i * kAlign), 0) << "block " << i;
    for (size_t i = 0; i < 1000; i += 2)
        ASSERT_EQ(x.alloc(kAlign), (long long)(i * kAlign)) << "block " << i;
}

// Random alloc/free sequences: every result equals the model's first fit, and two allocators
// fed the same calls agree (what makes the heap symmetric across PEs).
TEST(Allocator, RandomSequencesMatchTheFirstFitModel) {
    uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " (repeat with SYMCOLL_TEST_SEED)");
    std::mt19937_64 rng(seed);
    constexpr size_t kCapacity = 1 << 20;
    Allocator x(kCapacity), twin(kCapacity);
    std::map<size_t, size_t> live;
    for (int step = 0; step < 4000; step++) {
        bool do_free = !live.empty() && rng() % 5 < 2;
        if (do_free) {
            auto it = live.begin();
            std::advance(it, (long)(rng() % live.size()));
            ASSERT_EQ(x.free(it->first), 0) << "step " << step;
            ASSERT_EQ(twin.free(it->first), 0) << "step " << step;
            live.erase(it);
            continue;
        }
        size_t size = rng() % 4 == 0 ? 1 + rng() % 200000 : 1 + rng() % 5000;
        long long want = first_fit(live, kCapacity, size);
        long long got = x.alloc(size);
        ASSERT_EQ(got, want) << "step " << step << ": alloc(" << size << ")";
        ASSERT_EQ(twin.alloc(size), got) << "step " << step;
        if (got >= 0)
            live[(size_t)got] = size;
    }
    ASSERT_EQ(x.a.n_live, live.size());
}

// Two PEs as two threads of this process: an allgather hands each its peer's real record.
class ThreadBootstrap {
  public:
    static constexpr int kPes = 2;
    symcoll_bootstrap_t pe[kPes]{};

    ThreadBootstrap() {
        for (int r = 0; r < kPes; r++) {
            pe[r].name = "threads";
            pe[r].rank = r;
            pe[r].size = kPes;
            pe[r].allgather = allgather;
            pe[r].impl = this;
        }
    }

  private:
    std::mutex lock_;
    std::condition_variable changed_;
    std::vector<char> slots_;
    int arrived_ = 0, departed_ = 0;
    unsigned long round_ = 0;

    // Everyone waits until every PE has arrived (one round of the exchange).
    void meet(std::unique_lock<std::mutex> &held, int &count) {
        unsigned long round = round_;
        if (++count == kPes) {
            count = 0;
            round_++;
            changed_.notify_all();
        } else {
            changed_.wait(held, [&] { return round_ != round; });
        }
    }
    static symcoll_status_t allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                      size_t bytes) {
        auto *self = static_cast<ThreadBootstrap *>(b->impl);
        std::unique_lock<std::mutex> held(self->lock_);
        self->slots_.resize(bytes * kPes);
        std::memcpy(self->slots_.data() + (size_t)b->rank * bytes, mine, bytes);
        self->meet(held, self->arrived_);
        std::memcpy(all, self->slots_.data(), bytes * kPes);
        self->meet(held, self->departed_);
        return SYMCOLL_SUCCESS;
    }
};

// A size of SIZE_MAX (a negative size cast) on one PE is still a size: the message says the
// sizes differ, not that a pointer is bad.
TEST(SymmetricAlloc, HugeSizeOnOnePeIsNamedAsADifferentSize) {
    ThreadBootstrap boot;
    const size_t asked[ThreadBootstrap::kPes] = {SIZE_MAX, 4096};
    symcoll_status_t st[ThreadBootstrap::kPes];
    std::string why[ThreadBootstrap::kPes];
    std::vector<std::thread> pes;
    for (int r = 0; r < ThreadBootstrap::kPes; r++)
        pes.emplace_back([&, r] {
            Allocator heap(1 << 20);
            size_t offset = 0;
            st[r] =
                symcoll_symmetric_alloc(&heap.a, &boot.pe[r], "symcoll_malloc", asked[r], &offset);
            why[r] = symcoll_last_error();
        });
    for (auto &t : pes)
        t.join();
    for (int r = 0; r < ThreadBootstrap::kPes; r++) {
        EXPECT_EQ(st[r], SYMCOLL_ERROR_SYMMETRY) << why[r];
        EXPECT_NE(why[r].find("size differs between PEs"), std::string::npos) << why[r];
        EXPECT_NE(why[r].find("18446744073709551615"), std::string::npos) << why[r];
        EXPECT_EQ(why[r].find("pointer"), std::string::npos) << why[r];
    }
}

} // namespace
