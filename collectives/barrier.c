/* Team barrier on a stream: one kernel (kernels/barrier.cu), quiet included. WORLD across nodes:
 * a quiet of the proxy, the node's barrier, the nodes' first PEs meet through the proxy, the
 * node's barrier again. */
#include "barrier_launch.h"
#include "internal.h"
#include "nodes_plan.h"
#include "rma_remote.h"

/* The leaders' meeting: each adds 1 to every other leader's arrivals (through the proxy, in
 * stream order) and waits for one round of arrivals from all of them. The node's barrier before
 * it holds every PE of the node until its quiet is done. */
static symcoll_status_t leaders_meet(const char *fn, cudaStream_t stream) {
    uint64_t *arrivals = &symcoll_g.nodes_sync[SYMCOLL_NODES_BARRIER_ARRIVALS];
    symcoll_status_t st = SYMCOLL_SUCCESS;
    for (int k = 0; k < symcoll_g.n_nodes && st == SYMCOLL_SUCCESS; k++)
        if (symcoll_g.node_leaders[k] != symcoll_g.my_pe)
            st = symcoll_rma_remote_put(fn, NULL, NULL, 0, arrivals, 1, SYMCOLL_SIGNAL_ADD,
                                        symcoll_g.node_leaders[k], SYMCOLL_COLL_BARRIER, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_nodes_await(fn, SYMCOLL_NODES_BARRIER_ARRIVALS,
                               (uint64_t)(symcoll_g.n_nodes - 1), SYMCOLL_COLL_BARRIER, stream);
}

symcoll_status_t symcoll_barrier_across_nodes(const char *fn, cudaStream_t stream) {
    if (symcoll_g.n_nodes == 0)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: the PEs of a node are not contiguous in rank, which a "
                                 "barrier across nodes needs",
                                 fn);
    symcoll_status_t st = symcoll_rma_remote_usable();
    /* Every PE's puts to other nodes are complete there before it arrives. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_rma_remote_quiet(fn, SYMCOLL_COLL_BARRIER, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_node_barrier(fn, stream);
    if (st == SYMCOLL_SUCCESS && symcoll_g.local_rank == 0)
        st = leaders_meet(fn, stream);
    return st == SYMCOLL_SUCCESS ? symcoll_nodes_node_barrier(fn, stream) : st;
}

symcoll_status_t symcoll_barrier_on_stream(symcoll_team_t team, cudaStream_t stream) {
    static const char fn[] = "symcoll_barrier_on_stream";
    symcoll_team_state_t *t;
    symcoll_status_t st = symcoll_team_for_call(fn, team, &t);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st == SYMCOLL_SUCCESS && symcoll_nodes_spans(t))
        return symcoll_barrier_across_nodes(fn, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_team_p2p(fn, t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_cuda_status(symcoll_barrier_launch(symcoll_team_device(t), stream), fn,
                               "barrier kernel launch");
}
