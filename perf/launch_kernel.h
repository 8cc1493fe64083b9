/* The floor of every timing: an empty kernel, launched as the collectives launch theirs. */
#ifndef SYMCOLL_PERF_LAUNCH_KERNEL_H
#define SYMCOLL_PERF_LAUNCH_KERNEL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t perf_launch_empty_kernel(cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
