// symcoll-perf reads the job's links from symcoll_topology_text's public form itself: the PE
// count, the PEs on one GPU, and the text printed as is under a prefix.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "topology_text.h"

namespace {

std::string printed(const char *text, const char *prefix) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    perf_print_topology(f, text, prefix);
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
}

TEST(PerfTopologyText, PeCountIsTheFirstWord) {
    EXPECT_EQ(perf_topology_n_pes("2\nX NV18\nNV18 X\n"), 2);
    EXPECT_EQ(perf_topology_n_pes("  3 X NV2 PIX NV2 X - PIX - X"), 3) << "any white space";
    EXPECT_EQ(perf_topology_n_pes("64\n"), 64);
    for (const char *bad : {"", "\n", "0\n", "65\n", "-1\n", "2x\n", "X NV18\n"}) {
        EXPECT_EQ(perf_topology_n_pes(bad), 0) << bad;
    }
}

TEST(PerfTopologyText, AGpuPerPe) {
    EXPECT_EQ(perf_topology_pes_per_gpu("3\nX NV18 PIX\nNV18 X NV18\nPIX NV18 X\n"), 1);
    EXPECT_EQ(perf_topology_pes_per_gpu("1\nX\n"), 1);
    EXPECT_EQ(perf_topology_pes_per_gpu(""), 1);
}

TEST(PerfTopologyText, CountsTheFullestGpu) {
    // PEs 1 and 3 on one GPU.
    EXPECT_EQ(perf_topology_pes_per_gpu("4\nX NV18 NV18 NV18\nNV18 X NV18 SAME\nNV18 NV18 X NV18\n"
                                        "NV18 SAME NV18 X\n"),
              2);
    // PEs 0-2 on one GPU, PE 3 on another; the rows need not be lines.
    EXPECT_EQ(perf_topology_pes_per_gpu("4 X SAME SAME NV18 SAME X SAME NV18 SAME SAME X NV18 "
                                        "NV18 NV18 NV18 X"),
              3);
}

TEST(PerfTopologyText, PrintedAsIsUnderThePrefix) {
    EXPECT_EQ(printed("2\nX NV18\nNV18 X\n", "#   "), "#   2\n#   X NV18\n#   NV18 X\n");
    EXPECT_EQ(printed("1\nX", ""), "1\nX\n") << "a last line without its newline";
    EXPECT_EQ(printed("", "# "), "");
}

} // namespace
