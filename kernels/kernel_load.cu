/* symcoll_kernels_load: every kernel source file's loader, in turn. */
#include "kernel_load.h"

extern "C" cudaError_t symcoll_kernels_load(void) {
    cudaError_t (*const loaders[])(void) = {
        symcoll_barrier_kernels_load,  symcoll_broadcast_kernels_load, symcoll_reduce_kernels_load,
        symcoll_fcollect_kernels_load, symcoll_alltoall_kernels_load,  symcoll_rma_kernels_load,
    };
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
        cudaError_t err = loaders[i]();
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}
