// The runtime on the GPU: identity, symmetric allocation (malloc, calloc, free, symmetry and
// out-of-memory errors), peer addressing through symcoll_ptr, and teams. Every PE runs every
// case in the same order; collective calls are never skipped by a failed check.
#include <cstdint>
#include <string>
#include <vector>
#include "rma_testing.h"

using namespace rma_testing;

namespace {

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

std::vector<uint8_t> read_device(const void *p, size_t bytes) {
    std::vector<uint8_t> v(bytes);
    EXPECT_EQ(cudaMemcpy(v.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
}

class Core : public ::testing::Test {
  protected:
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    Stream stream;
    uint64_t case_id = 0;

    uint64_t next_case() {
        return mix(run_seed(), ++case_id);
    }
    // Offset of a symmetric pointer inside this PE's heap.
    uint64_t heap_offset(const void *p) {
        return (uint64_t)((const char *)p - symcoll_device_handle(SYMCOLL_TEAM_WORLD).heap_base);
    }
};

TEST_F(Core, Identity) {
    EXPECT_GE(n, 1);
    EXPECT_GE(me, 0);
    EXPECT_LT(me, n);
    symcoll_device_t world = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    EXPECT_EQ(world.version, (uint32_t)SYMCOLL_DEVICE_HANDLE_VERSION);
    EXPECT_EQ(world.size, (uint32_t)sizeof world);
    EXPECT_EQ(world.my_pe, me);
    EXPECT_EQ(world.n_pes, n);
    EXPECT_NE(world.heap_base, nullptr);
    EXPECT_GT(world.heap_size, 0u);
    EXPECT_EQ(world.reachable >> me & 1, 1ull) << "a PE reaches itself";
    size_t need = symcoll_topology_text(nullptr, 0);
    std::string topology(need + 1, '\0');
    EXPECT_EQ(symcoll_topology_text(topology.data(), topology.size()), need);
    EXPECT_EQ(std::atoi(topology.c_str()), n) << topology;
}

TEST_F(Core, MallocGivesTheSameAlignedOffsetOnEveryPe) {
    SEED_TRACE();
    SymBuffer offsets(sizeof(uint64_t) * n);
    for (size_t bytes : {1ul, 1000ul, 4093ul, (1ul << 20) + 7}) {
        SymBuffer block(bytes);
        ASSERT_NE(block.ptr, nullptr);
        EXPECT_EQ((uintptr_t)block.ptr % 256, 0u) << bytes << " bytes";
        uint64_t mine = heap_offset(block.ptr);
        for (int pe = 0; pe < n; pe++)
            CUDA_OK(cudaMemcpy((uint64_t *)symcoll_ptr(offsets.ptr, pe) + me, &mine, sizeof mine,
                               cudaMemcpyHostToDevice));
        barrier_sync(stream);
        std::vector<uint64_t> all(n);
        CUDA_OK(cudaMemcpy(all.data(), offsets.ptr, sizeof(uint64_t) * n, cudaMemcpyDeviceToHost));
        for (int pe = 0; pe < n; pe++)
            EXPECT_EQ(all[pe], mine) << bytes << " bytes: PE " << pe << " vs PE " << me;
        barrier_sync(stream);
    }
}

TEST_F(Core, ZeroBytesAndCallocOverflow) {
    EXPECT_EQ(symcoll_malloc(0), nullptr);
    EXPECT_STREQ(symcoll_last_error(), "");
    EXPECT_EQ(symcoll_calloc(0, 8), nullptr);
    EXPECT_EQ(symcoll_calloc(SIZE_MAX / 2, 4), nullptr);
    std::string why = symcoll_last_error();
    EXPECT_TRUE(contains(why, "symcoll_calloc")) << why;
    EXPECT_TRUE(contains(why, "overflows")) << why;
}

TEST_F(Core, CallocZeroesMemoryThatWasDirty) {
    constexpr size_t kCount = 10007, kSize = 4;
    void *dirty = symcoll_malloc(kCount * kSize);
    ASSERT_NE(dirty, nullptr) << symcoll_last_error();
    CUDA_OK(cudaMemset(dirty, 0xff, kCount * kSize));
    CUDA_OK(cudaDeviceSynchronize());
    symcoll_free(dirty);
    void *zeroed = symcoll_calloc(kCount, kSize);
    ASSERT_NE(zeroed, nullptr) << symcoll_last_error();
    EXPECT_EQ(zeroed, dirty) << "expected first fit to reuse the dirty block";
    std::vector<uint8_t> got = read_device(zeroed, kCount * kSize);
    size_t nonzero = 0;
    for (uint8_t b : got)
        nonzero += b != 0;
    EXPECT_EQ(nonzero, 0u);
    EXPECT_EQ(symcoll_free_checked(zeroed), SYMCOLL_SUCCESS) << symcoll_last_error();
}

TEST_F(Core, PtrReachesEveryPeAndWritesLandOnThePeer) {
    SEED_TRACE();
    constexpr size_t kBlock = 4093;
    SymBuffer buf(kBlock * n);
    ASSERT_NE(buf.ptr, nullptr);
    for (int pe = 0; pe < n; pe++) {
        ASSERT_NE(symcoll_ptr(buf.ptr, pe), nullptr) << "pe " << pe << ": " << symcoll_last_error();
        EXPECT_EQ(symcoll_ptr(buf.as<char>() + 17, pe), (char *)symcoll_ptr(buf.ptr, pe) + 17);
    }
    EXPECT_EQ(symcoll_ptr(buf.ptr, me), buf.ptr);
    uint64_t seed = next_case();
    CUDA_OK(cudaMemset(buf.ptr, kPoison, kBlock * n));
    barrier_sync(stream);
    // Block `me` of every PE's copy gets this PE's bytes.
    std::vector<uint8_t> mine = random_bytes(kBlock, seed, me);
    for (int pe = 0; pe < n; pe++)
        CUDA_OK(cudaMemcpy((char *)symcoll_ptr(buf.ptr, pe) + kBlock * me, mine.data(), kBlock,
                           cudaMemcpyHostToDevice));
    barrier_sync(stream);
    std::vector<uint8_t> got = read_device(buf.ptr, kBlock * n);
    for (int pe = 0; pe < n; pe++) {
        std::vector<uint8_t> want = random_bytes(kBlock, seed, pe);
        EXPECT_EQ(first_mismatch(got.data() + kBlock * pe, want.data(), kBlock), -1)
            << "block written by PE " << pe;
    }
    barrier_sync(stream);
}

TEST_F(Core, PtrArgumentErrors) {
    SymBuffer buf(1000);
    ASSERT_NE(buf.ptr, nullptr);
    for (int pe : {-1, n, n + 100}) {
        EXPECT_EQ(symcoll_ptr(buf.ptr, pe), nullptr) << "pe " << pe;
        std::string why = symcoll_last_error();
        EXPECT_TRUE(contains(why, "symcoll_ptr")) << why;
        EXPECT_TRUE(contains(why, "pe " + std::to_string(pe))) << why;
    }
    int on_stack = 0;
    DeviceBuffer plain(256);
    for (const void *bad : {(const void *)&on_stack, (const void *)plain.ptr,
                            (const void *)(buf.as<char>() + 1001)}) {
        EXPECT_EQ(symcoll_ptr(bad, 0), nullptr) << bad;
        std::string why = symcoll_last_error();
        EXPECT_TRUE(contains(why, "symcoll_ptr")) << why;
        EXPECT_TRUE(contains(why, "sym_addr")) << why;
        EXPECT_TRUE(contains(why, "not inside a live symmetric allocation")) << why;
    }
    EXPECT_EQ(symcoll_ptr(nullptr, 0), nullptr);
    EXPECT_TRUE(contains(symcoll_last_error(), "sym_addr is NULL")) << symcoll_last_error();
    void *gone = symcoll_malloc(512);
    ASSERT_NE(gone, nullptr) << symcoll_last_error();
    symcoll_free(gone);
    EXPECT_EQ(symcoll_ptr(gone, 0), nullptr) << "a freed allocation";
}

TEST_F(Core, SizeMismatchFailsOnEveryPe) {
    if (n < 2)
        GTEST_SKIP() << "needs 2 PEs";
    void *p = symcoll_malloc(me == 0 ? 1024 : 2048);
    std::string why = symcoll_last_error();
    EXPECT_EQ(p, nullptr) << "PEs asked for different sizes";
    EXPECT_TRUE(contains(why, "symcoll_malloc")) << why;
    EXPECT_TRUE(contains(why, "size differs between PEs")) << why;
    EXPECT_TRUE(contains(why, me == 0 ? "2048" : "1024")) << why;
    void *q = symcoll_malloc(1024);
    EXPECT_NE(q, nullptr) << "a matched malloc after a mismatch: " << symcoll_last_error();
    EXPECT_EQ(symcoll_free_checked(q), SYMCOLL_SUCCESS) << symcoll_last_error();
}

TEST_F(Core, OutOfMemoryNamesTheHeapAndLeavesItUsable) {
    size_t heap = symcoll_device_handle(SYMCOLL_TEAM_WORLD).heap_size;
    EXPECT_EQ(symcoll_malloc(heap + 1), nullptr);
    std::string why = symcoll_last_error();
    EXPECT_TRUE(contains(why, "symcoll_malloc")) << why;
    EXPECT_TRUE(contains(why, "SYMCOLL_SYMMETRIC_SIZE")) << why;
    EXPECT_TRUE(contains(why, std::to_string(heap) + "-byte heap")) << why;
    EXPECT_EQ(symcoll_calloc(heap, 2), nullptr);
    EXPECT_TRUE(contains(symcoll_last_error(), "SYMCOLL_SYMMETRIC_SIZE")) << symcoll_last_error();
    SymBuffer after(1 << 20);
    EXPECT_NE(after.ptr, nullptr) << "the heap is usable after running out";
}

TEST_F(Core, FreeOfABadPointerFailsWithoutHanging) {
    SymBuffer block(4096);
    ASSERT_NE(block.ptr, nullptr);
    DeviceBuffer plain(256);
    // Every PE passes a bad pointer, so the call stays collective.
    for (void *bad : {plain.ptr, (void *)(block.as<char>() + 256)}) {
        EXPECT_EQ(symcoll_free_checked(bad), SYMCOLL_ERROR_INVALID_ARGUMENT) << bad;
        std::string why = symcoll_last_error();
        EXPECT_TRUE(contains(why, "symcoll_free")) << why;
        EXPECT_TRUE(contains(why, "not the start of a live symmetric allocation")) << why;
    }
    void *twice = symcoll_malloc(64);
    ASSERT_NE(twice, nullptr) << symcoll_last_error();
    EXPECT_EQ(symcoll_free_checked(twice), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_free_checked(twice), SYMCOLL_ERROR_INVALID_ARGUMENT) << "double free";
    EXPECT_NE(symcoll_ptr(block.ptr, 0), nullptr) << "the live block survived";
}

TEST_F(Core, BadPointerOnOnePeFailsOnEveryPe) {
    if (n < 2)
        GTEST_SKIP() << "needs 2 PEs";
    void *p = symcoll_malloc(4096);
    ASSERT_NE(p, nullptr) << symcoll_last_error();
    DeviceBuffer plain(256);
    symcoll_status_t st = symcoll_free_checked(me == 0 ? plain.ptr : p);
    EXPECT_NE(st, SYMCOLL_SUCCESS);
    std::string why = symcoll_last_error();
    EXPECT_TRUE(contains(why, "symcoll_free")) << why;
    EXPECT_TRUE(contains(why, "live symmetric allocation")) << why;
    EXPECT_NE(symcoll_ptr(p, 0), nullptr) << "the block was freed on PE " << me;
    EXPECT_EQ(symcoll_free_checked(p), SYMCOLL_SUCCESS) << "matched free: " << symcoll_last_error();
}

TEST_F(Core, WorldAndNodeTeams) {
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_WORLD), n);
    EXPECT_EQ(symcoll_team_my_pe(SYMCOLL_TEAM_WORLD), me);
    int node_n = symcoll_team_n_pes(SYMCOLL_TEAM_NODE),
        node_me = symcoll_team_my_pe(SYMCOLL_TEAM_NODE);
    EXPECT_GE(node_n, 1);
    EXPECT_LE(node_n, n);
    EXPECT_GE(node_me, 0);
    EXPECT_LT(node_me, node_n);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_NODE, node_me, SYMCOLL_TEAM_WORLD), me);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, me, SYMCOLL_TEAM_NODE), node_me);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, n, SYMCOLL_TEAM_NODE), -1);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, -1, SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_INVALID), -1);
    EXPECT_EQ(symcoll_team_n_pes(63), -1);
    EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_team_destroy(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_team_destroy(SYMCOLL_TEAM_NODE), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(symcoll_last_error(), "cannot be destroyed")) << symcoll_last_error();
}

