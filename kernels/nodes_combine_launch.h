/* Launch function of kernels/nodes_combine.cu, called by the collectives across nodes. */
#ifndef SYMCOLL_NODES_COMBINE_LAUNCH_H
#define SYMCOLL_NODES_COMBINE_LAUNCH_H

#include <stddef.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = op over inputs k = 0 .. inputs - 1 in that order, for i < count: input own_index is
 * own, input k another one at slots + k * slot_stride (all memory of this GPU). out may be own. */
typedef struct {
    void *out;
    const void *own;
    const char *slots;
    size_t slot_stride; /* bytes */
    size_t count;       /* elements */
    int inputs;
    int own_index;
} symcoll_combine_args_t;

/* One kernel, none for count 0. cudaErrorInvalidValue for an op the type does not have. */
cudaError_t symcoll_combine_launch(const symcoll_combine_args_t *args, symcoll_datatype_t type,
                                   symcoll_op_t op, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
