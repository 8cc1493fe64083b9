// The UCX transport alone, on host memory, on the CPU under mpirun with the PMIx bootstrap:
// every rank runs every case in the same order (each case maps a window collectively). Exit 77
// when this machine has no PMIx or no UCX.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "internal.h"
#include "ucx_test_job.h"
#include "transport/ucx/ucx_lib.h"
#include "transport/ucx/ucx_transport.h"

namespace {

symcoll_bootstrap_t *boot;
symcoll_ucx_t *ucx;

constexpr uint64_t kTimeoutMs = 60000;
constexpr size_t kWindowBytes = (2u << 20) + 4096;

// The first index where got differs from want, or -1.
long first_difference(const uint8_t *got, const std::vector<uint8_t> &want) {
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i])
            return (long)i;
    return -1;
}

// A host window of kWindowBytes per PE, mapped collectively for each case; 8-byte aligned.
class Ucx : public ::testing::Test {
  protected:
    std::vector<uint64_t> storage = std::vector<uint64_t>(kWindowBytes / 8);
    uint8_t *window = reinterpret_cast<uint8_t *>(storage.data());
    symcoll_ucx_region_t *region = nullptr;
    int rank = boot->rank, size = boot->size;
    int right = (boot->rank + 1) % boot->size;
    int left = (boot->rank + boot->size - 1) % boot->size;

