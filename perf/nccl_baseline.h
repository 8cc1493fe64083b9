/* --compare nccl: the same collectives through NCCL in the same process, on plain buffers
 * (cudaMalloc) and on symmetric windows (ncclMemAlloc + NCCL_WIN_COLL_SYMMETRIC). */
#ifndef SYMCOLL_PERF_NCCL_BASELINE_H
#define SYMCOLL_PERF_NCCL_BASELINE_H

#include <stdbool.h>
#include <nccl.h>
#include "exchange.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    ncclComm_t comm;
    void *plain_src, *plain_dst;
    void *sym_src, *sym_dst;
    ncclWindow_t sym_src_win, sym_dst_win;
    size_t *host_counts; /* pinned, 2 x npes: alltoallv's send and received counts */
} perf_nccl_t;

/* 0, or -1 after reporting what failed and NCCL's reason. */
int perf_nccl_check(ncclResult_t rc, const char *what);
#define PERF_NCCL(call)                                                                            \
    do {                                                                                           \
        if (perf_nccl_check((call), #call) != 0)                                                   \
            return -1;                                                                             \
    } while (0)

/* Collective over the exchange's team: a communicator of its PEs (the unique id travels
 * through ex) and buffers of bytes each. 0 or -1 (reported). */
int perf_nccl_init(perf_nccl_t *nc, perf_exchange_t *ex, size_t bytes);
/* 0, or -1 after reporting a failed release. */
int perf_nccl_fini(perf_nccl_t *nc);

/* False when NCCL has no equivalent (bitwise reductions). */
bool perf_nccl_supports(const perf_call_t *c);

/* The NCCL counterpart of c: barrier an all-reduce of one float, broadcast ncclBroadcast,
 * reduce ncclAllReduce, fcollect ncclAllGather, alltoall ncclAlltoAll, reduce_scatter
 * ncclReduceScatter, alltoallv what its user pays with the counts on the device: ncclAlltoAll
 * of the counts, a copy of them to the host and a stream sync, then ncclSend and ncclRecv per
 * peer in a group (so not in graph mode: perf_op_nccl_syncs_host). */
int perf_nccl_enqueue(const perf_nccl_t *nc, const perf_call_t *c, bool symmetric,
                      cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
