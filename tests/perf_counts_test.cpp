// alltoallv's count matrix in symcoll-perf: rows that add up to what alltoall sends, the same
// matrix from the same seed, Zipf's shape, and the offsets and received counts the check expects.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "alltoallv_counts.h"
#include "check.h"

namespace {

struct Matrix {
    std::vector<size_t> m;
    perf_counts_t c{};
    explicit Matrix(int npes) : m((size_t)npes * npes) {
        c.npes = npes;
        c.matrix = m.data();
    }
    size_t at(int from, int to) const {
        return m[(size_t)from * c.npes + to];
    }
};

TEST(PerfCounts, UniformIsAlltoall) {
    for (int npes : {1, 2, 3, 8}) {
        Matrix x(npes);
        perf_counts_draw(&x.c, 37, 0, PERF_COUNTS_SEED);
        for (int from = 0; from < npes; from++)
            for (int to = 0; to < npes; to++)
                EXPECT_EQ(x.at(from, to), 37u);
        // Every PE's dst is alltoall's at this count.
        EXPECT_EQ(x.c.capacity * 4, perf_op_dst_bytes(PERF_OP_ALLTOALLV, 37, 4, npes));
        EXPECT_EQ(perf_op_dst_bytes(PERF_OP_ALLTOALLV, 37, 4, npes),
                  perf_op_dst_bytes(PERF_OP_ALLTOALL, 37, 4, npes));
        EXPECT_EQ(perf_counts_send_offset(&x.c, 0, npes - 1), 37u * (npes - 1));
        EXPECT_EQ(perf_counts_recv_offset(&x.c, npes - 1, 0), 37u * (npes - 1));
    }
}

TEST(PerfCounts, SkewedRowsAddUpExactly) {
    for (int npes : {1, 2, 5, 8, 64}) {
        for (double skew : {0.3, 1.0, 1.2, 4.0, 1e6}) {
            for (size_t count : {1u, 3u, 1000u, 4194304u}) {
                Matrix x(npes);
                perf_counts_draw(&x.c, count, skew, PERF_COUNTS_SEED);
                size_t most = 0;
                for (int from = 0; from < npes; from++) {
                    size_t row = 0;
                    for (int to = 0; to < npes; to++)
                        row += x.at(from, to);
                    EXPECT_EQ(row, count * npes) << npes << " " << skew << " " << count;
                    most = std::max(most, perf_counts_received(&x.c, from));
                }
                EXPECT_EQ(x.c.capacity, most);
            }
        }
    }
}

TEST(PerfCounts, SkewFollowsZipfByAPermutedRank) {
    const int npes = 8;
    Matrix x(npes);
    perf_counts_draw(&x.c, 1 << 20, 1.0, PERF_COUNTS_SEED);
    double harmonic = 0;
    for (int r = 1; r <= npes; r++)
        harmonic += 1.0 / r;
    std::vector<int> top(npes);
    for (int from = 0; from < npes; from++) {
        std::vector<size_t> row(x.m.begin() + from * npes, x.m.begin() + (from + 1) * npes);
        std::sort(row.rbegin(), row.rend());
        for (int r = 0; r < npes; r++) // within the rounding of one element
            EXPECT_NEAR((double)row[r], (double)(npes << 20) / harmonic / (r + 1), 1.0);
        top[from] =
            (int)(std::max_element(x.m.begin() + from * npes, x.m.begin() + (from + 1) * npes) -
                  (x.m.begin() + from * npes));
    }
    EXPECT_LT(std::count(top.begin(), top.end(), top[0]), npes)
        << "each source draws its own permutation";
}

TEST(PerfCounts, TheSameMatrixFromTheSameSeed) {
    Matrix a(6), b(6), c(6), d(6);
    perf_counts_draw(&a.c, 999, 1.5, PERF_COUNTS_SEED);
    perf_counts_draw(&b.c, 999, 1.5, PERF_COUNTS_SEED);
    perf_counts_draw(&c.c, 999, 1.5, PERF_COUNTS_SEED + 1);
    perf_counts_draw(&d.c, 1000, 1.5, PERF_COUNTS_SEED);
    EXPECT_EQ(a.m, b.m);
    EXPECT_NE(a.m, c.m);
    EXPECT_NE(a.m, d.m) << "each size draws its own";
    EXPECT_EQ(a.c.capacity, b.c.capacity);
}

TEST(PerfCounts, ReceivedCountsAndOffsetsAsTheCallWritesThem) {
    Matrix x(3);
    x.m = {1, 2, 3, 4, 0, 6, 7, 8, 0};
    x.c.matrix = x.m.data();
    EXPECT_EQ(perf_counts_received(&x.c, 2), 9u);
    EXPECT_EQ(perf_counts_send_offset(&x.c, 1, 2), 4u);
    size_t counts[3] = {3, 6, 0}, offsets[3] = {0, 3, 9};
    EXPECT_EQ(perf_counts_wrong(&x.c, 2, counts, offsets), 0u);
    offsets[2] = 8;
    counts[0] = 2;
    EXPECT_EQ(perf_counts_wrong(&x.c, 2, counts, offsets), 2u);
}

} // namespace
