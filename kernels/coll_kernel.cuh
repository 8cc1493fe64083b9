/* The launch of a collective kernel, and the group its blocks run the algorithms of
 * include/symcoll/detail as. */
#ifndef SYMCOLL_COLL_KERNEL_CUH
#define SYMCOLL_COLL_KERNEL_CUH

#include "arch_check.cuh"
#include "coll_launch.h"
#include "symcoll/detail/coll_common.cuh"

/* Blocks of at most SYMCOLL_TUNING_MAX_THREADS (coll_algorithms.h); tuning never asks for more.
 * One block per SM is enough (grids stay <= the SM count), so a kernel may use up to 128
 * registers per thread. */
#define COLL_LAUNCH_BOUNDS __launch_bounds__(SYMCOLL_TUNING_MAX_THREADS, 1)
/* At most 64 registers: two 512-thread blocks fit one SM, as they must for grids that fill
 * the SMs when two PEs share a GPU (their blocks then share SMs). */
#define COLL_LAUNCH_BOUNDS_2 __launch_bounds__(SYMCOLL_TUNING_MAX_THREADS, 2)

typedef void (*coll_kernel_t)(symcoll_coll_args_t);

static inline cudaError_t coll_launch(coll_kernel_t kernel, const symcoll_coll_args_t *args,
                                      int blocks, int threads, cudaStream_t stream) {
    void *params[] = {(void *)args};
    return cudaLaunchKernel((const void *)kernel, dim3(blocks), dim3(threads), params, 0, stream);
}

/* A block of a collective kernel (1-D): part blockIdx.x of the grid's work. The kernel ends
 * with the collective, so nothing is read after it. */
SYMCOLL_DEV symcoll_dev_group_t coll_kernel_group(void) {
    return {threadIdx.x, blockDim.x, blockIdx.x, gridDim.x, blockIdx.x, false, false};
}

#endif
