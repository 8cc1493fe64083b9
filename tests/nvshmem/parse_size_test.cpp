// NVSHMEM_SYMMETRIC_SIZE's syntax as the NVSHMEM header reads it (CPU only).
#include <gtest/gtest.h>
#include <nvshmem.h>

namespace {

size_t parsed(const char *text) {
    size_t bytes = 0;
    EXPECT_EQ(nvshmemi_parse_size(text, &bytes), 0) << text;
    return bytes;
}

TEST(NvshmemSymmetricSize, SuffixesAnyCase) {
    EXPECT_EQ(parsed("4096"), 4096u);
    EXPECT_EQ(parsed("2k"), 2048u);
    EXPECT_EQ(parsed("512m"), 512ull << 20);
    EXPECT_EQ(parsed("512M"), 512ull << 20);
    EXPECT_EQ(parsed("2G"), 2ull << 30);
    EXPECT_EQ(parsed("1t"), 1ull << 40);
    EXPECT_EQ(parsed("16GB"), 16ull << 30); // as NVSHMEM's own documentation writes it
}

TEST(NvshmemSymmetricSize, FractionsRoundUp) {
    EXPECT_EQ(parsed("1.5g"), 3ull << 29);
    EXPECT_EQ(parsed("0.5k"), 512u);
    EXPECT_EQ(parsed("1.0001"), 2u);
}

TEST(NvshmemSymmetricSize, RejectsWhatIsNotASize) {
    size_t bytes = 7;
    for (const char *text : {"", "g", "abc", "5x", "5gbb", "-1", "1e30g", "nan"}) {
        EXPECT_NE(nvshmemi_parse_size(text, &bytes), 0) << text;
        EXPECT_EQ(bytes, 7u) << text;
    }
}

} // namespace
