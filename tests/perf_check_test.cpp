// The check's data and CPU reference: the result of each collective, assembled here from every
// PE's source independently of check.c, counts as right; any change to it counts as wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

using Bytes = std::vector<unsigned char>;

size_t elem(const perf_call_t &c) {
    return symcoll_datatype_size(c.type);
}

std::vector<Bytes> sources(const perf_call_t &c, uint64_t seed, int npes) {
    std::vector<Bytes> src(npes, Bytes(perf_op_src_bytes(c.op, c.count, elem(c), npes)));
    for (int pe = 0; pe < npes; pe++) {
        perf_check_fill(src[pe].data(), &c, seed, pe, npes);
    }
    return src;
}

// What PE me's destination must hold after a data-moving collective.
Bytes moved(const perf_call_t &c, const std::vector<Bytes> &src, int me) {
    int npes = (int)src.size();
    size_t block = c.count * elem(c);
    Bytes dst(perf_op_dst_bytes(c.op, c.count, elem(c), npes));
    for (int p = 0; p < npes; p++) {
        switch (c.op) {
        case PERF_OP_BROADCAST:
            dst = src[c.root];
            break;
        case PERF_OP_FCOLLECT:
            memcpy(dst.data() + p * block, src[p].data(), block);
            break;
        default: // alltoall
            memcpy(dst.data() + p * block, src[p].data() + me * block, block);
            break;
        }
    }
    return dst;
}

perf_call_t call(perf_op_t op, symcoll_datatype_t type, size_t count, int root = 0,
                 symcoll_op_t redop = SYMCOLL_SUM) {
    perf_call_t c{};
    c.op = op;
    c.type = type;
    c.redop = redop;
    c.root = root;
    c.count = count;
    return c;
}

TEST(PerfCheck, HalfPrecisionRoundsToNearestEven) {
    EXPECT_EQ(perf_float_to_half(0.0f), 0x0000);
    EXPECT_EQ(perf_float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(perf_float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(perf_float_to_half(3.0f), 0x4200);
    EXPECT_EQ(perf_float_to_half(-64.0f), 0xd400);
    EXPECT_EQ(perf_float_to_half(65504.0f), 0x7bff);
    EXPECT_EQ(perf_float_to_half(65536.0f), 0x7c00);
    EXPECT_EQ(perf_float_to_half(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
    EXPECT_EQ(perf_float_to_half(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
    EXPECT_EQ(perf_float_to_half(std::ldexp(1.0f, -26)), 0x0000);
    EXPECT_EQ(perf_float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);     // tie: even
    EXPECT_EQ(perf_float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02); // tie: even
    EXPECT_EQ(perf_float_to_half(1.0f + std::ldexp(1.0f, -10)), 0x3c01);
    EXPECT_EQ(perf_float_to_half(INFINITY), 0x7c00);
    EXPECT_EQ(perf_float_to_half(NAN) & 0x7c00, 0x7c00);
    EXPECT_NE(perf_float_to_half(NAN) & 0x03ff, 0);
}

TEST(PerfCheck, BFloat16RoundsToNearestEven) {
    EXPECT_EQ(perf_float_to_bfloat16(1.0f), 0x3f80);
    EXPECT_EQ(perf_float_to_bfloat16(3.0f), 0x4040);
    EXPECT_EQ(perf_float_to_bfloat16(-64.0f), 0xc280);
    EXPECT_EQ(perf_float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);     // tie: even
    EXPECT_EQ(perf_float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82); // tie: even
    EXPECT_EQ(perf_float_to_bfloat16(NAN) & 0x7f80, 0x7f80);
    EXPECT_NE(perf_float_to_bfloat16(NAN) & 0x007f, 0);
}

TEST(PerfCheck, DataIsFreshPerRoundAndPerPE) {
    perf_call_t c = call(PERF_OP_BROADCAST, SYMCOLL_INT32, 64);
    std::vector<Bytes> a = sources(c, 1, 2), b = sources(c, 2, 2);
    EXPECT_NE(a[0], a[1]);
    EXPECT_NE(a[0], b[0]);
}

TEST(PerfCheck, DataMovingCollectives) {
    for (int npes : {1, 2, 3, 8}) {
        for (symcoll_datatype_t type :
             {SYMCOLL_INT8, SYMCOLL_FLOAT16, SYMCOLL_FLOAT32, SYMCOLL_UINT64}) {
            for (perf_op_t op : {PERF_OP_BROADCAST, PERF_OP_FCOLLECT, PERF_OP_ALLTOALL}) {
                perf_call_t c = call(op, type, 37, npes - 1);
                std::vector<Bytes> src = sources(c, 7, npes);
                for (int me = 0; me < npes; me++) {
                    Bytes dst = moved(c, src, me);
                    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 7, me, npes), 0u)
                        << perf_op_info(op)->name << " type " << type << " npes " << npes;
                    dst[dst.size() - 1] ^= 0x10; // one bit of the last element
                    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 7, me, npes), 1u);
                    EXPECT_GT(perf_check_count_wrong(dst.data(), &c, 8, me, npes), 0u)
                        << "another round's data must not pass";
                }
            }
        }
    }
}

TEST(PerfCheck, PoisonedDestinationIsAllWrong) {
    perf_call_t c = call(PERF_OP_FCOLLECT, SYMCOLL_FLOAT32, 100);
    Bytes dst(perf_op_dst_bytes(c.op, c.count, 4, 2), 0xa5);
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 3, 0, 2), 200u);
}

