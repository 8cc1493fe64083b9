// Argument checks of the host RMA calls, the barrier and the device handle, on the CPU:
// first without init, then against the faked runtime of 2 PEs of fake_runtime.h, so every
// check runs without a GPU. Only calls that fail a check, or enqueue nothing, are made.
#include <cstdlib>
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "check_rma_cases.h"
#include "fake_runtime.h"

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

// Every PE reachable, so that the checks after reachability run (only failing or empty calls
// are made).
class FakeRuntime : public ::testing::Test {
  protected:
    fake_runtime::Runtime rt;
    char *memory = rt.memory.data();
    symcoll_timeout_record_t &world_record = rt.records[SYMCOLL_TEAM_WORLD];
    check_rma::World world{rt.a, fake_runtime::kAllocBytes, rt.outside, 0, 2, 0};
    static constexpr size_t kHeapBytes = fake_runtime::kHeapBytes;

    void SetUp() override {
        symcoll_g.reachable = rt.heap.reachable = 3;
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
