/* Collectives on a team that spans nodes (docs/design.md, "Collectives across nodes"): the
 * node's own kernels on the NODE team, and between nodes puts with signals through the proxy
 * among the team's PEs of the same rank in their node. Every step is enqueued on the caller's
 * stream (kernels and copies), so the plans are graph-capturable. */
#ifndef SYMCOLL_NODES_PLAN_H
#define SYMCOLL_NODES_PLAN_H

#include <stdbool.h>
#include "collective_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One collective across nodes in progress on the call's team: the team's PEs lie on `nodes`
 * nodes, per_node on each, consecutive in team rank (per_node is 1 or the whole node); this PE
 * is PE `local` of the team's node `node`, team PE node * per_node + local. */
typedef struct {
    const symcoll_coll_call_t *call;
    cudaStream_t stream;
    int nodes, per_node, node, local;
} symcoll_nodes_plan_t;

/* The NODE team's barrier on stream where whole is true (the call's team holds this whole
 * node; else it holds one PE of it, and there is none): the node's PEs are past their work
 * before it, stores into each other's memory included. */
symcoll_status_t symcoll_nodes_node_barrier(const symcoll_coll_call_t *call, bool whole,
                                            cudaStream_t stream);

/* The barrier across nodes of the call's team (collectives/barrier.c): a quiet of the proxy
 * where quiet is true, the node's barrier, the team's first PE of each node meet, the node's
 * barrier. */
symcoll_status_t symcoll_barrier_across_nodes(const symcoll_coll_call_t *call, bool quiet,
                                              cudaStream_t stream);

/* The nodes of a job, or of a job symcoll_explain describes: n_nodes runs of contiguous ranks,
 * node k's first PE leaders[k], n_pes in all (n_nodes 0: some node's PEs are not contiguous). */
typedef struct {
    int n_nodes, n_pes;
    const int *leaders;
} symcoll_nodes_layout_t;

/* The PEs of node k of a job laid out as job (its nodes contiguous in rank). */
int symcoll_nodes_size(const symcoll_nodes_layout_t *job, int k);

/* The PEs start + i * stride (i < size) of a job laid out as job (whose: the team in messages,
 * "team 3") are consecutive in rank on each node (its runs): the rank of each run's first PE
 * into first[] (SYMCOLL_MAX_PES of them) and how many runs; UNSUPPORTED, naming fn, unless the
 * job's nodes are contiguous in rank and each run is one PE or its whole node. */
symcoll_status_t symcoll_nodes_runs_in(const char *fn, const char *whose,
                                       const symcoll_nodes_layout_t *job, int start, int stride,
                                       int size, int *first, int *runs);
/* Those runs as data collectives take them: *nodes of them, *per_node PEs each; UNSUPPORTED
 * unless all are of one size. */
symcoll_status_t symcoll_nodes_parts_in(const char *fn, const char *whose,
                                        const symcoll_nodes_layout_t *job, int start, int stride,
                                        int size, int *nodes, int *per_node);

/* This job's nodes. */
symcoll_nodes_layout_t symcoll_nodes_job(void);
/* symcoll_nodes_runs_in and _parts_in for team t of this job. */
symcoll_status_t symcoll_nodes_runs(const char *fn, const symcoll_team_state_t *t, int *first,
                                    int *runs);
symcoll_status_t symcoll_nodes_parts(const char *fn, const symcoll_team_state_t *t, int *nodes,
                                     int *per_node);

/* Fills *p (symcoll_nodes_parts); the proxy's failure if it has failed. */
symcoll_status_t symcoll_nodes_begin(symcoll_nodes_plan_t *p, const symcoll_coll_call_t *call,
                                     cudaStream_t stream);

/* The team rank of PE `local` of the team's node `node`, and its WORLD PE. */
int symcoll_nodes_rank(const symcoll_nodes_plan_t *p, int node, int local);
int symcoll_nodes_pe(const symcoll_nodes_plan_t *p, int node, int local);

