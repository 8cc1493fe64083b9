/* Launch functions of the data collectives' kernels (kernels/broadcast.cu, reduce.cu,
 * fcollect.cu, alltoall.cu), called by collectives/. Each enqueues exactly one kernel. */
#ifndef SYMCOLL_COLL_LAUNCH_H
#define SYMCOLL_COLL_LAUNCH_H

#include <stddef.h>
#include "coll_algorithms.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a collective kernel needs, passed by value as its only parameter. */
typedef struct {
    symcoll_device_t h; /* the team */
    char *dst;          /* symmetric, this PE's address */
    const char *src;    /* symmetric, this PE's address */
    size_t bytes;       /* broadcast, reduce: the message; fcollect, alltoall, reduce_scatter:
                           one PE's block */
    int root;           /* broadcast: the root's team PE number */
    int algo;           /* the collective's algorithm (coll_algorithms.h) */
    int collective;     /* symcoll_collective_t: which of the kernel's collectives */
} symcoll_coll_args_t;

cudaError_t symcoll_broadcast_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                     cudaStream_t stream);
cudaError_t symcoll_fcollect_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                    cudaStream_t stream);
cudaError_t symcoll_alltoall_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                    cudaStream_t stream);
/* reduce and reduce_scatter (args->collective); cudaErrorInvalidValue for a (type, op) pair
 * that has no kernel. */
cudaError_t symcoll_reduce_launch(const symcoll_coll_args_t *args, symcoll_datatype_t type,
                                  symcoll_op_t op, int blocks, int threads, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
