// The barrier captured once into a CUDA graph and replayed 1000 times: every replay, each
// PE stamps its replay count into the next team member's slot, barrier, checks the stamp
// it received against its own count, barrier. Epochs live in device memory and are
// advanced by the kernel, so replays and plain calls interleave freely.
#include "symcoll_device.cuh"
#include "rma_testing.h"

using namespace rma_testing;

namespace {

constexpr int kReplays = 1000;

struct Counters {
    unsigned long long replays, wrong;
};

__global__ void stamp_kernel(symcoll_device_t h, uint64_t *slot, Counters *c, uint64_t salt) {
    uint64_t count = ++c->replays;
    int next = symcoll_dev_team_to_world(h, (h.team_my_pe + 1) % h.team_size);
    symcoll_dev_p(h, slot, count ^ salt, next);
}

__global__ void check_kernel(const uint64_t *slot, Counters *c, uint64_t salt) {
    if ((*(const volatile uint64_t *)slot ^ salt) != c->replays)
        c->wrong++;
}

void replay_barrier_graph(symcoll_team_t team) {
    SEED_TRACE();
    symcoll_device_t h = symcoll_device_handle(team);
    ASSERT_GT(h.team_size, 0) << symcoll_last_error();
    SymBuffer slot(sizeof(uint64_t));
    DeviceBuffer counters(sizeof(Counters));
    Stream stream;
    uint64_t salt = mix(run_seed(), team);
    CUDA_OK(cudaMemset(counters.ptr, 0, sizeof(Counters)));
    CUDA_OK(cudaMemset(slot.ptr, kPoison, sizeof(uint64_t)));
    barrier_sync(stream);

    cudaGraph_t graph;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    stamp_kernel<<<1, 1, 0, stream>>>(h, slot.as<uint64_t>(), counters.as<Counters>(), salt);
    symcoll_status_t first = symcoll_barrier_on_stream(team, stream);
    check_kernel<<<1, 1, 0, stream>>>(slot.as<uint64_t>(), counters.as<Counters>(), salt);
    symcoll_status_t second = symcoll_barrier_on_stream(team, stream);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    SYM_OK(first);
    SYM_OK(second);
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));

    for (int r = 0; r < kReplays; r++) {
        CUDA_OK(cudaGraphLaunch(exec, stream));
        if (r == kReplays / 2) // plain barriers between replays share the epoch counters
            SYM_OK(symcoll_barrier_on_stream(team, stream));
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    SYM_OK(symcoll_team_status(team));

    Counters c{};
    CUDA_OK(cudaMemcpy(&c, counters.ptr, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c.replays, (unsigned long long)kReplays);
    EXPECT_EQ(c.wrong, 0ull) << "replays that read a stale or missing stamp";
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    barrier_sync(stream);
}

TEST(BarrierGraph, WorldReplayed1000Times) {
    replay_barrier_graph(SYMCOLL_TEAM_WORLD);
}
TEST(BarrierGraph, NodeReplayed1000Times) {
    replay_barrier_graph(SYMCOLL_TEAM_NODE);
}

} // namespace