    void SetUp() override {
        ASSERT_GE(size, 2) << "run under mpirun -np 2 or more";
        ASSERT_EQ(
            symcoll_ucx_region_map(ucx, window, kWindowBytes, SYMCOLL_UCX_MEMORY_HOST, &region),
            SYMCOLL_SUCCESS)
            << symcoll_last_error();
    }
    void TearDown() override {
        if (region)
            EXPECT_EQ(symcoll_ucx_region_unmap(ucx, region), SYMCOLL_SUCCESS)
                << symcoll_last_error();
    }
    void barrier() {
        ASSERT_EQ(symcoll_ucx_barrier(ucx), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
};

// Odd sizes at odd offsets, one after the other in the window.
const size_t kSizes[] = {1, 7, 4096 + 3, (1u << 20) + 1};
size_t offset_of(int index) {
    size_t offset = 3;
    for (int i = 0; i < index; i++)
        offset += kSizes[i] + 5;
    return offset;
}

TEST(UcxLibrary, AbsentLibraryIsUnsupportedAndSaysWhatToInstall) {
    symcoll_ucx_lib_t lib;
    EXPECT_EQ(symcoll_ucx_lib_open("libucp-absent-for-symcoll-tests.so.0", &lib),
              SYMCOLL_ERROR_UNSUPPORTED);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("libucp-absent-for-symcoll-tests.so.0"), std::string::npos) << why;
    EXPECT_NE(why.find("apt-get install libucx0"), std::string::npos) << why;
}

TEST_F(Ucx, CapabilitiesComeFromTheContext) {
    symcoll_ucx_capabilities_t caps;
    ASSERT_EQ(symcoll_ucx_capabilities(ucx, &caps), SYMCOLL_SUCCESS);
    ASSERT_NE(caps.version, nullptr);
    EXPECT_NE(std::string(caps.version), "");
    EXPECT_TRUE(caps.memory_types & (1u << UCS_MEMORY_TYPE_HOST));
    EXPECT_EQ(caps.cuda_memory, (caps.memory_types & (1u << UCS_MEMORY_TYPE_CUDA)) != 0);
    if (rank == 0)
        std::printf("UCX %s, memory types 0x%llx, CUDA memory %s, TCP segments %s\n", caps.version,
                    (unsigned long long)caps.memory_types,
                    caps.cuda_memory ? "supported" : "not supported (staging needed)",
                    caps.tcp_segments ? "symcoll's" : "not symcoll's");
    // symcoll's TCP segments over TCP, unless the user set either size
    // (transport_ucx_user_segments); none where TCP is not among the transports.
    std::string tls = std::getenv("UCX_TLS") ? std::getenv("UCX_TLS") : "";
    bool user = std::getenv("UCX_TCP_TX_SEG_SIZE") || std::getenv("UCX_TCP_RX_SEG_SIZE");
    if (tls == "sm" || user)
        EXPECT_FALSE(caps.tcp_segments);
    if (tls == "tcp" && !user && !std::getenv("UCX_NET_DEVICES"))
        EXPECT_TRUE(caps.tcp_segments);
    // Debian's and Ubuntu's UCX are built without CUDA: the transport must know.
    if (std::getenv("SYMCOLL_TEST_UCX_WITHOUT_CUDA"))
        EXPECT_FALSE(caps.cuda_memory);
}

TEST_F(Ucx, PutsOfEverySizeLandInTheRightNeighbourAtOddOffsets) {
    std::vector<std::vector<uint8_t>> sent;
    for (int i = 0; i < 4; i++) {
        sent.push_back(data_of(rank, i, kSizes[i]));
        ASSERT_EQ(symcoll_ucx_put(ucx, region, right, offset_of(i), sent[i].data(), kSizes[i]),
                  SYMCOLL_SUCCESS)
            << symcoll_last_error();
    }
    EXPECT_EQ(symcoll_ucx_quiet(ucx), SYMCOLL_SUCCESS) << symcoll_last_error();
    barrier();
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(first_difference(window + offset_of(i), data_of(left, i, kSizes[i])), -1)
            << kSizes[i] << " bytes from PE " << left;
    // The gaps between the puts are untouched.
    EXPECT_EQ(window[offset_of(1) - 1], 0);
    EXPECT_EQ(window[offset_of(3) + kSizes[3]], 0);
}

TEST_F(Ucx, GetsReadTheRightNeighbourAtOddOffsets) {
    for (int i = 0; i < 4; i++) {
        std::vector<uint8_t> mine = data_of(rank, i, kSizes[i]);
        std::copy(mine.begin(), mine.end(), window + offset_of(i));
    }
    barrier();
    std::vector<std::vector<uint8_t>> got;
    for (int i = 0; i < 4; i++) {
        got.emplace_back(kSizes[i] + 2, 0xee);
        ASSERT_EQ(symcoll_ucx_get(ucx, region, right, offset_of(i), got[i].data() + 1, kSizes[i]),
                  SYMCOLL_SUCCESS)
            << symcoll_last_error();
    }
    EXPECT_EQ(symcoll_ucx_quiet(ucx), SYMCOLL_SUCCESS) << symcoll_last_error();
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(first_difference(got[i].data() + 1, data_of(right, i, kSizes[i])), -1)
            << kSizes[i] << " bytes from PE " << right;
        EXPECT_EQ(got[i].front(), 0xee);
        EXPECT_EQ(got[i].back(), 0xee);
    }
    barrier();
}

// The receiver checks the data as soon as it sees the signal, without a barrier: the signal
// must not arrive before the data. Odd rounds SET the signal to the round, even ones ADD 1.
TEST_F(Ucx, PutWithSignalDataIsThereWhenTheSignalIs) {
    constexpr size_t kSignal = 0, kData = 11, kBytes = (256u << 10) + 1;
    for (uint64_t round = 1; round <= 8; round++) {
        std::vector<uint8_t> sent = data_of(rank, (int)round, kBytes);
        bool set = round % 2 == 1;
        ASSERT_EQ(symcoll_ucx_put_signal(ucx, region, right, kData, sent.data(), kBytes, kSignal,
                                         set ? round : 1,
                                         set ? SYMCOLL_UCX_SIGNAL_SET : SYMCOLL_UCX_SIGNAL_ADD),
                  SYMCOLL_SUCCESS)
            << symcoll_last_error();
        ASSERT_EQ(symcoll_ucx_wait_signal(ucx, region, kSignal, round), SYMCOLL_SUCCESS)
            << symcoll_last_error();
        EXPECT_EQ(storage[0], round);
        EXPECT_EQ(first_difference(window + kData, data_of(left, (int)round, kBytes)), -1)
            << "round " << round << " from PE " << left;
        barrier(); // the next round overwrites this one's data
    }
}

