// symcoll-perf on a shared GPU: the SAME links of a topology text that make every mode report
// NCCL n/a, and the header line that names the SM share the library sizes its grids to.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu_sharing.h"

namespace {

std::string sharing_line(const symcoll_gpu_sharing_t &s) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    perf_print_gpu_sharing(f, &s);
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
}

TEST(PerfGpuSharing, AGpuPerPeIsNotShared) {
    EXPECT_FALSE(perf_pes_share_gpu("3\nX NV18 PIX\nNV18 X NV18\nPIX NV18 X\n"));
    EXPECT_FALSE(perf_pes_share_gpu("1\nX\n"));
}

TEST(PerfGpuSharing, AnySameLinkIsShared) {
    EXPECT_TRUE(perf_pes_share_gpu("4\nX NV18 NV18 NV18\nNV18 X NV18 SAME\nNV18 NV18 X NV18\n"
                                   "NV18 SAME NV18 X\n"));
}

TEST(PerfGpuSharing, HeaderLineNamesPesShareAndMps) {
    EXPECT_EQ(sharing_line({66, 132, 2, 1, 0}),
              "# gpu sharing: 2 PEs on this GPU, SM share 66 of 132, MPS\n");
    EXPECT_EQ(sharing_line({44, 132, 4, 1, 1}),
              "# gpu sharing: 4 PEs on this GPU, SM share 44 of 132, MPS, divided\n");
    EXPECT_EQ(sharing_line({132, 132, 2, 0, 0}),
              "# gpu sharing: 2 PEs on this GPU, SM share 132 of 132, time-sliced\n");
    EXPECT_EQ(sharing_line({132, 132, 1, 0, 0}),
              "# gpu sharing: 1 PE on this GPU, SM share 132 of 132\n");
}

} // namespace
