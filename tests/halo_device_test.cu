// The device side of halo plans: exchanges made inside a kernel with symcoll_dev_halo_send_block
// and symcoll_dev_halo_wait_block, mixed with host exchanges on the same plan, and the block
// team sum, on a stream and replayed from a graph.
#include <chrono>
#include <cstdlib>
#include <thread>
#include "halo_testing.h"
#include "symcoll_halo_device.cuh"

namespace {

using namespace halo_testing;

// One block per direction the plan sends toward: send, then wait for the same direction.
__global__ void device_exchange(symcoll_halo_device_t hh, void *field, int *failed) {
    int dir = -1;
    for (int d = 0, seen = 0; d < SYMCOLL_HALO_DIRS; d++)
        if (symcoll_dev_halo_sends(hh, d) && seen++ == (int)blockIdx.x)
            dir = d;
    bool ok = symcoll_dev_halo_send_block(hh, field, dir) && symcoll_dev_halo_wait_block(hh, dir);
    if (!ok && threadIdx.x == 0)
        *failed = 1;
}

void device_round(Case &k, const symcoll_halo_device_t &hh, int *failed) {
    fill(k, 0);
    int blocks = __builtin_popcount(hh.dirs);
    if (blocks > 0)
        device_exchange<<<blocks, 128, 0, k.stream>>>(hh, k.fields[0], failed);
    check(k, 0);
    next_round<<<1, 1, 0, k.stream>>>(k.round);
    CUDA_OK(cudaGetLastError());
}

void host_round(Case &k) {
    fill(k, 0);
    SYM_OK(symcoll_halo_exchange_on_stream(k.plan, k.fields[0], k.stream));
    check(k, 0);
    next_round<<<1, 1, 0, k.stream>>>(k.round);
}

TEST(HaloDevice, KernelExchangesMixWithHostExchanges) {
    const Config configs[] = {{3, 1, 1, 0, 1, 4, 0, {10, 8, 6}},
                              {2, 0, 0, 1, 2, 8, 1, {700, 9, 1}},
                              {1, 1, 0, 0, 3, 2, 0, {41, 1, 1}}};
    for (const Config &c : configs) {
        SCOPED_TRACE(c.name());
        Case k;
        setup(k, c);
        reset_counters(k);
        symcoll_halo_device_t hh = symcoll_halo_device_handle(k.plan);
        ASSERT_EQ(hh.team.team_size, symcoll_n_pes()) << symcoll_last_error();
        int *failed;
        CUDA_OK(cudaMalloc(&failed, sizeof *failed));
        CUDA_OK(cudaMemset(failed, 0, sizeof *failed));
        for (int r = 0; r < 8; r++) {
            if (r % 3 == 1)
                host_round(k);
            else
                device_round(k, hh, failed);
        }
        // The same in a graph: a device round and a host round, replayed.
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(k.stream, cudaStreamCaptureModeThreadLocal));
        device_round(k, hh, failed);
        host_round(k);
        CUDA_OK(cudaStreamEndCapture(k.stream, &graph));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 3; replay++)
            CUDA_OK(cudaGraphLaunch(exec, k.stream));
        expect_all_good(k, 1);
        int host_failed = 1;
        CUDA_OK(cudaMemcpy(&host_failed, failed, sizeof host_failed, cudaMemcpyDeviceToHost));
        EXPECT_EQ(host_failed, 0) << "a device wait timed out";
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
        cudaFree(failed);
        teardown(k);
    }
}

