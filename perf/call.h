/* Enqueues one collective call of symcoll-perf through the public API. */
#ifndef SYMCOLL_PERF_CALL_H
#define SYMCOLL_PERF_CALL_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c on team, from src into dst (both symmetric), on stream; alltoallv reads its send counts
 * from, and writes the received counts and offsets to, c->counts->device. */
symcoll_status_t perf_call_enqueue(const perf_call_t *c, symcoll_team_t team, void *dst,
                                   const void *src, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
