/* The device-side barrier at thread, warp and block scope: every round each thread stores a
 * value into the next PE with p, the group passes the barrier, then checks what the previous
 * PE stored this round, and passes a second barrier before the next round overwrites it. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define ROUNDS 100

enum { THREAD_SCOPE, WARP_SCOPE, BLOCK_SCOPE };

__device__ void barrier(int scope) {
    if (scope == BLOCK_SCOPE)
        nvshmemx_barrier_all_block();
    else if (scope == WARP_SCOPE)
        nvshmemx_barrier_all_warp();
    else
        nvshmem_barrier_all();
}

__global__ void rounds(int *slots, int scope, int *wrong) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int r = 0; r < ROUNDS; r++) {
        nvshmem_int_p(slots + threadIdx.x, me * 100000 + r * 1000 + (int)threadIdx.x, next);
        barrier(scope);
        if (slots[threadIdx.x] != prev * 100000 + r * 1000 + (int)threadIdx.x)
            atomicAdd(wrong, 1);
        barrier(scope);
    }
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe();
    set_device_of_node_pe();
    int *slots = (int *)nvshmem_calloc(256, sizeof(int));
    int *wrong;
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    nvshmem_barrier_all();
    rounds<<<1, 1>>>(slots, THREAD_SCOPE, wrong);
    rounds<<<1, 32>>>(slots, WARP_SCOPE, wrong);
    rounds<<<1, 256>>>(slots, BLOCK_SCOPE, wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    int device_wrong = 0;
    CHECK_CUDA(cudaMemcpy(&device_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    nvshmem_barrier_all();
    CHECK_CUDA(cudaFree(wrong));
    nvshmem_free(slots);
    nvshmem_finalize();
    return report("device_barrier", me, device_wrong);
}