// A team of PE 0 alone, split from WORLD by every PE; the others get SYMCOLL_TEAM_INVALID.
// Repeated more often than there are synchronization areas, so destroy must return them.
TEST_F(Core, SplitTranslateDestroy) {
    for (int round = 0; round < 12; round++) {
        SCOPED_TRACE("round " + std::to_string(round));
        symcoll_team_t team = 12345;
        ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, &team), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        if (me != 0) {
            EXPECT_EQ(team, SYMCOLL_TEAM_INVALID);
            continue;
        }
        ASSERT_NE(team, SYMCOLL_TEAM_INVALID);
        EXPECT_NE(team, SYMCOLL_TEAM_WORLD);
        EXPECT_NE(team, SYMCOLL_TEAM_NODE);
        EXPECT_EQ(symcoll_team_n_pes(team), 1);
        EXPECT_EQ(symcoll_team_my_pe(team), 0);
        EXPECT_EQ(symcoll_team_translate_pe(team, 0, SYMCOLL_TEAM_WORLD), 0);
        EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, 0, team), 0);
        if (n > 1) {
            EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, 1, team), -1);
        }
        EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
        CUDA_OK(cudaStreamSynchronize(stream));
        EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
        EXPECT_EQ(symcoll_team_n_pes(team), -1) << "destroyed";
        EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_ERROR_INVALID_ARGUMENT) << "twice";
    }
}

