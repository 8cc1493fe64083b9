// --op moe's routing and its CPU reference: the draw is the same every time and on every PE,
// each token picks top-k distinct experts, --skew makes the same experts popular everywhere;
// the expert-major layout aligns its groups as symcoll_moe_dispatch_on_stream does; the
// capacity fits the fullest PE; and the check finds a misplaced token, touched padding, wrong
// counts and a token that did not come back.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "check.h"
#include "moe_check.h"

namespace {

struct Routing {
    std::vector<size_t> sent;
    perf_moe_routing_t r;
    Routing(int npes, int experts, int topk, size_t tokens, double skew)
        : sent((size_t)npes * npes * experts), r{npes, experts, topk, tokens, skew, nullptr} {
        r.sent = sent.data();
        perf_moe_route(&r, PERF_MOE_SEED);
    }
    int n_experts() const {
        return r.npes * r.experts;
    }
};

TEST(PerfMoe, RoutingIsTheSameOnEveryDrawAndDependsOnTheSeed) {
    Routing a(4, 8, 2, 1000, 0), b(4, 8, 2, 1000, 0);
    EXPECT_EQ(a.sent, b.sent);
    std::vector<size_t> other(a.sent.size());
    perf_moe_routing_t r = a.r;
    r.sent = other.data();
    perf_moe_route(&r, PERF_MOE_SEED + 1);
    EXPECT_NE(a.sent, other);
}

TEST(PerfMoe, EveryTokenPicksTopkDistinctExperts) {
    for (double skew : {0.0, 1.2, 4.0}) {
        for (int topk : {1, 2, 8, 16}) {
            Routing x(2, 8, topk, 500, skew);
            for (int i = 0; i < 2; i++) {
                size_t row = 0;
                for (int g = 0; g < x.n_experts(); g++) {
                    size_t s = perf_moe_sent(&x.r, i, g);
                    EXPECT_LE(s, 500u) << "an expert gets a token at most once";
                    row += s;
                }
                EXPECT_EQ(row, 500u * topk) << "skew " << skew << " topk " << topk;
            }
            if (topk == 16) { // every expert, whatever the skew
                for (int g = 0; g < x.n_experts(); g++)
                    EXPECT_EQ(perf_moe_sent(&x.r, 0, g), 500u);
            }
        }
    }
}

// Uniform routing spreads evenly; Zipf routing loads the same experts on every PE.
TEST(PerfMoe, SkewMakesTheSameExpertsPopularOnEveryPe) {
    Routing uniform(4, 4, 2, 4000, 0);
    for (int g = 0; g < uniform.n_experts(); g++) {
        double share = (double)perf_moe_sent(&uniform.r, 1, g) / 8000;
        EXPECT_NEAR(share, 1.0 / 16, 0.02) << g;
    }
    Routing skewed(4, 4, 2, 4000, 1.5);
    auto busiest = [&](int i) {
        int best = 0;
        for (int g = 1; g < skewed.n_experts(); g++)
            if (perf_moe_sent(&skewed.r, i, g) > perf_moe_sent(&skewed.r, i, best))
                best = g;
        return best;
    };
    for (int i = 1; i < 4; i++)
        EXPECT_EQ(busiest(i), busiest(0)) << "PE " << i;
    EXPECT_GT(perf_moe_sent(&skewed.r, 0, busiest(0)), 4000u / 2);
}

TEST(PerfMoe, SrcOffsetsPackTheTokensInExpertOrder) {
    Routing x(3, 2, 2, 100, 0.8);
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(perf_moe_src_offset(&x.r, i, 0), 0u);
        for (int g = 1; g <= x.n_experts(); g++)
            EXPECT_EQ(perf_moe_src_offset(&x.r, i, g),
                      perf_moe_src_offset(&x.r, i, g - 1) + perf_moe_sent(&x.r, i, g - 1));
    }
}

// Two PEs, two experts each: received[i * 2 + e].
TEST(PerfMoe, LayoutGroupsByExpertThenSourceWithAlignment) {
    const size_t received[4] = {3, 0, 2, 0}; // expert 1 receives nothing
    size_t offsets[4];
    EXPECT_EQ(perf_moe_layout(received, 2, 2, 1, offsets), 5u);
    EXPECT_EQ(std::vector<size_t>(offsets, offsets + 4), (std::vector<size_t>{0, 5, 3, 5}));
    EXPECT_EQ(perf_moe_layout(received, 2, 2, 4, offsets), 12u) << "8 for group 0, 4 empty";
    EXPECT_EQ(std::vector<size_t>(offsets, offsets + 4), (std::vector<size_t>{0, 8, 3, 8}));
    const size_t exact[4] = {4, 1, 4, 3};
    EXPECT_EQ(perf_moe_layout(exact, 2, 2, 4, offsets), 12u);
    EXPECT_EQ(std::vector<size_t>(offsets, offsets + 4), (std::vector<size_t>{0, 8, 4, 9}));
}

