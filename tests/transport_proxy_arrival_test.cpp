// The order in which the proxy applies eager records (messages) and window records (puts
// announced by a count), one sender, no thread and no network (proxy_fixture.c): UCX
// orders no message beside a put, so on shared memory or RDMA a count can land before a message
// that it covers, and its slot still holds an older record then. Each case plays one such order.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "proxy_fixture.h"

namespace {

constexpr size_t kHeapBytes = 4096;
constexpr uint64_t kWord = 64; // the signal word
constexpr unsigned char kPoison = 0xee;

struct Arrival : ::testing::Test {
    proxy_fixture_t *f = nullptr;
    void SetUp() override {
        f = proxy_fixture_create(kHeapBytes);
        ASSERT_NE(f, nullptr);
    }
    void TearDown() override {
        proxy_fixture_destroy(f);
    }
    uint64_t receive() {
        uint64_t applied = 0;
        EXPECT_EQ(proxy_fixture_receive(f, &applied), SYMCOLL_SUCCESS) << symcoll_last_error();
        return applied;
    }
    bool untouched(size_t offset, size_t bytes) {
        for (size_t i = 0; i < bytes; i++)
            if (proxy_fixture_heap(f)[offset + i] != kPoison)
                return false;
        return true;
    }
    std::string at(size_t offset, size_t bytes) {
        return std::string(reinterpret_cast<const char *>(proxy_fixture_heap(f)) + offset, bytes);
    }
    uint64_t word() {
        uint64_t w;
        std::memcpy(&w, proxy_fixture_heap(f) + kWord, sizeof w);
        return w;
    }
};

TEST_F(Arrival, ACountCoveringAnEagerRecordStillOnItsWayWaitsForIt) {
    proxy_fixture_stage(f, 0, "AAAAAAAA", 8, 0, kWord, 1, 1);
    proxy_fixture_stage(f, 1, "BBBBBBBB", 8, 8, kWord, 2, 0);
    proxy_fixture_put(f, 1);
    proxy_fixture_announce(f, 2);
    EXPECT_EQ(receive(), 0u) << "applied what the empty slot of record 0 held";
    EXPECT_TRUE(untouched(0, 16));
    EXPECT_TRUE(untouched(kWord, 8));
    proxy_fixture_deliver(f, 0, 0);
    EXPECT_EQ(receive(), 2u);
    EXPECT_EQ(at(0, 16), "AAAAAAAABBBBBBBB");
    EXPECT_EQ(word(), 2u) << "the signals applied out of order";
}

TEST_F(Arrival, AnEagerRecordWaitsForTheWindowRecordBeforeIt) {
    proxy_fixture_stage(f, 0, "CCCCCCC", 7, 3, kWord, 5, 0);
    proxy_fixture_stage(f, 1, "D", 1, 10, kWord, 6, 1);
    proxy_fixture_deliver(f, 1, 0);
    EXPECT_EQ(receive(), 0u);
    proxy_fixture_put(f, 0);
    EXPECT_EQ(receive(), 0u) << "applied a window record before its count";
    EXPECT_TRUE(untouched(0, 16));
    proxy_fixture_announce(f, 1);
    EXPECT_EQ(receive(), 2u);
    EXPECT_EQ(at(2, 10), "\xee"
                         "CCCCCCCD\xee");
    EXPECT_EQ(word(), 6u);
}

TEST_F(Arrival, AMessageOutOfTurnIsRefused) {
    proxy_fixture_stage(f, 0, "EEEEEEEE", 8, 0, kWord, 1, 1);
    proxy_fixture_deliver(f, 0, 0);
    EXPECT_EQ(receive(), 1u);
    proxy_fixture_deliver(f, 0, 0); // applied already
    uint64_t applied = 0;
    EXPECT_EQ(proxy_fixture_receive(f, &applied), SYMCOLL_ERROR_INTERNAL);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("out of turn"), std::string::npos) << why;
    EXPECT_EQ(applied, 1u);
}

TEST_F(Arrival, AMessageFarAheadIsRefused) {
    proxy_fixture_stage(f, 0, "FFFFFFFF", 8, 0, kWord, 1, 1);
    proxy_fixture_deliver(f, 0, 64); // index 63: beyond the records a sender may have out
    uint64_t applied = 0;
    EXPECT_EQ(proxy_fixture_receive(f, &applied), SYMCOLL_ERROR_INTERNAL);
    EXPECT_NE(std::string(symcoll_last_error()).find("out of turn"), std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(applied, 0u);
    EXPECT_TRUE(untouched(0, 8));
}

} // namespace
