/* The kernels of --op dev_<collective>: the collectives of symcoll_device_coll.cuh in a loop
 * inside one kernel (perf/dev_coll_kernels.cu). */
#ifndef SYMCOLL_PERF_DEV_COLL_KERNELS_H
#define SYMCOLL_PERF_DEV_COLL_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "ops.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scopes, as an X-macro: X(ID, name, threads), threads per block of its kernels: warp
 * scope one warp, block scope one block of 128 threads (as --op dev_barrier's), grid scope
 * blocks of the host-launched collectives' largest, SYMCOLL_TUNING_MAX_THREADS (512). */
#define PERF_DEV_SCOPES(X)                                                                         \
    X(WARP, warp, 32) X(BLOCK, block, 128) X(GRID, grid, SYMCOLL_TUNING_MAX_THREADS)
#define PERF_DEV_SCOPE_ENUM(id, name, threads) PERF_DEV_SCOPE_##id,
typedef enum { PERF_DEV_SCOPES(PERF_DEV_SCOPE_ENUM) PERF_DEV_NUM_SCOPES } perf_dev_scope_t;
#undef PERF_DEV_SCOPE_ENUM

/* One call's arguments, the same in every iteration. */
typedef struct {
    symcoll_device_t h; /* WORLD's */
    float *dst;         /* symmetric */
    const float *src;   /* symmetric */
    size_t count;       /* elements, as the host call's */
    int root;           /* broadcast's */
    int *failed;        /* device memory: set to 1 when a call returns false */
} perf_dev_call_t;

/* A kernel of blocks blocks (1 for warp and block scope) that makes iters calls of
 * coll at scope on float32 (sum for reduce). A call that returns false (a timed-out wait, a
 * grid past the synchronization slots) sets *failed and ends the kernel. */
cudaError_t perf_dev_coll_launch(perf_dev_coll_t coll, perf_dev_scope_t scope,
                                 const perf_dev_call_t *call, int blocks, int iters,
                                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
