/* The kernel unit of two_units_main.cu: its own __constant__ handle, filled once. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

__global__ void ring(int *slots, int round, int *wrong) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    nvshmem_int_p(slots + threadIdx.x, me * 1000 + round * 64 + (int)threadIdx.x, next);
    nvshmemx_barrier_all_block();
    if (slots[threadIdx.x] != prev * 1000 + round * 64 + (int)threadIdx.x)
        atomicAdd(wrong, 1);
    nvshmemx_barrier_all_block();
}

long ring_in_other_unit(int *slots, int rounds) {
    if (nvshmemx_symcoll_init_tu() != 0)
        return 1;
    int *wrong, host_wrong = 0;
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    for (int r = 0; r < rounds; r++)
        ring<<<1, 64>>>(slots, r, wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(&host_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(wrong));
    return host_wrong;
}
