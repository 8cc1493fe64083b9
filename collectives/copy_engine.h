/* The copy-engine broadcast ("ce"): the only collective that enqueues more than one kernel,
 * used where the copy engines measured faster than the SMs (large messages). */
#ifndef SYMCOLL_COPY_ENGINE_H
#define SYMCOLL_COPY_ENGINE_H

#include "coll_launch.h"
#include "internal.h"

cudaError_t symcoll_broadcast_copy_engine(const symcoll_coll_args_t *a, cudaStream_t stream);

#endif
