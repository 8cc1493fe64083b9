/* alltoallv and the expert-grouped dispatch and combine on a team across nodes (its parts as
 * the other collectives across nodes take them: one PE of each node or whole nodes, all alike).
 * After every PE has entered, each sends its header (its row of counts with the call's shape,
 * capacity and room in src) to every PE, into a row of the scratch; once every row is in, every PE
 * lays the call out from the same rows, as the LL path does from its packets, so that all agree on
 * where each segment lands and on whether the call fits; then the segments go to the node's
 * PEs by stores and to the others through the proxy (kernels/nodes_alltoallv.cu). */
#include "nodes_plan.h"

/* Blocks of the data kernel: one per MiB of a PE's share of dst, at most the node kernels'
 * grid. */
#define NODES_A2AV_BYTES_PER_BLOCK ((size_t)1 << 20)
#define NODES_A2AV_MAX_BLOCKS 32

static int data_blocks(size_t dst_bytes, int pes) {
    size_t blocks = 1 + dst_bytes / (size_t)pes / NODES_A2AV_BYTES_PER_BLOCK;
    int most =
        symcoll_g.sm_count < NODES_A2AV_MAX_BLOCKS ? symcoll_g.sm_count : NODES_A2AV_MAX_BLOCKS;
    return blocks < (size_t)most ? (int)blocks : most > 0 ? most : 1;
}

symcoll_status_t symcoll_nodes_alltoallv(const symcoll_coll_call_t *call,
                                         symcoll_alltoallv_args_t *args, void *dst, const void *src,
                                         size_t dst_bytes, cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = symcoll_nodes_begin(&p, call, stream);
    const int n = call->team->size;
    const size_t rows = (size_t)n * SYMCOLL_ALLTOALLV_HEADER_WORDS * sizeof(uint64_t);
    if (st == SYMCOLL_SUCCESS && rows > symcoll_g.nodes_scratch_size)
        st = symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                               "%s: SYMCOLL_NODES_SCRATCH %zu bytes cannot hold the headers of "
                               "%d PEs across nodes: it needs at least %zu bytes",
                               call->fn, symcoll_g.nodes_scratch_size, n, rows);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_enter(&p);
    if (st != SYMCOLL_SUCCESS)
        return st;
    args->c = (symcoll_coll_args_t){
        .h = symcoll_team_device(call->team),
        .dst = dst,
        .src = src,
        .collective = SYMCOLL_COLL_ALLTOALLV,
    };
    args->headers = (uint64_t *)symcoll_g.nodes_scratch;
    const uint64_t others = (uint64_t)(n - p.per_node);
    /* The node's PEs meet where the team holds the whole node; one PE of it has no one to meet. */
    const bool whole = p.per_node > 1;
    /* The waits are enqueued also after a failed launch: the counts of awaited signals stay in
     * step with what the other PEs send. */
    st = symcoll_cuda_status(
        symcoll_nodes_alltoallv_header_launch(
            args, symcoll_nodes_arrivals(call->team, SYMCOLL_NODES_HEADER_ARRIVALS), stream),
        call->fn, "kernel launch of the headers");
    symcoll_status_t waited =
        symcoll_nodes_await(call, SYMCOLL_NODES_HEADER_ARRIVALS, others, stream);
    symcoll_status_t met = symcoll_nodes_node_barrier(call, whole, stream);
    st = st != SYMCOLL_SUCCESS ? st : waited != SYMCOLL_SUCCESS ? waited : met;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(
            symcoll_nodes_alltoallv_launch(
                args, symcoll_nodes_arrivals(call->team, SYMCOLL_NODES_DATA_ARRIVALS),
                data_blocks(dst_bytes, n), SYMCOLL_TUNING_MAX_THREADS, stream),
            call->fn, "kernel launch");
    st = symcoll_nodes_settle(&p, st, others);
    /* Also after a failure: the node's barrier counts stay in step with its peers'. */
    met = symcoll_nodes_node_barrier(call, whole, stream);
    return st != SYMCOLL_SUCCESS ? st : met;
}
