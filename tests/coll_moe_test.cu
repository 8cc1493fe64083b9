// The expert-grouped dispatch and combine against a CPU reference: every PE draws the same
// matrix of counts (PE x expert, zeros included) from the case seed and its own data; dst is
// poisoned first, so the padding between aligned groups and the bytes past the end must keep
// the poison. Every algorithm, several expert counts and alignments, the round trip back to
// the original data, and a captured dispatch + combine replayed with new counts.
#include <algorithm>
#include <string>
#include "coll_testing.h"

using namespace coll_testing;

namespace {

constexpr size_t kTail = 256;
constexpr size_t kElem = 4;          // float32
constexpr size_t kMaxSegments = 512; // team size x n_experts, as symcoll.h documents

// C[i][g]: elements from PE i to expert g, for n PEs of `experts` experts each.
struct Routing {
    int n, experts;
    size_t align;
    std::vector<size_t> c;
    size_t at(int i, int g) const {
        return c[(size_t)i * n * experts + g];
    }
    size_t row(int i) const {
        size_t s = 0;
        for (int g = 0; g < n * experts; g++)
            s += at(i, g);
        return s;
    }
    // Where this PE's send to expert g starts in its src.
    size_t src_offset(int i, int g) const {
        size_t s = 0;
        for (int k = 0; k < g; k++)
            s += at(i, k);
        return s;
    }
};

Routing random_routing(int n, int experts, size_t align, uint64_t seed, size_t max_count) {
    Routing r{n, experts, align, std::vector<size_t>((size_t)n * n * experts)};
    for (size_t k = 0; k < r.c.size(); k++) {
        uint64_t x = mix(seed, k + 1000);
        r.c[k] = x % 4 == 0 ? 0 : (size_t)(x >> 8) % (max_count + 1);
    }
    return r;
}

// PE j's dispatch layout: segment [e * n + i] (what PE i sends to j's expert e) and the end of
// the last group.
struct Layout {
    std::vector<size_t> count, offset;
    size_t end = 0;
};

Layout layout_of(const Routing &r, int j) {
    Layout l{std::vector<size_t>((size_t)r.n * r.experts),
             std::vector<size_t>((size_t)r.n * r.experts)};
    size_t start = 0;
    for (int e = 0; e < r.experts; e++) {
        size_t len = 0;
        for (int i = 0; i < r.n; i++) {
            l.count[(size_t)e * r.n + i] = r.at(i, j * r.experts + e);
            l.offset[(size_t)e * r.n + i] = start + len;
            len += r.at(i, j * r.experts + e);
        }
        l.end = start + len;
        start += r.align <= 1 ? len : len == 0 ? r.align : (len + r.align - 1) / r.align * r.align;
    }
    return l;
}

// The dst capacities every PE passes: room for the largest dispatch and combine on any PE.
struct Capacities {
    size_t dispatch, combine;
};
Capacities capacities_for(const Routing &r) {
    Capacities c{0, 0};
    for (int j = 0; j < r.n; j++) {
        c.dispatch = std::max(c.dispatch, layout_of(r, j).end + 3);
        c.combine = std::max(c.combine, r.row(j) + 3);
    }
    return c;
}

class Moe : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    SymBuffer back{kArenaBytes};
    Stream stream;
    const int n = symcoll_n_pes(), me = symcoll_my_pe();
    DeviceBuffer counts{3 * kMaxSegments * sizeof(size_t)};

    size_t *send() const {
        return counts.as<size_t>();
    }
    size_t *recv() const {
        return counts.as<size_t>() + kMaxSegments;
    }
    size_t *offsets() const {
        return counts.as<size_t>() + 2 * kMaxSegments;
    }

    // This PE's data and row of counts in place; dst and the combine's dst poisoned.
    void stage(const Routing &r, uint64_t seed, Capacities cap) {
        std::vector<uint8_t> mine = random_bytes(r.row(me) * kElem, seed, me);
        CUDA_OK(cudaMemcpy(arena.src_at(0), mine.data(), mine.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(arena.dst_at(0), kPoison, cap.dispatch * kElem + kTail));
        CUDA_OK(cudaMemset(back.ptr, kPoison, cap.combine * kElem + kTail));
        const size_t segments = (size_t)n * r.experts;
        CUDA_OK(cudaMemcpy(send(), r.c.data() + (size_t)me * segments, segments * sizeof(size_t),
                           cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(recv(), 0xff, 2 * kMaxSegments * sizeof(size_t)));
    }

    void enqueue(int experts, size_t align, Capacities cap) {
        SYM_OK(symcoll_moe_dispatch_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0), cap.dispatch,
                                              arena.src_at(0), send(), recv(), offsets(), experts,
                                              align, SYMCOLL_FLOAT32, stream));
        SYM_OK(symcoll_moe_combine_on_stream(SYMCOLL_TEAM_WORLD, back.ptr, cap.combine,
                                             arena.dst_at(0), send(), experts, align,
                                             SYMCOLL_FLOAT32, stream));
    }

