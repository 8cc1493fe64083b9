// Argument checks of the host RMA calls, the barrier and the device handle, on the CPU:
// first without init, then against a faked runtime of 2 PEs (a host-memory heap with the
// real allocator, WORLD as a team) so every check runs without a GPU. Only calls that fail
// a check, or enqueue nothing, are made.
#include <cstdlib>
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "check_rma_cases.h"
#include "heap.h"
#include "internal.h"

namespace {

TEST(RmaNotInitialized, EveryCallSaysSo) {
    ASSERT_FALSE(symcoll_g.initialized);
    uint64_t sig_word = 0;
    char buf[16];
    struct Call {
        symcoll_status_t status;
        const char *fn;
    } calls[] = {
        {symcoll_put_on_stream(buf, buf, 8, 0, 0), "symcoll_put_on_stream"},
        {symcoll_get_on_stream(buf, buf, 8, 0, 0), "symcoll_get_on_stream"},
        {symcoll_put_signal_on_stream(buf, buf, 8, &sig_word, 1, SYMCOLL_SIGNAL_SET, 0, 0),
         "symcoll_put_signal_on_stream"},
        {symcoll_signal_wait_until_on_stream(&sig_word, SYMCOLL_CMP_EQ, 1, 0),
         "symcoll_signal_wait_until_on_stream"},
        {symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0), "symcoll_barrier_on_stream"},
    };
    for (const Call &c : calls)
        EXPECT_EQ(c.status, SYMCOLL_ERROR_NOT_INITIALIZED) << c.fn;
    // The message of the last call names it.
    EXPECT_NE(std::string(symcoll_last_error()).find("symcoll_barrier_on_stream"),
              std::string::npos);
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    EXPECT_EQ(h.team_size, 0);
    EXPECT_NE(std::string(symcoll_last_error()).find("not initialized"), std::string::npos);
}

// symcoll_g as init leaves it for PE 0 of 2, without a GPU: PE 1's heap is "mapped" one
// stride above (never dereferenced, since only failing or empty calls are made).
class FakeRuntime : public ::testing::Test {
  protected:
    static constexpr size_t kHeapBytes = 1 << 20;
    symcoll_state_t saved;
    symcoll_heap_t heap{};
    symcoll_timeout_record_t world_record{};
    char *memory = nullptr;
    char outside[256]; // memory of this PE outside the heap
    check_rma::World world{};

    void SetUp() override {
        saved = symcoll_g;
        memory = (char *)std::aligned_alloc(4096, 2 * kHeapBytes);
        ASSERT_NE(memory, nullptr);
        heap.base = memory;
        heap.size = kHeapBytes;
        heap.stride = kHeapBytes;
        heap.reachable = 3;
        symcoll_allocator_init(&heap.allocator, kHeapBytes, 256);
        size_t filler = 0, offset = 0;
        ASSERT_EQ(symcoll_allocator_alloc(&heap.allocator, 512, &filler), 0);
        ASSERT_EQ(symcoll_allocator_alloc(&heap.allocator, 4096, &offset), 0);

        symcoll_g.initialized = true;
        symcoll_g.my_pe = 0;
        symcoll_g.n_pes = 2;
        symcoll_g.local_rank = 0;
        symcoll_g.local_size = 2;
        symcoll_g.heap_base = memory;
        symcoll_g.heap_size = kHeapBytes;
        symcoll_g.heap_stride = kHeapBytes;
        symcoll_g.reachable = 3;
        symcoll_g.heap = &heap;
        symcoll_team_state_t &w = symcoll_g.teams[SYMCOLL_TEAM_WORLD];
        w = symcoll_team_state_t{};
        w.in_use = true;
        w.handle = SYMCOLL_TEAM_WORLD;
        w.start = 0;
        w.stride = 1;
        w.size = 2;
        w.my_pe = 0;
        w.sync = memory + offset; // any address: only copied into handles
        w.record = w.record_device = &world_record;

        world = {memory + offset, 4096, outside, 0, 2, 0};
    }
    void TearDown() override {
        symcoll_allocator_destroy(&heap.allocator);
        symcoll_g = saved;
        std::free(memory);
    }
};

