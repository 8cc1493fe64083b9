/* The steps that collectives across nodes are made of (collectives/nodes_plan.h). */
#include <stdio.h>
#include "nodes_plan.h"
#include "barrier_launch.h"
#include "nodes_combine_launch.h"
#include "rma_launch.h"
#include "rma_remote.h"

symcoll_status_t symcoll_nodes_node_barrier(const char *fn, cudaStream_t stream) {
    if (symcoll_g.local_size == 1)
        return SYMCOLL_SUCCESS;
    return symcoll_cuda_status(
        symcoll_barrier_launch(symcoll_team_device(&symcoll_g.teams[SYMCOLL_TEAM_NODE]), stream),
        fn, "barrier kernel launch");
}

bool symcoll_nodes_spans(const symcoll_team_state_t *t) {
    return symcoll_g.proxy && t == &symcoll_g.teams[SYMCOLL_TEAM_WORLD];
}

/* Nodes of the same size, each contiguous in rank: the plans address PE `local` of node k as
 * k * per_node + local. */
static bool nodes_regular(void) {
    int per_node = symcoll_g.local_size;
    if (symcoll_g.n_nodes < 2 || symcoll_g.n_nodes * per_node != symcoll_g.n_pes)
        return false;
    for (int k = 0; k < symcoll_g.n_nodes; k++)
        if (symcoll_g.node_leaders[k] != k * per_node)
            return false;
    return true;
}

symcoll_status_t symcoll_nodes_begin(symcoll_nodes_plan_t *p, const symcoll_coll_call_t *call,
                                     cudaStream_t stream) {
    if (!nodes_regular())
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: WORLD spans nodes of different sizes, or nodes whose PEs are "
                                 "not contiguous in rank; collectives across nodes need nodes "
                                 "of equal size, each a run of consecutive ranks (as symcoll-run "
                                 "--nodes and mpirun --map-by node:PE=... place them)",
                                 call->fn);
    symcoll_status_t st = symcoll_rma_remote_usable();
    /* Checked before anything is enqueued: a node step that failed after the plan's sends
     * would leave the others' puts unawaited. */
    if (st == SYMCOLL_SUCCESS && symcoll_g.local_size > 1)
        st = symcoll_check_team_p2p(call->fn, &symcoll_g.teams[SYMCOLL_TEAM_NODE]);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *p = (symcoll_nodes_plan_t){
        .call = call,
        .stream = stream,
        .nodes = symcoll_g.n_nodes,
        .per_node = symcoll_g.local_size,
        .node = symcoll_g.my_pe / symcoll_g.local_size,
        .local = symcoll_g.local_rank,
    };
    return SYMCOLL_SUCCESS;
}

int symcoll_nodes_pe(const symcoll_nodes_plan_t *p, int node, int local) {
    return node * p->per_node + local;
}

symcoll_status_t symcoll_nodes_enter(const symcoll_nodes_plan_t *p) {
    return symcoll_barrier_across_nodes(p->call->fn, p->stream);
}

symcoll_status_t symcoll_nodes_send(const symcoll_nodes_plan_t *p, void *dst, const void *src,
                                    size_t bytes, int pe) {
    return symcoll_rma_remote_put(p->call->fn, dst, src, bytes,
                                  &symcoll_g.nodes_sync[SYMCOLL_NODES_DATA_ARRIVALS], 1,
                                  SYMCOLL_SIGNAL_ADD, pe, p->call->collective, p->stream);
}

symcoll_status_t symcoll_nodes_settle(const symcoll_nodes_plan_t *p, symcoll_status_t st,
                                      uint64_t expected) {
    if (st == SYMCOLL_SUCCESS)
        return symcoll_nodes_wait(p, expected);
    char why[512];
    snprintf(why, sizeof why, "%s", symcoll_last_error());
    symcoll_nodes_wait(p, expected);
    return symcoll_set_error(st, "%s", why);
}

symcoll_status_t symcoll_nodes_await(const char *fn, int arrivals, uint64_t expected,
                                     symcoll_collective_t collective, cudaStream_t stream) {
    return symcoll_cuda_status(
        symcoll_arrivals_wait_launch(symcoll_team_device(&symcoll_g.teams[SYMCOLL_TEAM_WORLD]),
                                     &symcoll_g.nodes_sync[arrivals],
                                     &symcoll_g.nodes_sync[arrivals + SYMCOLL_NODES_AWAITED],
                                     expected, collective, stream),
        fn, "wait kernel launch");
}

symcoll_status_t symcoll_nodes_wait(const symcoll_nodes_plan_t *p, uint64_t expected) {
    if (expected == 0)
        return SYMCOLL_SUCCESS;
    return symcoll_nodes_await(p->call->fn, SYMCOLL_NODES_DATA_ARRIVALS, expected,
                               p->call->collective, p->stream);
}

symcoll_status_t symcoll_nodes_on_node(const symcoll_nodes_plan_t *p,
                                       symcoll_collective_t collective, void *dst, const void *src,
                                       size_t bytes, size_t tuning_bytes, int root,
                                       symcoll_datatype_t type, symcoll_op_t op) {
    const char *fn = p->call->fn;
    if (bytes == 0)
        return SYMCOLL_SUCCESS;
    if (p->per_node == 1)
        return dst == src
                   ? SYMCOLL_SUCCESS
                   : symcoll_cuda_status(
                         cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, p->stream), fn,
                         "cudaMemcpyAsync of the node's step");
    symcoll_coll_call_t node = *p->call;
    node.team = &symcoll_g.teams[SYMCOLL_TEAM_NODE];
    node.collective = collective;
    symcoll_coll_args_t args;
    symcoll_choice_t choice;
    symcoll_status_t st =
        symcoll_coll_prepare(&node, tuning_bytes, dst, src, bytes, &args, &choice);
    if (st != SYMCOLL_SUCCESS)
        return st;
    args.root = root;
    return symcoll_cuda_status(symcoll_coll_launch(&args, &choice, type, op, p->stream), fn,
                               "kernel launch of the node's step");
}

symcoll_status_t symcoll_nodes_combine(const symcoll_nodes_plan_t *p, void *out, const void *own,
                                       const char *slots, size_t slot_stride, size_t count,
                                       symcoll_datatype_t type, symcoll_op_t op) {
    symcoll_combine_args_t args = {
        .out = out,
        .own = own,
        .slots = slots,
        .slot_stride = slot_stride,
        .count = count,
        .inputs = p->nodes,
        .own_index = p->node,
    };
    return symcoll_cuda_status(symcoll_combine_launch(&args, type, op, p->stream), p->call->fn,
                               "kernel launch of the combine across nodes");
}