    // The dispatch's dst (segments in place, poison elsewhere), its counts and offsets, and
    // the combine's dst (this PE's data back in place).
    void verify(const Routing &r, uint64_t seed, Capacities cap, const std::string &what) {
        const Layout l = layout_of(r, me);
        std::vector<uint8_t> want(cap.dispatch * kElem + kTail, kPoison);
        for (int i = 0; i < n; i++) {
            std::vector<uint8_t> theirs = random_bytes(r.row(i) * kElem, seed, i);
            for (int e = 0; e < r.experts; e++) {
                const size_t k = (size_t)e * n + i, from = r.src_offset(i, me * r.experts + e);
                std::copy(theirs.begin() + from * kElem,
                          theirs.begin() + (from + l.count[k]) * kElem,
                          want.begin() + l.offset[k] * kElem);
            }
        }
        std::vector<uint8_t> got(want.size());
        CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), got.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_mismatch(got.data(), want.data(), got.size()), -1) << what << ": dispatch";
        const size_t segments = (size_t)n * r.experts;
        std::vector<size_t> outputs(2 * kMaxSegments);
        CUDA_OK(cudaMemcpy(outputs.data(), recv(), outputs.size() * sizeof(size_t),
                           cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < segments; k++) {
            EXPECT_EQ(outputs[k], l.count[k]) << what << ": recv_counts[" << k << "]";
            EXPECT_EQ(outputs[kMaxSegments + k], l.offset[k])
                << what << ": recv_offsets[" << k << "]";
        }
        std::vector<uint8_t> mine = random_bytes(r.row(me) * kElem, seed, me);
        std::vector<uint8_t> returned(cap.combine * kElem + kTail);
        CUDA_OK(cudaMemcpy(returned.data(), back.ptr, returned.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_mismatch(returned.data(), mine.data(), mine.size()), -1)
            << what << ": combine";
        EXPECT_EQ(first_unpoisoned(returned.data() + mine.size(), returned.size() - mine.size()),
                  -1)
            << what << ": combine wrote past what returns";
    }

    void run(const Routing &r, const char *algo, uint64_t seed) {
        std::string what = std::string(algo ? algo : "tuned") + ", " + std::to_string(r.experts) +
                           " experts per PE, align " + std::to_string(r.align) + ", " +
                           std::to_string(r.row(me)) + " elements out";
        const Capacities cap = capacities_for(r);
        stage(r, seed, cap);
        barrier_and_wait();
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        enqueue(r.experts, r.align, cap);
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaStreamSynchronize(stream));
        verify(r, seed, cap, what);
        barrier_and_wait();
    }
};

TEST_F(Moe, DispatchAndCombineEveryAlgorithmExpertCountAndAlignment) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV))
        for (int experts : {1, 3, 8})
            for (size_t align : {(size_t)1, (size_t)16})
                for (size_t max_count : {(size_t)5, (size_t)3000}) {
                    uint64_t seed = next_case_seed();
                    if ((size_t)n * experts > kMaxSegments)
                        continue;
                    run(random_routing(n, experts, align, seed, max_count), algo, seed);
                }
}

// The most experts a team may have: the header fills most of an LL packet buffer.
TEST_F(Moe, MostExpertsPerTeam) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        run(random_routing(n, (int)(kMaxSegments / n), 8, seed, 40), algo, seed);
    }
}

// One PE aligns its groups differently: the calls differ, every PE is told, nothing moves.
TEST_F(Moe, CallsThatDifferMoveNothing) {
    SEED_TRACE();
    if (n == 1)
        GTEST_SKIP() << "calls can differ only between two PEs";
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        Routing r = random_routing(n, 2, 4, seed, 5);
        const Capacities cap = capacities_for(r);
        stage(r, seed, cap);
        barrier_and_wait();
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        // Room past the layout, so that either alignment passes the host's checks.
        SYM_OK(symcoll_moe_dispatch_on_stream(
            SYMCOLL_TEAM_WORLD, arena.dst_at(0), cap.dispatch + 16, arena.src_at(0), send(), recv(),
            offsets(), 2, me == 0 ? 4 : 8, SYMCOLL_FLOAT32, stream));
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaStreamSynchronize(stream));
        std::vector<uint8_t> got(cap.dispatch * kElem + kTail);
        CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), got.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_unpoisoned(got.data(), got.size()), -1) << (algo ? algo : "tuned");
        EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("every PE must pass the same"), std::string::npos) << why;
        barrier_and_wait();
    }
}

TEST_F(Moe, TooManyExpertsAndAlignmentZeroAreRefused) {
    const int experts = (int)(kMaxSegments / n) + 1;
    EXPECT_EQ(symcoll_moe_dispatch_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0), 16,
                                             arena.src_at(0), send(), recv(), offsets(), experts, 1,
                                             SYMCOLL_FLOAT32, stream),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("n_experts " + std::to_string(experts)), std::string::npos) << why;
    EXPECT_EQ(symcoll_moe_dispatch_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0), 16,
                                             arena.src_at(0), send(), recv(), offsets(), 1, 0,
                                             SYMCOLL_FLOAT32, stream),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    why = symcoll_last_error();
    EXPECT_NE(why.find("major_align 0"), std::string::npos) << why;
}

// Captured once; every replay routes the counts and data written before it, there and back.
TEST_F(Moe, GraphReplayedWithNewRouting) {
    SEED_TRACE();
    const int experts = 4;
    const size_t align = 8, max_count = 2000;
    // Capacities that fit any routing of this shape, the same on every PE and every replay.
    const Capacities cap = capacities_for(
        Routing{n, experts, align, std::vector<size_t>((size_t)n * n * experts, max_count)});
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        enqueue(experts, align, cap);
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 3; replay++) {
            uint64_t seed = next_case_seed();
            Routing r = random_routing(n, experts, align, seed, replay == 1 ? 3 : max_count);
            stage(r, seed, cap);
            barrier_and_wait();
            CUDA_OK(cudaGraphLaunch(exec, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            verify(r, seed, cap,
                   std::string(algo ? algo : "tuned") + " replay " + std::to_string(replay));
            barrier_and_wait();
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
}

} // namespace
