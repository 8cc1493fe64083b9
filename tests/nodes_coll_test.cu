// Collectives on teams across simulated nodes (symcoll-run --nodes 2 with 2 or 4 PEs, --nodes 3
// with 3: combines of three inputs): the
// node's kernels inside each node and the UCX proxy between them. Broadcast (every root),
// reduce and reduce_scatter (every type x op), fcollect and alltoall (every type), each size
// class, the node's algorithms forced in turn, in place, past L2 (reduce and reduce_scatter in
// several rounds of the scratch), and replayed from a graph (captured in global mode while other
// PEs' graphs already run) with new data: against the CPU reference, with dst poisoned around
// and src checked unchanged. symcoll_explain names the plan. Teams across nodes other than
// WORLD (one PE of each node, or whole nodes) run every collective and the barrier beside
// calls of WORLD.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "coll_testing.h"

using namespace coll_testing;

namespace {

const symcoll_collective_t kCollectives[] = {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_REDUCE,
                                             SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL,
                                             SYMCOLL_COLL_REDUCE_SCATTER};

class NodesColl : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(n == 2 || n == 3 || n == 4) << n << " PEs";
        ASSERT_NE(std::getenv("SYMCOLL_NODE_ID"), nullptr);
    }
    int n = symcoll_n_pes();
    int per_node = symcoll_team_n_pes(SYMCOLL_TEAM_NODE), nodes = n / per_node;
    Arena arena{kArenaBytes};
    Stream stream;

    static Case make(symcoll_collective_t coll, symcoll_datatype_t type, symcoll_op_t op,
                     SizeClass size) {
        Case c;
        c.coll = coll;
        c.type = type;
        c.op = op;
        c.count = size.count;
        c.dst_shift = size.dst_shift;
        c.src_shift = size.src_shift;
        return c;
    }
    // The size classes of a collective: counts per PE for the ones whose dst or src holds a
    // block per PE.
    std::vector<SizeClass> sizes(const Case &c) const {
        bool per_pe = c.coll != SYMCOLL_COLL_BROADCAST && c.coll != SYMCOLL_COLL_REDUCE;
        return size_classes(symcoll_datatype_size(c.type), per_pe ? n : 1);
    }
};

// The ops a case runs with: every op defined for the type where it reduces, else one.
std::vector<symcoll_op_t> ops_of(symcoll_collective_t coll, symcoll_datatype_t type) {
    std::vector<symcoll_op_t> ops;
    bool reduces = coll == SYMCOLL_COLL_REDUCE || coll == SYMCOLL_COLL_REDUCE_SCATTER;
    for (symcoll_op_t op : kOps)
        if (reduces ? op_defined(type, op) : op == SYMCOLL_SUM)
            ops.push_back(op);
    return ops;
}

TEST_F(NodesColl, EveryCollectiveTypeOpAndSize) {
    SEED_TRACE();
    for (symcoll_collective_t coll : kCollectives)
        for (symcoll_datatype_t type : kTypes)
            for (symcoll_op_t op : ops_of(coll, type))
                for (SizeClass size : sizes(make(coll, type, op, {}))) {
                    Case c = make(coll, type, op, size);
                    c.root = coll == SYMCOLL_COLL_BROADCAST ? (int)(size.count % n) : 0;
                    run_case(c, arena, stream, next_case_seed());
                }
}

// Every algorithm of the node's steps, forced, at sizes where each one is plausible.
TEST_F(NodesColl, EveryAlgorithmOfTheNodesSteps) {
    SEED_TRACE();
    for (symcoll_collective_t coll : kCollectives)
        for (const char *algo : algorithms(coll))
            for (size_t count : {(size_t)5, (size_t)33333}) {
                Case c = make(coll, SYMCOLL_INT32, SYMCOLL_SUM, {count, 0, 0});
                c.algo = algo;
                c.root = n - 1;
                run_case(c, arena, stream, next_case_seed());
            }
}

