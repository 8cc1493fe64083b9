// reduce_scatter on every team x datatype x op x size class x in-place x algorithm, past L2
// for a subset, and captured into a graph that is replayed with new inputs.
#include "coll_reduction_testing.h"

using namespace coll_testing;

namespace {

using ReduceScatter = ReductionTest<SYMCOLL_COLL_REDUCE_SCATTER>;

TEST_F(ReduceScatter, EveryTeamTypeOpSizeInPlaceAndAlgorithm) {
    SEED_TRACE();
    run_every_team_type_op_size_in_place_and_algorithm();
}

TEST_F(ReduceScatter, LargerThanL2) {
    SEED_TRACE();
    const TestTeam world = test_teams()[0];
    for (symcoll_datatype_t type : {SYMCOLL_FLOAT32, SYMCOLL_BFLOAT16})
        for (bool in_place : {false, true})
            for (const char *algo : algorithms(SYMCOLL_COLL_REDUCE_SCATTER)) {
                uint64_t seed = next_case_seed();
                SizeClass size = larger_than_l2(symcoll_datatype_size(type), world.size);
                run_case(make_case(world, type, SYMCOLL_SUM, size, in_place, algo), arena, stream,
                         seed);
            }
}

// One call captured into a graph, replayed after each new input: every replay reduces the
// inputs of its time, on every algorithm.
TEST_F(ReduceScatter, GraphReplayedWithNewInputs) {
    SEED_TRACE();
    const int n = symcoll_n_pes(), me = symcoll_my_pe();
    const size_t count = 1001;
    for (const char *algo : algorithms(SYMCOLL_COLL_REDUCE_SCATTER)) {
        Case c = make_case(test_teams()[0], SYMCOLL_INT32, SYMCOLL_SUM, {count, 0, 0}, false, algo);
        SYM_OK(symcoll_tuning_override(c.coll, algo, 0, 0));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        SYM_OK(symcoll_reduce_scatter_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0),
                                                arena.src_at(0), count, c.type, c.op, stream));
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        SYM_OK(symcoll_tuning_override(c.coll, nullptr, 0, 0));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 3; replay++) {
            uint64_t seed = next_case_seed();
            std::vector<uint8_t> mine = case_input(c, n, seed, me);
            CUDA_OK(cudaMemcpy(arena.src_at(0), mine.data(), mine.size(), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemset(arena.dst_at(0), 0x5a, count * 4));
            SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
            CUDA_OK(cudaGraphLaunch(exec, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            std::vector<uint8_t> got(count * 4);
            CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), got.size(), cudaMemcpyDeviceToHost));
            std::vector<uint8_t> want = expected(
                c, n, me, [&](int m) { return m == me ? mine : case_input(c, n, seed, m); });
            EXPECT_EQ(first_mismatch(got.data(), want.data(), got.size()), -1)
                << c.describe() << ", replay " << replay;
            // Every PE has read its inputs before any PE writes the next ones.
            SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
}

} // namespace
