/* Small host-side exchanges between the PEs of a team, over symcoll's own public API:
 * the NCCL unique id for --compare and the per-PE results that rank 0 prints. */
#ifndef SYMCOLL_PERF_EXCHANGE_H
#define SYMCOLL_PERF_EXCHANGE_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_EXCHANGE_BYTES 256 /* the most one PE passes at a time */

typedef struct {
    symcoll_team_t team;
    int npes, me; /* team numbering */
    cudaStream_t stream;
    void *sym;     /* symmetric, PERF_EXCHANGE_BYTES */
    void *staging; /* device memory, npes * PERF_EXCHANGE_BYTES */
} perf_exchange_t;

/* Collective over WORLD (allocates symmetric memory). 0 or -1 (reported on stderr). */
int perf_exchange_init(perf_exchange_t *ex, symcoll_team_t team, cudaStream_t stream);
/* 0, or -1 after reporting a failed release. */
int perf_exchange_fini(perf_exchange_t *ex);

/* Returns once every PE of the team has reached this point: a barrier on the stream, then
 * the host waits for the stream. */
int perf_sync_pes(symcoll_team_t team, cudaStream_t stream);

/* Every PE passes len bytes; team PE 0 receives them all, in team order, in all (npes * len
 * bytes; untouched on the other PEs). */
int perf_exchange_gather(perf_exchange_t *ex, const void *mine, size_t len, void *all);

/* Team PE 0's len bytes of data replace data on every PE. */
int perf_exchange_broadcast(perf_exchange_t *ex, void *data, size_t len);

/* Collective: a step that failed on some PE (rc nonzero there; it has reported why) fails on
 * every PE, instead of leaving the others in the next exchange. Returns rc where it is
 * nonzero, -1 where another PE failed, else 0. */
int perf_exchange_agree(perf_exchange_t *ex, int rc);

#ifdef __cplusplus
}
#endif
#endif