TEST_F(FakeRuntime, EveryRmaArgumentCheck) {
    check_rma::expect_every_rma_check(world);
}

TEST_F(FakeRuntime, UnreachablePeIsUnsupported) {
    symcoll_g.reachable = 1;
    EXPECT_EQ(symcoll_put_on_stream(world.sym, world.local, 8, 1, 0), SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(symcoll_last_error()).find("pe 1 is not load/store reachable"),
              std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_get_on_stream(world.local, world.sym, 8, 1, 0), SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(symcoll_put_signal_on_stream(world.sym, world.local, 8, (uint64_t *)world.sym + 100,
                                           1, SYMCOLL_SIGNAL_ADD, 1, 0),
              SYMCOLL_ERROR_UNSUPPORTED);
}

TEST_F(FakeRuntime, ZeroBytesEnqueueNothing) {
    EXPECT_EQ(symcoll_put_on_stream(nullptr, nullptr, 0, 1, 0), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_get_on_stream(nullptr, nullptr, 0, 1, 0), SYMCOLL_SUCCESS)
        << symcoll_last_error();
}

TEST_F(FakeRuntime, BarrierRejectsTeamsThatAreNotValid) {
    for (symcoll_team_t team : {-1, 1, 2, 64, 99}) {
        EXPECT_EQ(symcoll_barrier_on_stream(team, 0), SYMCOLL_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(symcoll_last_error()).find("team " + std::to_string(team)),
                  std::string::npos)
            << symcoll_last_error();
        EXPECT_EQ(symcoll_device_handle(team).team_size, 0);
    }
}

TEST_F(FakeRuntime, BarrierRejectsNonMembers) {
    symcoll_g.teams[SYMCOLL_TEAM_WORLD].my_pe = -1;
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("not a member"), std::string::npos);
}

// A timeout recorded by a device wait makes every later call on the team fail at once.
TEST_F(FakeRuntime, BrokenTeamFailsAtOnceNamingTheMissingPe) {
    world_record.collective = SYMCOLL_COLL_BARRIER;
    world_record.team = SYMCOLL_TEAM_WORLD;
    world_record.missing_pe = 1;
    world_record.epoch = 42;
    world_record.expired = 1;
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0), SYMCOLL_ERROR_TIMEOUT);
    std::string message = symcoll_last_error();
    for (const char *needle : {"symcoll_barrier_on_stream", "barrier", "waiting for PE 1", "42"})
        EXPECT_NE(message.find(needle), std::string::npos) << message;
    EXPECT_EQ(symcoll_signal_wait_until_on_stream((uint64_t *)world.sym, SYMCOLL_CMP_EQ, 1, 0),
              SYMCOLL_ERROR_TIMEOUT);
    EXPECT_NE(std::string(symcoll_last_error()).find("waiting for PE 1"), std::string::npos);
    EXPECT_EQ(symcoll_device_handle(SYMCOLL_TEAM_WORLD).team_size, 0);
}

TEST_F(FakeRuntime, DeviceHandleDescribesTheTeam) {
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    EXPECT_EQ(h.heap_base, memory);
    EXPECT_EQ(h.heap_stride, (uint64_t)kHeapBytes);
    EXPECT_EQ(h.my_pe, 0);
    EXPECT_EQ(h.n_pes, 2);
    EXPECT_EQ(h.reachable, 3u);
    EXPECT_EQ(h.team, SYMCOLL_TEAM_WORLD);
    EXPECT_EQ(h.team_size, 2);
    EXPECT_EQ(h.team_my_pe, 0);
    EXPECT_EQ(h.record, &world_record);
}

} // namespace