TEST(PerfMoe, DispatchCapacityIsTheFullestPesAlignedLayout) {
    for (size_t align : {1, 16}) {
        Routing x(4, 3, 2, 300, 1.1);
        size_t received[PERF_MOE_MAX_EXPERTS], offsets[PERF_MOE_MAX_EXPERTS], most = 0;
        for (int j = 0; j < 4; j++) {
            perf_moe_received(&x.r, j, received);
            for (int i = 0; i < 4; i++)
                for (int e = 0; e < 3; e++)
                    EXPECT_EQ(received[i * 3 + e], perf_moe_sent(&x.r, i, j * 3 + e));
            size_t length = perf_moe_layout(received, 4, 3, align, offsets);
            EXPECT_EQ(length % align, 0u);
            most = std::max(most, length);
        }
        EXPECT_EQ(perf_moe_dispatch_capacity(&x.r, align), most);
    }
}

// PE me's dispatch dst as the reference lays it out, built independently of perf_moe_layout.
std::vector<uint8_t> expected_dst(const perf_moe_case_t &c, int me, size_t bytes) {
    const perf_moe_routing_t *r = c.routing;
    std::vector<uint8_t> dst(bytes, 0xa5);
    size_t start = 0;
    for (int e = 0; e < r->experts; e++) {
        size_t at = start;
        for (int i = 0; i < r->npes; i++) {
            int g = me * r->experts + e;
            size_t from = perf_moe_src_offset(r, i, g) * c.hidden;
            for (size_t b = 0; b < perf_moe_sent(r, i, g) * c.hidden; b++)
                dst[at * c.hidden + b] = perf_check_byte(c.seed, i, from + b);
            at += perf_moe_sent(r, i, g);
        }
        size_t length = at - start;
        start += c.align > 1 && length == 0 ? c.align : (length + c.align - 1) / c.align * c.align;
    }
    return dst;
}

TEST(PerfMoe, CheckFindsMisplacedTokensAndTouchedPadding) {
    Routing x(3, 2, 2, 40, 0.7);
    perf_moe_case_t c{&x.r, 6, 4, 99};
    const size_t bytes = perf_moe_dispatch_capacity(&x.r, c.align) * c.hidden + 10;
    for (int me = 0; me < 3; me++) {
        std::vector<uint8_t> dst = expected_dst(c, me, bytes);
        EXPECT_EQ(perf_moe_dispatch_wrong(&c, me, dst.data(), bytes, 0xa5), 0u) << me;
        dst[c.hidden] ^= 1; // inside the first token or its padding: wrong either way
        EXPECT_EQ(perf_moe_dispatch_wrong(&c, me, dst.data(), bytes, 0xa5), 1u) << me;
        dst[c.hidden] ^= 1;
        dst[bytes - 1] = 0;
        EXPECT_EQ(perf_moe_dispatch_wrong(&c, me, dst.data(), bytes, 0xa5), 1u) << "past the end";
    }
}

TEST(PerfMoe, CheckComparesCountsAndOffsetsInElementsExpertMajor) {
    Routing x(2, 3, 2, 50, 0);
    perf_moe_case_t c{&x.r, 8, 2, 1};
    const int me = 1, n = 2, experts = 3;
    size_t received[6], offsets[6], counts[6], at[6];
    perf_moe_received(&x.r, me, received);
    perf_moe_layout(received, n, experts, c.align, offsets);
    for (int e = 0; e < experts; e++)
        for (int i = 0; i < n; i++) {
            counts[e * n + i] = received[i * experts + e] * c.hidden;
            at[e * n + i] = offsets[i * experts + e] * c.hidden;
        }
    EXPECT_EQ(perf_moe_counts_wrong(&c, me, counts, at), 0u);
    at[5] += 1;
    counts[0] += 1;
    EXPECT_EQ(perf_moe_counts_wrong(&c, me, counts, at), 2u);
}

TEST(PerfMoe, CombineMustReturnEveryTokenToItsPlace) {
    Routing x(2, 2, 1, 30, 0);
    perf_moe_case_t c{&x.r, 5, 1, 7};
    std::vector<uint8_t> src(perf_moe_src_bytes(&c));
    EXPECT_EQ(src.size(), 30u * 5);
    perf_moe_fill(&c, 1, src.data());
    EXPECT_EQ(perf_moe_combine_wrong(&c, 1, src.data()), 0u);
    EXPECT_GT(perf_moe_combine_wrong(&c, 0, src.data()), src.size() / 2)
        << "another PE's tokens differ";
    std::swap(src[0], src[5]);
    EXPECT_GE(perf_moe_combine_wrong(&c, 1, src.data()), 1u);
}

} // namespace