/* Every PE has entered the collective, so its buffers are free to write: the barrier across
 * nodes without its quiet. A PE's puts of the call before reached their targets before it
 * entered this one (each target waited for them), and the quiet, which waits for its last puts
 * to be freed at their targets, held a PE that sent for some 20 us more. A user's earlier puts
 * to other nodes are not completed by a collective: the barrier (or the device API's quiet)
 * completes them. */
symcoll_status_t symcoll_nodes_enter(const symcoll_nodes_plan_t *p);

/* A put of bytes from src (memory of this GPU) to pe's copy of the symmetric dst, then one
 * arrival at pe; src may be reused after it in stream order. */
symcoll_status_t symcoll_nodes_send(const symcoll_nodes_plan_t *p, void *dst, const void *src,
                                    size_t bytes, int pe);

/* Waits in stream order until `expected` more signals have reached the call's team's arrivals
 * of kind `arrivals` (SYMCOLL_NODES_BARRIER_ARRIVALS, _DATA_ARRIVALS or _HEADER_ARRIVALS) at this
 * PE, under the team's timeout, which names the collective. */
symcoll_status_t symcoll_nodes_await(const symcoll_coll_call_t *call, int arrivals,
                                     uint64_t expected, cudaStream_t stream);

/* Waits in stream order for `expected` more arrivals of data at this PE. */
symcoll_status_t symcoll_nodes_wait(const symcoll_nodes_plan_t *p, uint64_t expected);

/* The wait of a step whose status is st: also after a failure (st kept), so that this PE's
 * count of awaited arrivals stays in step with the puts its peers have sent. */
symcoll_status_t symcoll_nodes_settle(const symcoll_nodes_plan_t *p, symcoll_status_t st,
                                      uint64_t expected);

/* One collective on the NODE team (with one PE per node: the copy it amounts to): bytes as its
 * kernel arguments take them (a block; broadcast and reduce: all), tuned for tuning_bytes;
 * root for a broadcast, type and op for reductions. In place as the public calls define it,
 * fcollect included (src is block `local` of dst). */
symcoll_status_t symcoll_nodes_on_node(const symcoll_nodes_plan_t *p,
                                       symcoll_collective_t collective, void *dst, const void *src,
                                       size_t bytes, size_t tuning_bytes, int root,
                                       symcoll_datatype_t type, symcoll_op_t op);

/* out = op over the nodes' partial results of count elements in node order: this node's at
 * own, node k's at slots + k * slot_stride. */
symcoll_status_t symcoll_nodes_combine(const symcoll_nodes_plan_t *p, void *out, const void *own,
                                       const char *slots, size_t slot_stride, size_t count,
                                       symcoll_datatype_t type, symcoll_op_t op);

/* The collectives (collectives/nodes_exchange.c, nodes_reduce.c), after the public call's
 * checks; bytes of a block (fcollect, alltoall) or of the message (broadcast). */
symcoll_status_t symcoll_nodes_broadcast(const symcoll_coll_call_t *call, void *dst,
                                         const void *src, size_t bytes, int root,
                                         cudaStream_t stream);
symcoll_status_t symcoll_nodes_fcollect(const symcoll_coll_call_t *call, void *dst, const void *src,
                                        size_t block, cudaStream_t stream);
symcoll_status_t symcoll_nodes_alltoall(const symcoll_coll_call_t *call, void *dst, const void *src,
                                        size_t block, cudaStream_t stream);
symcoll_status_t symcoll_nodes_reduce(const symcoll_coll_call_t *call, void *dst, const void *src,
                                      size_t count, symcoll_datatype_t type, symcoll_op_t op,
                                      cudaStream_t stream);
symcoll_status_t symcoll_nodes_reduce_scatter(const symcoll_coll_call_t *call, void *dst,
                                              const void *src, size_t count_per_pe,
                                              symcoll_datatype_t type, symcoll_op_t op,
                                              cudaStream_t stream);
/* alltoallv, dispatch and combine (collectives/nodes_alltoallv.c): args filled in by the public
 * call but for args->c and args->headers; dst_bytes is dst's capacity in bytes. */
symcoll_status_t symcoll_nodes_alltoallv(const symcoll_coll_call_t *call,
                                         symcoll_alltoallv_args_t *args, void *dst, const void *src,
                                         size_t dst_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
