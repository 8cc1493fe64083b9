/* A ring: every round each PE puts a block of ints into the next PE with a signal (added), by
 * one thread, a warp or the block in turn; the next PE waits for the signal and checks the
 * data. Then the same from the host on a stream, and host-side p, g, put and get. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define N 1024
#define ROUNDS 16

__host__ __device__ int expected(int pe, int round, int i) {
    return pe * 1000000 + round * N + i;
}

/* The device form of nvshmem_team_translate_pe agrees with the host's numbering. */
__global__ void translate_on_device(int *wrong) {
    int me = nvshmem_my_pe(), node_pe = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    if (nvshmem_team_translate_pe(NVSHMEMX_TEAM_NODE, node_pe, NVSHMEM_TEAM_WORLD) != me ||
        nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, NVSHMEM_TEAM_SHARED) != node_pe ||
        nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, nvshmem_n_pes(), NVSHMEMX_TEAM_NODE) != -1)
        atomicAdd(wrong, 1);
}

__global__ void ring(int *inbox, int *outbox, uint64_t *signal, int round, int *wrong) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    int *dst = inbox + round * N, *src = outbox + round * N;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        src[i] = expected(me, round, i);
    __syncthreads();
    if (round % 3 == 0) {
        if (threadIdx.x == 0)
            nvshmem_int_put_signal_nbi(dst, src, N, signal, 1, NVSHMEM_SIGNAL_ADD, next);
    } else if (round % 3 == 1) {
        if (threadIdx.x < 32)
            nvshmemx_int_put_signal_warp(dst, src, N, signal, 1, NVSHMEM_SIGNAL_ADD, next);
    } else {
        nvshmemx_int_put_signal_nbi_block(dst, src, N, signal, 1, NVSHMEM_SIGNAL_ADD, next);
    }
    if (threadIdx.x == 0)
        nvshmem_signal_wait_until(signal, NVSHMEM_CMP_GE, (uint64_t)round + 1);
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        if (inbox[round * N + i] != expected(prev, round, i))
            atomicAdd(wrong, 1);
}

/* Compares n ints of device memory with expected(pe, round, i). */
static long wrong_ints(const int *dev, int pe, int round) {
    int host[N];
    long bad = 0;
    CHECK_CUDA(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        bad += host[i] != expected(pe, round, i);
    return bad;
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    set_device_of_node_pe();
    int *inbox = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int));
    int *outbox = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int));
    uint64_t *signals = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t));
    int *wrong, *local;
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMalloc(&local, N * sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    CHECK_CUDA(cudaMemset(inbox, 0xff, ROUNDS * N * sizeof(int)));
    nvshmem_barrier_all();

    for (int round = 0; round < ROUNDS; round++)
        ring<<<1, 256>>>(inbox, outbox, signals, round, wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    long bad = 0;
    int device_wrong = 0;
    CHECK_CUDA(cudaMemcpy(&device_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    bad += device_wrong;
    bad += nvshmem_uint64_g(signals, me) != ROUNDS;
    bad += nvshmem_signal_fetch(signals) != ROUNDS; /* the host form */
    /* PE translation in both directions between WORLD and NODE (SHARED), host and device. */
    int node_pe = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    bad += nvshmem_team_translate_pe(NVSHMEMX_TEAM_NODE, node_pe, NVSHMEM_TEAM_WORLD) != me;
    bad += nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, NVSHMEM_TEAM_SHARED) != node_pe;
    translate_on_device<<<1, 1>>>(wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    int wrong_after = 0;
    CHECK_CUDA(cudaMemcpy(&wrong_after, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    bad += wrong_after - device_wrong;

    /* On a stream: put with signal, the stream waits for the peer's, then a get. */
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMemset(inbox, 0xff, N * sizeof(int)));
    CHECK_CUDA(cudaMemset(local, 0xff, N * sizeof(int)));
    nvshmem_barrier_all();
    nvshmemx_int_put_signal_on_stream(inbox, outbox + N, N, signals + 1, 1, NVSHMEM_SIGNAL_SET,
                                      next, stream);
    nvshmemx_signal_wait_until_on_stream(signals + 1, NVSHMEM_CMP_EQ, 1, stream);
    nvshmemx_int_get_on_stream(local, outbox + 2 * N, N, next, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    bad += wrong_ints(inbox, prev, 1);
    bad += wrong_ints(local, next, 2);

    /* Host side: p to the next PE, put of a host array, get back from the next PE. */
    nvshmem_barrier_all();
    int host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = me * 7 + i;
    nvshmem_int_put(inbox, host, N, next);
    nvshmem_int_p(inbox + N, 1000 + me, next);
    nvshmem_barrier_all();
    nvshmem_int_get(back, inbox, N, next);
    for (int i = 0; i < N; i++)
        bad += back[i] != me * 7 + i;
    bad += nvshmem_int_g(inbox + N, me) != 1000 + prev;
    nvshmem_barrier_all();

    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFree(local));
    CHECK_CUDA(cudaFree(wrong));
    nvshmem_free(signals);
    nvshmem_free(outbox);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return report("ring_signal", me, bad);
}
