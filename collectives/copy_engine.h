/* The copy-engine variants ("ce"): the only collectives that enqueue more than one kernel,
 * used where the copy engines measured faster than the SMs (large messages). */
#ifndef SYMCOLL_COPY_ENGINE_H
#define SYMCOLL_COPY_ENGINE_H

#include <stdbool.h>
#include "coll_launch.h"
#include "internal.h"

cudaError_t symcoll_broadcast_copy_engine(const symcoll_coll_args_t *a, cudaStream_t stream);

/* fcollect (alltoall false) or alltoall. *enqueued is false, with nothing enqueued, when the
 * runtime's side stream is held by another graph capture: the caller takes an SM path. */
cudaError_t symcoll_exchange_copy_engine(const symcoll_coll_args_t *a, bool alltoall,
                                         cudaStream_t stream, bool *enqueued);

#endif
