/* Team barrier on a stream: one kernel (kernels/barrier.cu), quiet included. A team across
 * nodes: a quiet of the proxy, the node's barrier, the team's first PE of each node meet through
 * the proxy, the node's barrier again; a collective's entry is the same without the quiet. */
#include "barrier_launch.h"
#include "internal.h"
#include "nodes_plan.h"
#include "rma_remote.h"

/* The leaders' meeting: each adds 1 to the team's arrivals at every other leader (the team's
 * first PE of each node; first[] as symcoll_nodes_runs gives them), through the proxy in stream
 * order, and waits for one round of arrivals from all of them. The node's barrier before it
 * holds every PE of the node until its quiet, where there is one, is done. The wait is enqueued
 * also after a failed put, so that this PE's count of awaited arrivals stays in step with what the
 * others send. */
static symcoll_status_t leaders_meet(const symcoll_coll_call_t *call, const int *first, int runs,
                                     cudaStream_t stream) {
    const symcoll_team_state_t *t = call->team;
    uint64_t *arrivals = symcoll_nodes_arrivals(t, SYMCOLL_NODES_BARRIER_ARRIVALS);
    symcoll_status_t sent = SYMCOLL_SUCCESS;
    for (int k = 0; k < runs; k++) { /* past a failure too: the other leaders wait for theirs */
        if (first[k] == t->my_pe)
            continue;
        symcoll_status_t st = symcoll_rma_remote_put(
            call->fn, NULL, NULL, 0, arrivals, 1, SYMCOLL_SIGNAL_ADD,
            t->start + first[k] * t->stride, t->handle, call->collective, stream);
        sent = sent != SYMCOLL_SUCCESS ? sent : st;
    }
    symcoll_status_t waited =
        symcoll_nodes_await(call, SYMCOLL_NODES_BARRIER_ARRIVALS, (uint64_t)(runs - 1), stream);
    return sent != SYMCOLL_SUCCESS ? sent : waited;
}

symcoll_status_t symcoll_barrier_across_nodes(const symcoll_coll_call_t *call, bool quiet,
                                              cudaStream_t stream) {
    const symcoll_team_state_t *t = call->team;
    int first[SYMCOLL_MAX_PES], runs = 0, mine = 0;
    symcoll_status_t st = symcoll_nodes_runs(call->fn, t, first, &runs);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_rma_remote_usable();
    if (st != SYMCOLL_SUCCESS)
        return st;
    while (mine + 1 < runs && first[mine + 1] <= t->my_pe)
        mine++;
    const int next = mine + 1 < runs ? first[mine + 1] : t->size;
    const bool whole = next - first[mine] > 1;
    /* With the quiet, every PE's puts to other nodes are complete there before it arrives. */
    if (quiet)
        st = symcoll_rma_remote_quiet(call->fn, t->handle, call->collective, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_node_barrier(call, whole, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (first[mine] == t->my_pe)
        st = leaders_meet(call, first, runs, stream);
    /* Also after a failed meeting: the node's barriers stay in step with its peers'. */
    symcoll_status_t met = symcoll_nodes_node_barrier(call, whole, stream);
    return st != SYMCOLL_SUCCESS ? st : met;
}

symcoll_status_t symcoll_barrier_on_stream(symcoll_team_t team, cudaStream_t stream) {
    static const char fn[] = "symcoll_barrier_on_stream";
    symcoll_team_state_t *t;
    symcoll_status_t st = symcoll_team_for_call(fn, team, &t);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st == SYMCOLL_SUCCESS && symcoll_nodes_spans(t)) {
        symcoll_coll_call_t call = {.fn = fn, .collective = SYMCOLL_COLL_BARRIER, .team = t};
        return symcoll_barrier_across_nodes(&call, true, stream);
    }
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_team_p2p(fn, t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_cuda_status(symcoll_barrier_launch(symcoll_team_device(t), stream), fn,
                               "barrier kernel launch");
}
