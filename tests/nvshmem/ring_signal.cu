/* A ring: every round each PE puts a block of ints into the next PE with a signal (added),
 * the next PE waits for the signal and checks the data; then host-side puts and gets. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define N 1024
#define ROUNDS 16

__device__ int expected(int pe, int round, int i) {
    return pe * 1000000 + round * N + i;
}

__global__ void ring(int *inbox, int *outbox, uint64_t *signal, int round, int *wrong) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        outbox[round * N + i] = expected(me, round, i);
    __syncthreads();
    if (threadIdx.x == 0) {
        nvshmem_int_put_signal_nbi(inbox + round * N, outbox + round * N, N, signal, 1,
                                   NVSHMEM_SIGNAL_ADD, next);
        nvshmem_signal_wait_until(signal, NVSHMEM_CMP_GE, (uint64_t)round + 1);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        if (inbox[round * N + i] != expected(prev, round, i))
            atomicAdd(wrong, 1);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    CHECK_CUDA(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    int *inbox = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int));
    int *outbox = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int));
    uint64_t *signal = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *wrong;
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    CHECK_CUDA(cudaMemset(inbox, 0xff, ROUNDS * N * sizeof(int)));
    nvshmem_barrier_all();

    for (int round = 0; round < ROUNDS; round++)
        ring<<<1, 256>>>(inbox, outbox, signal, round, wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    long bad = 0;
    int device_wrong = 0;
    CHECK_CUDA(cudaMemcpy(&device_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    bad += device_wrong;
    if (nvshmem_uint64_g(signal, me) != ROUNDS)
        bad++;

    /* Host side: p to the next PE, put of a host array, get back from the previous PE. */
    nvshmem_barrier_all();
    int host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = me * 7 + i;
    nvshmem_int_put(inbox, host, N, (me + 1) % n);
    nvshmem_int_p(inbox + N, 1000 + me, (me + 1) % n);
    nvshmem_barrier_all();
    nvshmem_int_get(back, inbox, N, (me + 1) % n);
    for (int i = 0; i < N; i++)
        bad += back[i] != me * 7 + i;
    bad += nvshmem_int_g(inbox + N, me) != 1000 + (me + n - 1) % n;
    nvshmem_barrier_all();

    CHECK_CUDA(cudaFree(wrong));
    nvshmem_free(signal);
    nvshmem_free(outbox);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return report("ring_signal", me, bad);
}
