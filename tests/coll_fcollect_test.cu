// fcollect on every team x datatype x size class x algorithm, and past L2 for a subset.
#include "coll_exchange_testing.h"

using namespace coll_testing;

namespace {

using Fcollect = ExchangeTest<SYMCOLL_COLL_FCOLLECT>;

TEST_F(Fcollect, EveryTeamTypeSizeAndAlgorithm) {
    SEED_TRACE();
    run_every_team_type_size_and_algorithm();
}

TEST_F(Fcollect, LargerThanL2) {
    SEED_TRACE();
    run_larger_than_l2();
}

} // namespace

namespace {

// fcollect of `count` uint32 per PE from src into dst, forced to the copy engines.
symcoll_status_t fcollect_ce(SymBuffer &dst, const SymBuffer &src, size_t count,
                             cudaStream_t stream) {
    symcoll_status_t st = symcoll_tuning_override(SYMCOLL_COLL_FCOLLECT, "ce", 0, 0);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_fcollect_on_stream(SYMCOLL_TEAM_WORLD, dst.ptr, src.ptr, count, SYMCOLL_UINT32,
                                        stream);
    symcoll_tuning_override(SYMCOLL_COLL_FCOLLECT, nullptr, 0, 0);
    return st;
}

void expect_fcollected(const SymBuffer &dst, size_t count, uint64_t seed, const char *what) {
    int n = symcoll_n_pes();
    std::vector<uint8_t> want, got(count * 4 * n);
    for (int pe = 0; pe < n; pe++) {
        std::vector<uint8_t> block = random_bytes(count * 4, seed, pe);
        want.insert(want.end(), block.begin(), block.end());
    }
    CUDA_OK(cudaMemcpy(got.data(), dst.ptr, got.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(first_mismatch(got.data(), want.data(), got.size()), -1) << what;
}

// The copy-engine path forks the runtime's side stream from the caller's stream. While a
// capture holds the side stream, a call on another stream must still be correct (it takes
// the SM pushes), and the captured call must be correct on every replay.
TEST(FcollectCopyEngine, SideStreamHeldByAnotherCapture) {
    SEED_TRACE();
    const size_t count = 3 * 1024 * 1024 + 5; // past L2 with the other PEs' blocks
    int n = symcoll_n_pes();
    uint64_t seed = next_case_seed();
    SymBuffer src(count * 4), captured(count * 4 * n), direct(count * 4 * n);
    std::vector<uint8_t> mine = random_bytes(count * 4, seed, symcoll_my_pe());
    CUDA_OK(cudaMemcpy(src.ptr, mine.data(), mine.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(captured.ptr, 0xA5, captured.bytes));
    CUDA_OK(cudaMemset(direct.ptr, 0x5A, direct.bytes));
    Stream a, b;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(a, cudaStreamCaptureModeThreadLocal));
    EXPECT_EQ(fcollect_ce(captured, src, count, a), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(fcollect_ce(direct, src, count, b), SYMCOLL_SUCCESS) << symcoll_last_error();
    CUDA_OK(cudaStreamEndCapture(a, &graph));
    CUDA_OK(cudaStreamSynchronize(b));
    expect_fcollected(direct, count, seed, "call on another stream during the capture");
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; replay++) {
        CUDA_OK(cudaMemset(captured.ptr, 0xA5, captured.bytes));
        CUDA_OK(cudaGraphLaunch(exec, a));
        CUDA_OK(cudaStreamSynchronize(a));
        expect_fcollected(captured, count, seed, "captured call, replayed");
    }
    EXPECT_EQ(fcollect_ce(direct, src, count, b), SYMCOLL_SUCCESS) << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(b));
    expect_fcollected(direct, count, seed, "call after the capture ended");
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
}

} // namespace