TEST_F(Core, StridedSplitOfEveryOtherPe) {
    int size = (n + 1) / 2;
    symcoll_team_t team = 12345;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 2, size, &team), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (me % 2 != 0) {
        EXPECT_EQ(team, SYMCOLL_TEAM_INVALID);
        return;
    }
    ASSERT_NE(team, SYMCOLL_TEAM_INVALID);
    EXPECT_EQ(symcoll_team_n_pes(team), size);
    EXPECT_EQ(symcoll_team_my_pe(team), me / 2);
    for (int i = 0; i < size; i++)
        EXPECT_EQ(symcoll_team_translate_pe(team, i, SYMCOLL_TEAM_WORLD), 2 * i);
    EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
}

TEST_F(Core, SplitArgumentErrors) {
    symcoll_team_t team = 12345;
    const int bad[][3] = {{-1, 1, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, n + 1}, {n, 1, 1}};
    for (const auto &b : bad) {
        EXPECT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, b[0], b[1], b[2], &team),
                  SYMCOLL_ERROR_INVALID_ARGUMENT)
            << "start " << b[0] << " stride " << b[1] << " size " << b[2];
        std::string why = symcoll_last_error();
        EXPECT_TRUE(contains(why, "symcoll_team_split_strided")) << why;
        EXPECT_EQ(team, SYMCOLL_TEAM_INVALID);
    }
    EXPECT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, nullptr),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(symcoll_last_error(), "new_team is NULL")) << symcoll_last_error();
}