TEST(PerfCheck, AlltoallBlocksInTheWrongPlaceAreWrong) {
    perf_call_t c = call(PERF_OP_ALLTOALL, SYMCOLL_INT32, 5);
    std::vector<Bytes> src = sources(c, 11, 3);
    Bytes dst = moved(c, src, 1);
    std::swap_ranges(dst.begin(), dst.begin() + 20, dst.begin() + 20); // blocks 0 and 1
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 11, 1, 3), 10u);
}

// alltoallv on a skewed matrix: my dst holds, for each source p in order, the run of p's src
// that starts after what p sends to lower PEs.
TEST(PerfCheck, AlltoallvSegmentsInSourceOrder) {
    for (int npes : {1, 2, 3, 8}) {
        std::vector<size_t> m((size_t)npes * npes);
        perf_counts_t counts{};
        counts.npes = npes;
        counts.matrix = m.data();
        perf_counts_draw(&counts, 9, 1.3, PERF_COUNTS_SEED);
        perf_call_t c = call(PERF_OP_ALLTOALLV, SYMCOLL_UINT8, 9);
        c.counts = &counts;
        std::vector<Bytes> src = sources(c, 17, npes);
        for (int me = 0; me < npes; me++) {
            Bytes dst(perf_call_dst_bytes(&c, npes), 0xa5);
            size_t at = 0;
            for (int p = 0; p < npes; p++) {
                size_t from = 0;
                for (int k = 0; k < me; k++)
                    from += m[(size_t)p * npes + k];
                size_t n = m[(size_t)p * npes + me];
                memcpy(dst.data() + at, src[p].data() + from, n);
                at += n;
            }
            EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 17, me, npes), 0u) << npes << me;
            if (at > 0) {
                dst[at - 1] ^= 1;
                EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 17, me, npes), 1u);
            }
        }
    }
}

template <typename T> T load(const Bytes &b, size_t i) {
    T v;
    memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
    return v;
}
template <typename T> void store(Bytes &b, size_t i, T v) {
    memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
}
// Element i of every PE's source (read as T), combined in PE order starting from init.
template <typename T, typename A, typename F>
A fold(const std::vector<Bytes> &src, size_t i, A init, F combine) {
    for (const Bytes &s : src)
        init = combine(init, load<T>(s, i));
    return init;
}

