// The hex text of a unique id (how symcoll-run hands it to its children) and back.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <random>
#include <string>

#include "bootstrap/bootstrap.h"

namespace {

symcoll_uniqueid_t random_id() {
    std::random_device rd;
    symcoll_uniqueid_t id;
    for (char &c : id.internal)
        c = (char)(rd() & 0xff);
    return id;
}

std::string hex_of(const symcoll_uniqueid_t &id) {
    char hex[257];
    std::memset(hex, '#', sizeof hex);
    symcoll_uniqueid_to_hex(&id, hex);
    return std::string(hex, strnlen(hex, sizeof hex));
}

TEST(UniqueidHex, KnownBytes) {
    symcoll_uniqueid_t id;
    for (size_t i = 0; i < sizeof id.internal; i++)
        id.internal[i] = (char)(i * 2 + 1);
    std::string hex = hex_of(id);
    ASSERT_EQ(hex.size(), 256u);
    EXPECT_EQ(hex.substr(0, 12), "01030507090b");
    EXPECT_EQ(hex.substr(250), "fbfdff");
}

TEST(UniqueidHex, RoundTripsRandomIds) {
    for (int round = 0; round < 100; round++) {
        symcoll_uniqueid_t id = random_id(), back;
        std::string hex = hex_of(id);
        ASSERT_EQ(hex.size(), 256u);
        EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << hex;
        std::memset(&back, 0, sizeof back);
        ASSERT_EQ(symcoll_uniqueid_from_hex(hex.c_str(), &back), 0) << hex;
        EXPECT_EQ(std::memcmp(&id, &back, sizeof id), 0) << hex;
    }
}

TEST(UniqueidHex, AcceptsUpperCase) {
    symcoll_uniqueid_t id = random_id(), back;
    std::string hex = hex_of(id);
    for (char &c : hex)
        c = (char)std::toupper((unsigned char)c);
    ASSERT_EQ(symcoll_uniqueid_from_hex(hex.c_str(), &back), 0);
    EXPECT_EQ(std::memcmp(&id, &back, sizeof id), 0);
}

TEST(UniqueidHex, RejectsBadLengthsAndCharacters) {
    std::string good = hex_of(random_id());
    symcoll_uniqueid_t out;
    const std::string bad[] = {
        "",
        good.substr(0, 255),
        good.substr(0, 254),
        good + "0",
        good + "00",
        "g" + good.substr(1),
        good.substr(0, 255) + "z",
        good.substr(0, 100) + " " + good.substr(101),
        good.substr(0, 128) + "-" + good.substr(129),
        "0x" + good.substr(2),
    };
    for (const std::string &text : bad)
        EXPECT_EQ(symcoll_uniqueid_from_hex(text.c_str(), &out), -1) << '"' << text << '"';
    EXPECT_EQ(symcoll_uniqueid_from_hex(nullptr, &out), -1);
}

} // namespace