TEST_F(NodesColl, BroadcastFromEveryRoot) {
    SEED_TRACE();
    for (int root = 0; root < n; root++)
        for (bool in_place : {false, true}) {
            Case c = make(SYMCOLL_COLL_BROADCAST, SYMCOLL_UINT8, SYMCOLL_SUM, {4099, 1, 0});
            c.root = root;
            c.in_place = in_place;
            run_case(c, arena, stream, next_case_seed());
        }
}

TEST_F(NodesColl, InPlace) {
    SEED_TRACE();
    for (symcoll_collective_t coll : {SYMCOLL_COLL_REDUCE, SYMCOLL_COLL_REDUCE_SCATTER})
        for (size_t count : {(size_t)1, (size_t)1001, (size_t)(1u << 18) + 3}) {
            Case c = make(coll, SYMCOLL_FLOAT32, SYMCOLL_SUM, {count, 1, 0});
            c.in_place = true;
            run_case(c, arena, stream, next_case_seed());
        }
}

// 64 MiB: reduce and reduce_scatter take several rounds of the 32 MiB scratch.
TEST_F(NodesColl, LargerThanL2) {
    SEED_TRACE();
    for (symcoll_collective_t coll : kCollectives) {
        Case c = make(coll, SYMCOLL_FLOAT32, SYMCOLL_SUM, {});
        bool per_pe = coll != SYMCOLL_COLL_BROADCAST && coll != SYMCOLL_COLL_REDUCE;
        SizeClass size = larger_than_l2(sizeof(float), per_pe ? n : 1);
        c = make(coll, SYMCOLL_FLOAT32, SYMCOLL_SUM, size);
        c.root = n - 1;
        run_case(c, arena, stream, next_case_seed());
    }
}

// A graph of two calls of the case, captured once in global mode, replayed by each run_case
// below with new data. PE 0 holds its capture open a while: the other PEs' graphs already
// signal it, so its proxy copies while a capture in global mode is open on the main thread.
cudaGraphExec_t captured = nullptr;

symcoll_status_t capture_once_then_replay(const Case &c, void *dst, const void *src,
                                          cudaStream_t stream) {
    if (!captured) {
        cudaGraph_t graph;
        if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess)
            return SYMCOLL_ERROR_CUDA;
        symcoll_status_t st = enqueue(c, dst, src, stream);
        if (st == SYMCOLL_SUCCESS)
            st = enqueue(c, dst, src, stream);
        if (symcoll_my_pe() == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || st != SYMCOLL_SUCCESS)
            return st != SYMCOLL_SUCCESS ? st : SYMCOLL_ERROR_CUDA;
        cudaError_t err = cudaGraphInstantiate(&captured, graph, 0);
        cudaGraphDestroy(graph);
        if (err != cudaSuccess)
            return SYMCOLL_ERROR_CUDA;
    }
    return cudaGraphLaunch(captured, stream) == cudaSuccess ? SYMCOLL_SUCCESS : SYMCOLL_ERROR_CUDA;
}

TEST_F(NodesColl, GraphReplayWithNewData) {
    SEED_TRACE();
    for (symcoll_collective_t coll : kCollectives) {
        Case c = make(coll, SYMCOLL_INT64, SYMCOLL_MAX, {2049, 0, 0});
        c.root = n - 1;
        for (int replay = 0; replay < 3; replay++)
            EXPECT_TRUE(run_case(c, arena, stream, next_case_seed(), capture_once_then_replay))
                << c.describe() << ", replay " << replay;
        ASSERT_EQ(cudaGraphExecDestroy(captured), cudaSuccess);
        captured = nullptr;
    }
}