TEST(PerfCheck, Float32Sum) {
    const int npes = 5;
    perf_call_t c = call(PERF_OP_REDUCE, SYMCOLL_FLOAT32, 1000);
    std::vector<Bytes> src = sources(c, 21, npes);
    Bytes dst(4000);
    for (size_t i = 0; i < 1000; i++) {
        store<float>(dst, i, fold<float>(src, i, 0.0f, [](float sum, float v) {
                         EXPECT_EQ(v, std::floor(v)) << "sums must be exact";
                         return sum + v;
                     }));
    }
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 21, 3, npes), 0u);
    store<float>(dst, 999, load<float>(dst, 999) + 1);
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 21, 3, npes), 1u);
}

TEST(PerfCheck, BFloat16SumAccumulatesExactly) {
    const int npes = 8;
    perf_call_t c = call(PERF_OP_REDUCE, SYMCOLL_BFLOAT16, 300);
    std::vector<Bytes> src = sources(c, 5, npes);
    Bytes dst(600);
    for (size_t i = 0; i < 300; i++) {
        float sum = fold<uint16_t>(src, i, 0.0f, [](float acc, uint16_t bf16) {
            uint32_t bits = (uint32_t)bf16 << 16;
            float v;
            memcpy(&v, &bits, 4);
            return acc + v;
        });
        store<uint16_t>(dst, i, perf_float_to_bfloat16(sum));
    }
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 5, 0, npes), 0u);
}

TEST(PerfCheck, Int8MinIsSigned) {
    const int npes = 4;
    perf_call_t c = call(PERF_OP_REDUCE, SYMCOLL_INT8, 512, 0, SYMCOLL_MIN);
    std::vector<Bytes> src = sources(c, 9, npes);
    Bytes dst(512);
    bool saw_negative = false;
    for (size_t i = 0; i < 512; i++) {
        int8_t m = fold<int8_t>(src, i, (int8_t)INT8_MAX,
                                [](int8_t a, int8_t b) { return std::min(a, b); });
        saw_negative |= m < 0;
        store<int8_t>(dst, i, m);
    }
    EXPECT_TRUE(saw_negative);
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 9, 0, npes), 0u);
}

TEST(PerfCheck, Uint8ProdWrapsAround) {
    const int npes = 9; // 2^9 wraps to 0 in 8 bits
    perf_call_t c = call(PERF_OP_REDUCE, SYMCOLL_UINT8, 4096, 0, SYMCOLL_PROD);
    std::vector<Bytes> src = sources(c, 4, npes);
    Bytes dst(4096);
    for (size_t i = 0; i < 4096; i++) {
        dst[i] =
            (unsigned char)fold<uint8_t>(src, i, 1u, [](unsigned a, uint8_t b) { return a * b; });
    }
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &c, 4, 0, npes), 0u);
}

TEST(PerfCheck, Uint64XorAndFloat16Max) {
    const int npes = 3;
    perf_call_t x = call(PERF_OP_REDUCE, SYMCOLL_UINT64, 64, 0, SYMCOLL_XOR);
    std::vector<Bytes> src = sources(x, 13, npes);
    Bytes dst(512);
    for (size_t i = 0; i < 64; i++) {
        store<uint64_t>(dst, i, fold<uint64_t>(src, i, (uint64_t)0, [](uint64_t a, uint64_t b) {
                            return a ^ b;
                        }));
    }
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &x, 13, 2, npes), 0u);

    perf_call_t h = call(PERF_OP_REDUCE, SYMCOLL_FLOAT16, 64, 0, SYMCOLL_MAX);
    src = sources(h, 14, npes);
    dst.assign(128, 0);
    for (size_t i = 0; i < 64; i++) {
        // Values are small integers, so their half-precision order is that of the integers.
        float best = fold<uint16_t>(src, i, -1e9f, [](float acc, uint16_t bits) {
            for (int v = -64; v < 64; v++) {
                if (perf_float_to_half((float)v) == bits) {
                    acc = std::max(acc, (float)v);
                }
            }
            return acc;
        });
        store<uint16_t>(dst, i, perf_float_to_half(best));
    }
    EXPECT_EQ(perf_check_count_wrong(dst.data(), &h, 14, 0, npes), 0u);
}

} // namespace