TEST_F(Ucx, SignalsFromEveryPeerAddUp) {
    for (int pe = 0; pe < size; pe++)
        if (pe != rank)
            ASSERT_EQ(symcoll_ucx_signal(ucx, region, pe, 8, 1u << rank, SYMCOLL_UCX_SIGNAL_ADD),
                      SYMCOLL_SUCCESS)
                << symcoll_last_error();
    uint64_t others = ((1u << size) - 1) & ~(1u << rank);
    ASSERT_EQ(symcoll_ucx_wait_signal(ucx, region, 8, others), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    EXPECT_EQ(storage[1], others);
    barrier();
}

TEST_F(Ucx, TransfersOutsideTheRegionOrToAnUnconnectedPeAreRefused) {
    uint8_t byte = 1;
    EXPECT_EQ(symcoll_ucx_put(ucx, region, right, kWindowBytes, &byte, 1),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_ucx_get(ucx, region, right, kWindowBytes - 1, &byte, 2),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_ucx_put(ucx, region, rank, 0, &byte, 1), SYMCOLL_ERROR_INVALID_ARGUMENT)
        << "no endpoint to oneself";
    EXPECT_EQ(symcoll_ucx_put(ucx, region, size, 0, &byte, 1), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_ucx_signal(ucx, region, right, 4, 1, SYMCOLL_UCX_SIGNAL_ADD),
              SYMCOLL_ERROR_INVALID_ARGUMENT)
        << "unaligned signal";
    EXPECT_EQ(symcoll_ucx_wait_signal(ucx, region, kWindowBytes - 4, 1),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
}

// Over TCP a put completes only when its target progresses. PE 1 stops calling the transport
// for 3 s; PE 0's quiet must give up after the 500 ms timeout of its transport, naming PE 1.
TEST(UcxTimeout, QuietNamesAPeerThatStopsProgressing) {
    const char *tls = std::getenv("UCX_TLS");
    if (!tls || std::string(tls) != "tcp")
        GTEST_SKIP() << "run with UCX_TLS=tcp (ctest's transport_ucx_timeout): over shared "
                        "memory a put needs no progress of its target";
    ASSERT_GE(boot->size, 2);
    symcoll_ucx_t *t = nullptr;
    ASSERT_EQ(symcoll_ucx_create(boot, nullptr, 500, &t), SYMCOLL_SUCCESS) << symcoll_last_error();
    std::vector<uint64_t> storage(((1u << 20) + 8) / 8);
    symcoll_ucx_region_t *region = nullptr;
    ASSERT_EQ(symcoll_ucx_region_map(t, storage.data(), storage.size() * 8, SYMCOLL_UCX_MEMORY_HOST,
                                     &region),
              SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (boot->rank == 1) {
        std::this_thread::sleep_for(std::chrono::seconds(3));
    } else if (boot->rank == 0) {
        std::vector<uint8_t> data = data_of(0, 0, 1u << 20);
        auto start = std::chrono::steady_clock::now();
        symcoll_status_t st = symcoll_ucx_put(t, region, 1, 0, data.data(), data.size());
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_ucx_quiet(t);
        double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(st, SYMCOLL_ERROR_TIMEOUT) << symcoll_last_error();
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("to PE 1 did not complete in 500 ms"), std::string::npos) << why;
        EXPECT_GE(waited, 0.45);
        EXPECT_LT(waited, 2.5);
        // data stays alive until the transport is gone: the put may still be in flight.
        EXPECT_EQ(symcoll_ucx_destroy(t, 1), SYMCOLL_SUCCESS) << symcoll_last_error();
        t = nullptr;
    }
    if (t)
        EXPECT_EQ(symcoll_ucx_destroy(t, 1), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(boot->barrier(boot), SYMCOLL_SUCCESS) << symcoll_last_error();
}

} // namespace

int main(int argc, char **argv) {
    return run_ucx_tests(argc, argv, kTimeoutMs, &boot, &ucx);
}
