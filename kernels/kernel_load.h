/* Loading the library's kernels into the current context at init. With the CUDA runtime's
 * lazy loading (the default), a kernel is otherwise loaded at its first launch, inside the
 * user's first collective call. */
#ifndef SYMCOLL_KERNEL_LOAD_H
#define SYMCOLL_KERNEL_LOAD_H

#include <cuda_runtime_api.h>
#include "collectives.def"

#ifdef __cplusplus
extern "C" {
#endif

/* Every kernel of the library, on the current device, then a first launch. */
cudaError_t symcoll_kernels_load(void);

/* The kernels of one source file each (kernels/<name>.cu for every collective of the registry,
 * kernels/collectives.def); symcoll_kernels_load calls them all. */
#define SYMCOLL_KERNELS_LOAD_DECLARE(id, name, nccl, tuned, flow, algorithms)                      \
    cudaError_t symcoll_##name##_kernels_load(void);
SYMCOLL_COLLECTIVES(SYMCOLL_KERNELS_LOAD_DECLARE)
#undef SYMCOLL_KERNELS_LOAD_DECLARE
cudaError_t symcoll_rma_kernels_load(void);
cudaError_t symcoll_halo_kernels_load(void);
cudaError_t symcoll_nodes_combine_kernels_load(void);
cudaError_t symcoll_nodes_alltoallv_kernels_load(void);

#ifdef __cplusplus
}

/* Loads one kernel: querying its attributes makes the runtime load it now. */
static inline cudaError_t symcoll_kernel_load(const void *kernel) {
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, kernel);
}
#endif
#endif