// symcoll_explain says which plan runs, with the node's choice; alltoallv's is one kernel.
TEST_F(NodesColl, ExplainNamesThePlanAcrossNodes) {
    symcoll_explain_query_t q = {};
    q.version = SYMCOLL_EXPLAIN_VERSION;
    q.collective = SYMCOLL_COLL_REDUCE;
    q.count = 1000;
    q.type = SYMCOLL_FLOAT32;
    q.team = SYMCOLL_TEAM_WORLD;
    symcoll_explanation_t out;
    ASSERT_EQ(symcoll_explain(&q, &out), SYMCOLL_SUCCESS) << symcoll_last_error();
    const std::string across = "across " + std::to_string(nodes) + " nodes (";
    EXPECT_NE(std::strstr(out.why, (across + "node reduce").c_str()), nullptr) << out.why;
    // One PE per node: the node's steps are copies, with no algorithm.
    EXPECT_EQ(out.algorithm[0] != '\0', per_node > 1) << out.algorithm;
    q.collective = SYMCOLL_COLL_ALLTOALLV;
    ASSERT_EQ(symcoll_explain(&q, &out), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_NE(std::strstr(out.why, (across + "counts to every PE").c_str()), nullptr) << out.why;
    EXPECT_STREQ(out.algorithm, "");
}

struct Split {
    int start, stride, size;
};

// Teams across nodes other than WORLD: a copy of WORLD (whole nodes); with 3 nodes of 1 PE, the
// first and the last node; with 2 PEs per node, one PE of each node in every arrangement.
std::vector<Split> spanning_splits(int n) {
    if (n == 2)
        return {{0, 1, 2}};
    if (n == 3)
        return {{0, 1, 3}, {0, 2, 2}};
    return {{0, 1, 4}, {0, 2, 2}, {1, 2, 2}, {1, 1, 2}};
}

// Every collective and the barrier on each team across nodes, against the CPU reference, and a
// reduce replayed from a graph; then a reduce on WORLD, which the PEs outside the team start at
// once: their signals to the team's PEs must not count for the team's calls still running.
TEST_F(NodesColl, TeamsAcrossNodes) {
    SEED_TRACE();
    for (Split s : spanning_splits(n)) {
        symcoll_team_t team = SYMCOLL_TEAM_INVALID;
        ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, s.start, s.stride, s.size, &team),
                  SYMCOLL_SUCCESS)
            << symcoll_last_error();
        const bool member = team != SYMCOLL_TEAM_INVALID;
        for (symcoll_collective_t coll : kCollectives)
            for (size_t count : {(size_t)1, (size_t)1001, (size_t)33333}) {
                bool reduces = coll == SYMCOLL_COLL_REDUCE || coll == SYMCOLL_COLL_REDUCE_SCATTER;
                Case c = make(coll, SYMCOLL_INT32, reduces ? SYMCOLL_MAX : SYMCOLL_SUM,
                              {count, count % 2, 0});
                c.team = team;
                c.root = s.size - 1 - (int)(count % 2);
                uint64_t seed = next_case_seed();
                if (member)
                    run_case(c, arena, stream, seed);
            }
        for (int replay = 0; replay < 2; replay++) {
            Case c = make(SYMCOLL_COLL_REDUCE, SYMCOLL_FLOAT32, SYMCOLL_SUM, {2049, 0, 0});
            c.team = team;
            uint64_t seed = next_case_seed();
            if (member)
                EXPECT_TRUE(run_case(c, arena, stream, seed, capture_once_then_replay))
                    << c.describe() << ", replay " << replay;
        }
        if (member) {
            ASSERT_EQ(cudaGraphExecDestroy(captured), cudaSuccess);
            captured = nullptr;
            EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS)
                << symcoll_last_error();
            ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
            // A wait that timed out (a miscounted barrier) breaks the team.
            EXPECT_EQ(symcoll_team_status(team), SYMCOLL_SUCCESS) << symcoll_last_error();
        }
        Case world = make(SYMCOLL_COLL_REDUCE, SYMCOLL_INT64, SYMCOLL_SUM, {4099, 1, 0});
        run_case(world, arena, stream, next_case_seed());
        if (member)
            EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
}

