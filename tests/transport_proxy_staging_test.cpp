// How much the proxy stages in one pass of its thread, with no thread and no network
// (proxy_fixture.c): at most slot_bytes of data, so that a large put is announced chunk by chunk
// while the rest is staged, rather than once the whole ring is full (perf/NOTES.md, v0.19: a 16
// MiB put filled a 16 MiB ring in one pass and its sender then waited for room).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "proxy_fixture.h"

namespace {

constexpr size_t kHeapBytes = 4 * 4096;

struct Staging : ::testing::Test {
    proxy_fixture_t *f = nullptr;
    const size_t slot = proxy_fixture_slot_bytes();
    void SetUp() override {
        ASSERT_LE(3 * slot, kHeapBytes);
        f = proxy_fixture_create(kHeapBytes);
        ASSERT_NE(f, nullptr);
        for (size_t i = 0; i < kHeapBytes; i++) // each chunk's bytes its own
            proxy_fixture_heap(f)[i] = static_cast<unsigned char>(i * 131 + i / 4096);
    }
    void TearDown() override {
        proxy_fixture_destroy(f);
    }
    // One pass: {records staged to PE 0, requests staged in full}, so far.
    std::pair<uint64_t, uint64_t> pass() {
        uint64_t records = 0, requests = 0;
        EXPECT_EQ(proxy_fixture_stage_pass(f, &records, &requests), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        return {records, requests};
    }
    bool staged_as_sent(uint64_t record, size_t src_offset, size_t bytes) {
        return std::memcmp(proxy_fixture_staged(f, record), proxy_fixture_heap(f) + src_offset,
                           bytes) == 0;
    }
};

TEST_F(Staging, APutOfThreeSlotsTakesThreePasses) {
    proxy_fixture_post_put(f, 0, 3 * slot, 0);
    EXPECT_EQ(pass(), std::make_pair(uint64_t{1}, uint64_t{0}));
    EXPECT_EQ(pass(), std::make_pair(uint64_t{2}, uint64_t{0}));
    EXPECT_EQ(pass(), std::make_pair(uint64_t{3}, uint64_t{1}));
    EXPECT_EQ(pass(), std::make_pair(uint64_t{3}, uint64_t{1})); // nothing more posted
    for (uint64_t r = 0; r < 3; r++)
        EXPECT_TRUE(staged_as_sent(r, r * slot, slot)) << "record " << r;
}

TEST_F(Staging, SmallPutsShareAPassUntilItHasStagedASlot) {
    const size_t bytes = 1000; // 5 reach a slot of 4096: the fifth ends the pass
    ASSERT_EQ(slot, 4096u);
    for (size_t i = 0; i < 6; i++)
        proxy_fixture_post_put(f, i * bytes, bytes, i * bytes);
    EXPECT_EQ(pass(), std::make_pair(uint64_t{5}, uint64_t{5}));
    EXPECT_EQ(pass(), std::make_pair(uint64_t{6}, uint64_t{6}));
    for (uint64_t r = 0; r < 6; r++)
        EXPECT_TRUE(staged_as_sent(r, r * bytes, bytes)) << "record " << r;
}

TEST_F(Staging, ALongReplyLeavesRoomInThePassForRequests) {
    proxy_fixture_queue_reply(f, 0, 2 * slot, 0); // a get of PE 0's, answered in two chunks
    proxy_fixture_post_put(f, 2 * slot, 1000, 0);
    EXPECT_EQ(pass(), std::make_pair(uint64_t{2}, uint64_t{1})); // a reply chunk and the put
    EXPECT_EQ(pass(), std::make_pair(uint64_t{3}, uint64_t{1}));
    EXPECT_TRUE(staged_as_sent(0, 0, slot));
    EXPECT_TRUE(staged_as_sent(1, 2 * slot, 1000));
    EXPECT_TRUE(staged_as_sent(2, slot, slot));
}

} // namespace