// As HaloExchange.LlLinesCrossTheir32BitWrap, with exchanges 2^31 and 2^31 + 1 made in user
// kernels, which rewrite no LL lines: the next two on the stream catch up.
TEST(HaloDevice, StreamExchangesRewriteLlLinesThatKernelExchangesSkipped) {
    const uint64_t half = (uint64_t)1 << 31;
    Case k;
    setup(k, Config{1, 1, 0, 0, 2, 4, 0, {37, 1, 1}});
    symcoll_halo_device_t hh = symcoll_halo_device_handle(k.plan);
    int *failed = nullptr;
    CUDA_OK(cudaMalloc(&failed, sizeof *failed));
    CUDA_OK(cudaMemset(failed, 0, sizeof *failed));
    reset_counters(k);
    for (int r = 0; r < 3; r++)
        exchange_both(k);
    jump_exchanges(k, half - 3);
    for (int r = 0; r < 6; r++)
        device_round(k, hh, failed);
    host_round(k);
    host_round(k);
    jump_exchanges(k, 2 * half - 3);
    for (int r = 0; r < 4; r++)
        host_round(k);
    for (int r = 0; r < 4; r++)
        exchange_both(k, true);
    expect_all_good(k, 1);
    int host_failed = 1;
    CUDA_OK(cudaMemcpy(&host_failed, failed, sizeof host_failed, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host_failed, 0) << "a device wait timed out";
    cudaFree(failed);
    teardown(k);
}

// A box of 65535 x 65537 one-byte units, 2^32 - 1: a share that ends at its last unit copies
// exactly its units and returns (the positions past 2^32 must not wrap to the box's start).
__global__ void copy_share(symcoll_halo_msg_t m, const char *src, char *dst, uint64_t begin,
                           uint64_t end) {
    symcoll_halo_device_t ungated = {};
    symcoll_dev_halo_copy_as<uint8_t>(ungated, 0, 1, false, m, src, dst, begin, end, threadIdx.x,
                                      blockDim.x);
}

TEST(HaloDevice, ABoxOfNearly2To32UnitsCopiesItsLastShare) {
    symcoll_halo_msg_t m = {};
    m.row_bytes = 1;
    m.rows = 65535;
    m.planes = 65537;
    m.src_pitch[0] = m.dst_pitch[0] = 1; // unit u lands at byte u % 65535
    const uint64_t units = (uint64_t)m.row_bytes * m.rows * m.planes, begin = units - 1000;
    ASSERT_EQ(units, 0xffffffffull);
    std::vector<char> src(m.rows), want(m.rows, (char)kPoison), got(m.rows);
    for (size_t i = 0; i < src.size(); i++)
        src[i] = (char)(i * 7 + 1);
    for (uint64_t u = begin; u < units; u++)
        want[u % m.rows] = src[u % m.rows];
    rma_testing::DeviceBuffer d_src(m.rows), d_dst(m.rows);
    CUDA_OK(cudaMemcpy(d_src.ptr, src.data(), m.rows, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_dst.ptr, kPoison, m.rows));
    copy_share<<<1, 256>>>(m, (const char *)d_src.ptr, (char *)d_dst.ptr, begin, units);
    CUDA_OK(cudaGetLastError());
    // A copy that wraps never returns: fail and leave rather than wait for ever.
    for (int waited_ms = 0; cudaStreamQuery(0) == cudaErrorNotReady; waited_ms += 10) {
        if (waited_ms > 20000) {
            ADD_FAILURE() << "the copy of the last share did not return within 20 s";
            std::_Exit(1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CUDA_OK(cudaMemcpy(got.data(), d_dst.ptr, m.rows, cudaMemcpyDeviceToHost));
    EXPECT_EQ(rma_testing::first_mismatch((const uint8_t *)got.data(), (const uint8_t *)want.data(),
                                          m.rows),
              -1);
}

// Each PE adds {pe + 1, round, 0.25 * pe} over the team; every PE writes the sums it got.
__global__ void team_sum(symcoll_halo_device_t hh, int round, double *out, int *failed) {
    double in[3] = {hh.team.team_my_pe + 1.0, (double)round, 0.25 * hh.team.team_my_pe};
    __shared__ double sums[3];
    if (!symcoll_dev_halo_sum_block(hh, in, sums, 3)) {
        if (threadIdx.x == 0)
            *failed = 1;
        return;
    }
    if (threadIdx.x < 3)
        out[3 * round + threadIdx.x] = sums[threadIdx.x];
}

TEST(HaloDevice, BlockTeamSum) {
    Case k;
    setup(k, Config{2, 1, 0, 0, 1, 4, 0, {8, 8, 1}});
    symcoll_halo_device_t hh = symcoll_halo_device_handle(k.plan);
    const int rounds = 16;
    double *out;
    int *failed;
    CUDA_OK(cudaMalloc(&out, 3 * rounds * sizeof *out));
    CUDA_OK(cudaMemset(out, 0xff, 3 * rounds * sizeof *out));
    CUDA_OK(cudaMalloc(&failed, sizeof *failed));
    CUDA_OK(cudaMemset(failed, 0, sizeof *failed));
    for (int r = 0; r < rounds - 4; r++)
        team_sum<<<1, 64, 0, k.stream>>>(hh, r, out, failed);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(k.stream, cudaStreamCaptureModeThreadLocal));
    team_sum<<<1, 64, 0, k.stream>>>(hh, rounds - 4, out, failed);
    CUDA_OK(cudaStreamEndCapture(k.stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 4; replay++)
        CUDA_OK(cudaGraphLaunch(exec, k.stream));
    CUDA_OK(cudaStreamSynchronize(k.stream));
    std::vector<double> host(3 * rounds);
    CUDA_OK(cudaMemcpy(host.data(), out, host.size() * sizeof(double), cudaMemcpyDeviceToHost));
    int n = symcoll_n_pes(), host_failed = 1;
    CUDA_OK(cudaMemcpy(&host_failed, failed, sizeof host_failed, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host_failed, 0);
    for (int r = 0; r <= rounds - 4; r++) {
        EXPECT_EQ(host[3 * r], n * (n + 1) / 2.0) << "round " << r;
        EXPECT_EQ(host[3 * r + 1], (double)n * r) << "round " << r;
        EXPECT_EQ(host[3 * r + 2], 0.25 * n * (n - 1) / 2.0) << "round " << r;
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    cudaFree(out);
    cudaFree(failed);
    teardown(k);
}

} // namespace