// A team with two PEs on one node and one on the other (2 nodes of 2 PEs): its barrier runs
// (each node's part is one PE or the whole node), and its collectives, alltoallv among them,
// are refused before anything is enqueued (symcoll_explain refuses them too).
TEST_F(NodesColl, TeamsOfUnequalPartsMeetButDoNotCollect) {
    if (n != 4)
        GTEST_SKIP() << "needs 2 nodes of 2 PEs";
    symcoll_team_t team = SYMCOLL_TEAM_INVALID;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 3, &team), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    if (team == SYMCOLL_TEAM_INVALID)
        return;
    EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_reduce_on_stream(team, arena.dst_at(0), arena.src_at(0), 1, SYMCOLL_INT32,
                                       SYMCOLL_SUM, stream),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::strstr(symcoll_last_error(), "different numbers of PEs"), nullptr)
        << symcoll_last_error();
    size_t *counts = nullptr; // send counts, recv counts and recv offsets, zero
    ASSERT_EQ(cudaMalloc(&counts, 3 * 4 * sizeof(size_t)), cudaSuccess);
    ASSERT_EQ(cudaMemset(counts, 0, 3 * 4 * sizeof(size_t)), cudaSuccess);
    EXPECT_EQ(symcoll_alltoallv_on_stream(team, arena.dst_at(0), 1, arena.src_at(0), counts,
                                          counts + 4, counts + 8, SYMCOLL_INT32, stream),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::strstr(symcoll_last_error(), "different numbers of PEs"), nullptr)
        << symcoll_last_error();
    // symcoll_explain refuses it as the call does.
    symcoll_explain_query_t q = {};
    q.version = SYMCOLL_EXPLAIN_VERSION;
    q.collective = SYMCOLL_COLL_ALLTOALLV;
    q.type = SYMCOLL_INT32;
    q.team = team;
    symcoll_explanation_t out;
    EXPECT_EQ(symcoll_explain(&q, &out), SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::strstr(symcoll_last_error(), "different numbers of PEs"), nullptr)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_barrier_on_stream(team, stream), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(symcoll_team_status(team), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(cudaFree(counts), cudaSuccess);
    EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// Two teams of one PE per node that share PE 2 (2 nodes of 2 PEs): {0, 2} and {1, 2}. PE 1 is in
// the second team's calls while PE 2 is still in the first's, so its signals reach PE 2 early:
// counted with the first team's, they would let PE 2's waits pass before PE 0 had come.
TEST_F(NodesColl, OverlappingTeamsKeepTheirCountsApart) {
    if (n != 4)
        GTEST_SKIP() << "needs 2 nodes of 2 PEs";
    SEED_TRACE();
    symcoll_team_t teams[2] = {SYMCOLL_TEAM_INVALID, SYMCOLL_TEAM_INVALID};
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 2, 2, &teams[0]), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 1, 1, 2, &teams[1]), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    for (int round = 0; round < 3; round++)
        for (symcoll_team_t team : teams)
            for (symcoll_collective_t coll :
                 {SYMCOLL_COLL_REDUCE, SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_BROADCAST}) {
                Case c = make(coll, SYMCOLL_INT32, SYMCOLL_SUM, {4099, 0, 0});
                c.team = team;
                c.root = 1;
                uint64_t seed = next_case_seed();
                if (team != SYMCOLL_TEAM_INVALID)
                    run_case(c, arena, stream, seed);
            }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (symcoll_team_t team : teams)
        if (team != SYMCOLL_TEAM_INVALID) {
            EXPECT_EQ(symcoll_team_status(team), SYMCOLL_SUCCESS) << symcoll_last_error();
            EXPECT_EQ(symcoll_team_destroy(team), SYMCOLL_SUCCESS) << symcoll_last_error();
        }
}

} // namespace
