/* The steps that collectives across nodes are made of (collectives/nodes_plan.h). */
#include <stdio.h>
#include "nodes_plan.h"
#include "barrier_launch.h"
#include "nodes_combine_launch.h"
#include "nodes_proxy_memory.h"
#include "rma_launch.h"
#include "rma_remote.h"

symcoll_status_t symcoll_nodes_node_barrier(const symcoll_coll_call_t *call, bool whole,
                                            cudaStream_t stream) {
    if (!whole || symcoll_g.local_size == 1)
        return SYMCOLL_SUCCESS;
    return symcoll_cuda_status(
        symcoll_barrier_launch(symcoll_team_device(&symcoll_g.teams[SYMCOLL_TEAM_NODE]), stream),
        call->fn, "barrier kernel launch");
}

/* The node of PE pe, the job's nodes contiguous in rank. */
static int node_of(const symcoll_nodes_layout_t *job, int pe) {
    int k = 0;
    while (k + 1 < job->n_nodes && job->leaders[k + 1] <= pe)
        k++;
    return k;
}

int symcoll_nodes_size(const symcoll_nodes_layout_t *job, int k) {
    int end = k + 1 < job->n_nodes ? job->leaders[k + 1] : job->n_pes;
    return end - job->leaders[k];
}

symcoll_status_t symcoll_nodes_runs_in(const char *fn, const char *whose,
                                       const symcoll_nodes_layout_t *job, int start, int stride,
                                       int size, int *first, int *runs) {
    if (job->n_nodes == 0)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: the PEs of a node are not contiguous in rank, which calls "
                                 "across nodes need (symcoll-run --nodes and mpirun --map-by "
                                 "node:PE=... place them so)",
                                 fn);
    *runs = 0;
    for (int i = 0, node = -1; i <= size; i++) {
        int here = i < size ? node_of(job, start + i * stride) : -1;
        if (here == node)
            continue;
        if (*runs) {
            int run = i - first[*runs - 1];
            if (run != 1 && run != symcoll_nodes_size(job, node))
                return symcoll_set_error(
                    SYMCOLL_ERROR_UNSUPPORTED,
                    "%s: %s (start %d, stride %d, size %d) spans nodes and holds %d of the %d PEs "
                    "of node %d: calls across nodes need one PE of each of its nodes or whole "
                    "nodes",
                    fn, whose, start, stride, size, run, symcoll_nodes_size(job, node), node);
        }
        if (i < size)
            first[(*runs)++] = i;
        node = here;
    }
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_nodes_parts_in(const char *fn, const char *whose,
                                        const symcoll_nodes_layout_t *job, int start, int stride,
                                        int size, int *nodes, int *per_node) {
    int first[SYMCOLL_MAX_PES];
    symcoll_status_t st = symcoll_nodes_runs_in(fn, whose, job, start, stride, size, first, nodes);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *per_node = *nodes > 1 ? first[1] : size;
    bool equal = *per_node * *nodes == size;
    for (int k = 0; k < *nodes; k++)
        equal = equal && first[k] == k * *per_node;
    return equal ? SYMCOLL_SUCCESS
                 : symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                     "%s: %s holds different numbers of PEs on its %d nodes; "
                                     "collectives across nodes need the same number on each",
                                     fn, whose, *nodes);
}

symcoll_nodes_layout_t symcoll_nodes_job(void) {
    return (symcoll_nodes_layout_t){symcoll_g.n_nodes, symcoll_g.n_pes, symcoll_g.node_leaders};
}

/* Team t as messages name it. */
typedef struct {
    char text[32];
} team_name_t;

static team_name_t team_name(const symcoll_team_state_t *t) {
    team_name_t name;
    snprintf(name.text, sizeof name.text, "team %d", (int)t->handle);
    return name;
}

symcoll_status_t symcoll_nodes_runs(const char *fn, const symcoll_team_state_t *t, int *first,
                                    int *runs) {
    symcoll_nodes_layout_t job = symcoll_nodes_job();
    return symcoll_nodes_runs_in(fn, team_name(t).text, &job, t->start, t->stride, t->size, first,
                                 runs);
}

symcoll_status_t symcoll_nodes_parts(const char *fn, const symcoll_team_state_t *t, int *nodes,
                                     int *per_node) {
    symcoll_nodes_layout_t job = symcoll_nodes_job();
    return symcoll_nodes_parts_in(fn, team_name(t).text, &job, t->start, t->stride, t->size, nodes,
                                  per_node);
}

symcoll_status_t symcoll_nodes_begin(symcoll_nodes_plan_t *p, const symcoll_coll_call_t *call,
                                     cudaStream_t stream) {
    const symcoll_team_state_t *t = call->team;
    int runs = 0, per_node = 0;
    symcoll_status_t st = symcoll_nodes_parts(call->fn, t, &runs, &per_node);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_rma_remote_usable();
    /* Checked before anything is enqueued: a node step that failed after the plan's sends
     * would leave the others' puts unawaited. */
    if (st == SYMCOLL_SUCCESS && per_node > 1)
        st = symcoll_check_team_p2p(call->fn, &symcoll_g.teams[SYMCOLL_TEAM_NODE]);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *p = (symcoll_nodes_plan_t){
        .call = call,
        .stream = stream,
        .nodes = runs,
        .per_node = per_node,
        .node = t->my_pe / per_node,
        .local = t->my_pe % per_node,
    };
    return SYMCOLL_SUCCESS;
}

int symcoll_nodes_rank(const symcoll_nodes_plan_t *p, int node, int local) {
    return node * p->per_node + local;
}

int symcoll_nodes_pe(const symcoll_nodes_plan_t *p, int node, int local) {
    const symcoll_team_state_t *t = p->call->team;
    return t->start + symcoll_nodes_rank(p, node, local) * t->stride;
}

symcoll_status_t symcoll_nodes_enter(const symcoll_nodes_plan_t *p) {
    return symcoll_barrier_across_nodes(p->call, false, p->stream);
}

symcoll_status_t symcoll_nodes_send(const symcoll_nodes_plan_t *p, void *dst, const void *src,
                                    size_t bytes, int pe) {
    return symcoll_rma_remote_put(
        p->call->fn, dst, src, bytes,
        symcoll_nodes_arrivals(p->call->team, SYMCOLL_NODES_DATA_ARRIVALS), 1, SYMCOLL_SIGNAL_ADD,
        pe, p->call->team->handle, p->call->collective, p->stream);
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

symcoll_status_t symcoll_nodes_await(const symcoll_coll_call_t *call, int arrivals,
                                     uint64_t expected, cudaStream_t stream) {
    uint64_t *word = symcoll_nodes_arrivals(call->team, arrivals);
    return symcoll_cuda_status(symcoll_arrivals_wait_launch(symcoll_team_device(call->team), word,
                                                            symcoll_nodes_proxy_memory_mirror(word),
                                                            word + SYMCOLL_NODES_AWAITED, expected,
                                                            call->collective, stream),
                               call->fn, "wait kernel launch");
}

symcoll_status_t symcoll_nodes_wait(const symcoll_nodes_plan_t *p, uint64_t expected) {
    if (expected == 0)
        return SYMCOLL_SUCCESS;
    return symcoll_nodes_await(p->call, SYMCOLL_NODES_DATA_ARRIVALS, expected, p->stream);
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