// Teams split one after another, each of one PE: every PE's handle differs from every other
// PE's, because a handle names the same team on every PE (all PEs agree on what is free). The
// teams share one synchronization area (no PE in common), so there are as many as PEs.
TEST_F(Core, SplitHandlesAgreeOnEveryPe) {
    const int teams = n;
    symcoll_team_t mine = SYMCOLL_TEAM_INVALID;
    for (int pe = 0; pe < teams; pe++) {
        symcoll_team_t team = 12345;
        ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, pe, 1, 1, &team), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        if (pe == me)
            mine = team;
        else
            EXPECT_EQ(team, SYMCOLL_TEAM_INVALID) << "split " << pe;
    }
    SymBuffer handles(n * sizeof(int32_t));
    ASSERT_NE(handles.ptr, nullptr);
    for (int pe = 0; pe < n; pe++)
        CUDA_OK(cudaMemcpy(static_cast<int32_t *>(symcoll_ptr(handles.ptr, pe)) + me, &mine,
                           sizeof mine, cudaMemcpyHostToDevice));
    barrier_sync(stream);
    std::vector<uint8_t> bytes = read_device(handles.ptr, n * sizeof(int32_t));
    const auto *all = reinterpret_cast<const int32_t *>(bytes.data());
    for (int a = 0; a < teams; a++) {
        EXPECT_NE(all[a], SYMCOLL_TEAM_INVALID) << "PE " << a;
        for (int b = 0; b < a; b++)
            EXPECT_NE(all[a], all[b]) << "PEs " << a << " and " << b << " got the same handle";
    }
    barrier_sync(stream);
    if (mine != SYMCOLL_TEAM_INVALID)
        EXPECT_EQ(symcoll_team_destroy(mine), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// Teams with no PE in common share a synchronization area: on n PEs, n / 2 teams of two PEs (i
// and i + n / 2) and n teams of one PE are alive at once (12 teams on 8 PEs, where 6 areas are
// left beside WORLD's and NODE's), and every pair sums fresh random values at once, twice, each
// result against the CPU's with dst poisoned first.
TEST_F(Core, TeamsWithNoPeInCommonShareSynchronizationAreas) {
    if (n % 2)
        GTEST_SKIP() << "needs an even number of PEs";
    const int half = n / 2, partner = (me + half) % n;
    symcoll_team_t pair = SYMCOLL_TEAM_INVALID, alone = SYMCOLL_TEAM_INVALID;
    for (int i = 0; i < half; i++) {
        symcoll_team_t t = 12345;
        ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, i, half, 2, &t), SYMCOLL_SUCCESS)
            << "pair " << i << ": " << symcoll_last_error();
        if (t != SYMCOLL_TEAM_INVALID)
            pair = t;
    }
    for (int i = 0; i < n; i++) {
        symcoll_team_t t = 12345;
        ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, i, 1, 1, &t), SYMCOLL_SUCCESS)
            << "team of PE " << i << ": " << symcoll_last_error();
        if (t != SYMCOLL_TEAM_INVALID)
            alone = t;
    }
    ASSERT_EQ(symcoll_team_n_pes(pair), 2);
    ASSERT_EQ(symcoll_team_n_pes(alone), 1);
    EXPECT_EQ(symcoll_team_translate_pe(pair, me < half ? 1 : 0, SYMCOLL_TEAM_WORLD), partner);
    const size_t count = 1001;
    SymBuffer src(count * sizeof(float)), dst(count * sizeof(float));
    ASSERT_NE(src.ptr, nullptr);
    ASSERT_NE(dst.ptr, nullptr);
    for (int round = 0; round < 2; round++) {
        const uint64_t seed = next_case();
        auto value = [&](int pe, size_t i) { return (float)(mix(seed, pe * count + i) % 1000); };
        std::vector<float> mine(count);
        for (size_t i = 0; i < count; i++)
            mine[i] = value(me, i);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), count * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, 0xff, count * sizeof(float)));
        barrier_sync(stream);
        EXPECT_EQ(symcoll_reduce_on_stream(pair, dst.ptr, src.ptr, count, SYMCOLL_FLOAT32,
                                           SYMCOLL_SUM, stream),
                  SYMCOLL_SUCCESS)
            << symcoll_last_error();
        EXPECT_EQ(symcoll_barrier_on_stream(alone, stream), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        CUDA_OK(cudaStreamSynchronize(stream));
        std::vector<float> got(count);
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, count * sizeof(float), cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = count;
        for (size_t i = 0; i < count; i++)
            if (got[i] != value(me, i) + value(partner, i) && wrong++ == 0)
                first = i;
        EXPECT_EQ(wrong, 0u) << "round " << round << ": first at element " << first;
        barrier_sync(stream);
    }
    EXPECT_EQ(symcoll_team_destroy(alone), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_team_destroy(pair), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// A member that has not yet destroyed a team (its GPU may still write into the team's area)
// keeps the area out of every new team that shares a PE with it, though the other member has
// destroyed it; once both have, the area is taken again.
TEST_F(Core, AnAreaWaitsForEveryMemberOfItsTeam) {
    if (n < 2)
        GTEST_SKIP() << "needs 2 PEs";
    auto area = [&](symcoll_team_t t) {
        return symcoll_device_handle(t).team_sync - symcoll_device_handle(t).heap_base;
    };
    symcoll_team_t a = 12345, b = 12345, c = 12345;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 2, &a), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    const auto a_area = me < 2 ? area(a) : 0;
    if (me == 1)
        EXPECT_EQ(symcoll_team_destroy(a), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 1, 1, 1, &b), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (me == 1)
        EXPECT_NE(area(b), a_area) << "a new team of PE 1 took the area PE 0's team still holds";
    if (me == 0)
        EXPECT_EQ(symcoll_team_destroy(a), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 1, 1, 1, &c), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (me == 1) {
        EXPECT_EQ(area(c), a_area) << "the area stayed out of use once both members destroyed it";
        EXPECT_EQ(symcoll_team_destroy(c), SYMCOLL_SUCCESS) << symcoll_last_error();
        EXPECT_EQ(symcoll_team_destroy(b), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
}

// Splitting a team that not every PE belongs to: the others take part with
// SYMCOLL_TEAM_INVALID (or the handle, unknown to them) and get SYMCOLL_TEAM_INVALID.
TEST_F(Core, SplitOfATeamSomePesAreNotIn) {
    symcoll_team_t first = 12345, second = 12345;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, &first), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    symcoll_team_t parent = me == 0 ? first : SYMCOLL_TEAM_INVALID;
    ASSERT_EQ(symcoll_team_split_strided(parent, 0, 1, 1, &second), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (me != 0) {
        EXPECT_EQ(second, SYMCOLL_TEAM_INVALID);
        return;
    }
    ASSERT_NE(second, SYMCOLL_TEAM_INVALID);
    EXPECT_NE(second, first);
    EXPECT_EQ(symcoll_team_translate_pe(second, 0, SYMCOLL_TEAM_WORLD), 0);
    EXPECT_EQ(symcoll_barrier_on_stream(second, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(symcoll_team_destroy(second), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_team_destroy(first), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// One PE rejects its arguments: every PE fails (nobody is left waiting or holding half a
// team), and the next split works.
TEST_F(Core, SplitRejectedOnOnePeFailsEverywhere) {
    symcoll_team_t team = 12345;
    int size = me == n - 1 ? 0 : 1;
    EXPECT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, size, &team),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(team, SYMCOLL_TEAM_INVALID);
    std::string why = symcoll_last_error();
    if (me == n - 1)
        EXPECT_TRUE(contains(why, "size 0 do not fit parent team 0")) << why;
    else
        EXPECT_TRUE(contains(why, "PE " + std::to_string(n - 1) + " rejected the split")) << why;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, n, &team), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_team_n_pes(team), n);
    EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
}

} // namespace
