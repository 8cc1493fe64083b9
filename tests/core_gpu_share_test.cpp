// The share rule on faked drivers' reports: PEs that share a GPU get grids whose blocks can all
// be resident at once; MPS shares that add up to at most the GPU are kept as they are.
#include <cstring>
#include <vector>
#include <gtest/gtest.h>
#include "gpu_share.h"

namespace {

symcoll_gpu_record_t record(int gpu, int sms, double percent, bool mps) {
    symcoll_gpu_record_t r{};
    std::memset(r.gpu, 0, sizeof r.gpu);
    r.gpu[0] = (unsigned char)gpu;
    r.gpu[15] = 0xa5;
    r.sms = sms;
    r.percent_x100 = (int32_t)(percent * 100 + 0.5);
    r.mps = mps;
    return r;
}

symcoll_gpu_sharing_t plan(const std::vector<symcoll_gpu_record_t> &all, int me) {
    symcoll_gpu_sharing_t s{};
    symcoll_gpu_share_plan(all.data(), (int)all.size(), me, &s);
    return s;
}

TEST(GpuShare, OnePePerGpuKeepsTheWholeGpu) {
    std::vector<symcoll_gpu_record_t> all = {record(0, 132, 100, false),
                                             record(1, 132, 100, false)};
    for (int me : {0, 1}) {
        symcoll_gpu_sharing_t s = plan(all, me);
        EXPECT_EQ(s.sm_share, 132);
        EXPECT_EQ(s.device_sms, 132);
        EXPECT_EQ(s.pes_on_gpu, 1);
        EXPECT_EQ(s.divided, 0);
    }
}

// What an H200 reports under MPS: 25 % gives 32 SMs (whole TPCs), 12.5 % gives 16.
TEST(GpuShare, MpsSharesWithinTheGpuAreKept) {
    std::vector<symcoll_gpu_record_t> four(4, record(0, 32, 25, true));
    symcoll_gpu_sharing_t s = plan(four, 3);
    EXPECT_EQ(s.sm_share, 32);
    EXPECT_EQ(s.pes_on_gpu, 4);
    EXPECT_EQ(s.mps, 1);
    EXPECT_EQ(s.divided, 0);
    std::vector<symcoll_gpu_record_t> eight(8, record(0, 16, 12.5, true));
    EXPECT_EQ(plan(eight, 5).sm_share, 16);
    EXPECT_EQ(plan(eight, 5).divided, 0);
}

// The 4-PE job with no MPS limit: each PE sees the whole GPU, so the library divides it.
TEST(GpuShare, SharesOverTheGpuAreDividedSoThatEveryBlockFits) {
    for (int n : {2, 3, 4, 8}) {
        std::vector<symcoll_gpu_record_t> all(n, record(0, 132, 100, true));
        int total = 0;
        for (int me = 0; me < n; me++) {
            symcoll_gpu_sharing_t s = plan(all, me);
            EXPECT_EQ(s.divided, 1);
            EXPECT_EQ(s.device_sms, 132);
            EXPECT_EQ(s.sm_share, 132 / n / SYMCOLL_GPU_SHARE_KERNELS_IN_FLIGHT) << n << " PEs";
            total += s.sm_share * SYMCOLL_GPU_SHARE_KERNELS_IN_FLIGHT;
        }
        EXPECT_LE(total, 132) << n << " PEs, each with its kernels in flight";
    }
}

TEST(GpuShare, MixedSharesAreDividedInProportion) {
    std::vector<symcoll_gpu_record_t> all = {record(0, 66, 50, true), record(0, 132, 100, true)};
    symcoll_gpu_sharing_t small = plan(all, 0), large = plan(all, 1);
    EXPECT_EQ(small.divided, 1);
    EXPECT_EQ(small.sm_share, 22);
    EXPECT_EQ(large.sm_share, 44);
    EXPECT_LE((small.sm_share + large.sm_share) * SYMCOLL_GPU_SHARE_KERNELS_IN_FLIGHT, 132);
}

TEST(GpuShare, TimeSlicedPesAreSeenAsSharingWithoutMps) {
    std::vector<symcoll_gpu_record_t> all(2, record(0, 132, 100, false));
    symcoll_gpu_sharing_t s = plan(all, 1);
    EXPECT_EQ(s.pes_on_gpu, 2);
    EXPECT_EQ(s.mps, 0);
    EXPECT_EQ(s.sm_share, 33);
}

TEST(GpuShare, OnlyThePesOfMyGpuCount) {
    std::vector<symcoll_gpu_record_t> all = {record(0, 132, 100, true), record(0, 132, 100, true),
                                             record(1, 132, 100, false)};
    EXPECT_EQ(plan(all, 0).pes_on_gpu, 2);
    EXPECT_EQ(plan(all, 0).sm_share, 33);
    EXPECT_EQ(plan(all, 2).pes_on_gpu, 1);
    EXPECT_EQ(plan(all, 2).sm_share, 132);
}

} // namespace
