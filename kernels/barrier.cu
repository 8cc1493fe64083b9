/* The team barrier kernel: one block, one synchronization point on slot 0. */
#include "arch_check.cuh"
#include "barrier_launch.h"
#include "kernel_load.h"
#include "symcoll_device.cuh"

/* One warp: each thread signals and awaits team_size / 32 peers at most. */
#define BARRIER_THREADS 32

static __global__ void barrier_kernel(symcoll_device_t h) {
    symcoll_dev_sync_slot_final(h, 0, SYMCOLL_COLL_BARRIER);
}

extern "C" cudaError_t symcoll_barrier_launch(symcoll_device_t h, cudaStream_t stream) {
    void *params[] = {&h};
    return cudaLaunchKernel((const void *)barrier_kernel, dim3(1), dim3(BARRIER_THREADS), params, 0,
                            stream);
}

extern "C" cudaError_t symcoll_barrier_kernels_load(void) {
    return symcoll_kernel_load((const void *)barrier_kernel);
}
