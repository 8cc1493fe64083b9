/* --op moe beside NCCL: what a NCCL user with the router's counts on the device runs for one
 * dispatch and one combine. */
#ifndef SYMCOLL_PERF_MOE_NCCL_H
#define SYMCOLL_PERF_MOE_NCCL_H

#include <stdbool.h>
#include "nccl_baseline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int npes, experts;
    size_t *host;         /* pinned: the send counts, then the received ones, npes * experts each
                             ([i * experts + e], elements) */
    size_t *host_offsets; /* where each received segment goes: perf_moe_layout's offsets */
} perf_moe_nccl_t;

/* 0, or -1 after reporting the failure. */
int perf_moe_nccl_init(perf_moe_nccl_t *m, int npes, int experts);
/* 0, or -1 after reporting a failed release; nothing to release (a zeroed m) is fine. */
int perf_moe_nccl_fini(perf_moe_nccl_t *m);

/* One dispatch + combine of uint8 tokens: ncclAlltoAll of the send counts (device_counts, npes *
 * experts entries; the received ones land right after them), a copy of both to the host and a
 * stream sync, then ncclSend/ncclRecv per (peer, expert) in a group into the expert-major
 * layout (groups aligned to align elements), and the same segments back in a second group.
 * All of it is NCCL's call: a user pays the host sync on every layer, so graph mode cannot
 * capture it. The combine returns the tokens into nc's src, which nothing checks. */
int perf_moe_nccl_enqueue(const perf_nccl_t *nc, perf_moe_nccl_t *m, size_t *device_counts,
                          size_t align, bool symmetric, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
