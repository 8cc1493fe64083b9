/* broadcast, fcollect and alltoall on a team across nodes (ranks and roots are team ranks): after
 * every PE has entered, the blocks for other nodes leave first (puts with signals through the
 * proxy), the node's kernel moves the node's own blocks meanwhile, and each PE waits for what it
 * receives before the node shares it. */
#include "nodes_plan.h"

static symcoll_status_t start(symcoll_nodes_plan_t *p, const symcoll_coll_call_t *call,
                              cudaStream_t stream) {
    symcoll_status_t st = symcoll_nodes_begin(p, call, stream);
    return st == SYMCOLL_SUCCESS ? symcoll_nodes_enter(p) : st;
}

/* The root sends to the PE of its local rank on every other node; each node then broadcasts from
 * that PE (in place on the nodes that received). */
symcoll_status_t symcoll_nodes_broadcast(const symcoll_coll_call_t *call, void *dst,
                                         const void *src, size_t bytes, int root,
                                         cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = start(&p, call, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    const int root_node = root / p.per_node, root_local = root % p.per_node;
    const bool root_here = p.node == root_node;
    for (int k = 0; st == SYMCOLL_SUCCESS && k < p.nodes; k++)
        if (k != root_node && p.call->team->my_pe == root)
            st = symcoll_nodes_send(&p, dst, src, bytes, symcoll_nodes_pe(&p, k, root_local));
    if (st == SYMCOLL_SUCCESS && !root_here && p.local == root_local)
        st = symcoll_nodes_wait(&p, 1);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_nodes_on_node(&p, SYMCOLL_COLL_BROADCAST, dst, root_here ? src : dst, bytes,
                                 bytes, root_local, SYMCOLL_INT8, SYMCOLL_SUM);
}

/* Each PE's block goes to the PE of its local rank on every other node, which then holds the
 * blocks of its local rank from all nodes; per other node, an in-place fcollect on the node
 * shares them, while the node's own blocks move first. */
symcoll_status_t symcoll_nodes_fcollect(const symcoll_coll_call_t *call, void *dst, const void *src,
                                        size_t block, cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = start(&p, call, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    char *out = (char *)dst;
    const size_t node_bytes = (size_t)p.per_node * block;
    for (int k = 0; st == SYMCOLL_SUCCESS && k < p.nodes; k++)
        if (k != p.node)
            st = symcoll_nodes_send(&p, out + (size_t)call->team->my_pe * block, src, block,
                                    symcoll_nodes_pe(&p, k, p.local));
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_on_node(&p, SYMCOLL_COLL_FCOLLECT, out + p.node * node_bytes, src, block,
                                   node_bytes, 0, SYMCOLL_INT8, SYMCOLL_SUM);
    st = symcoll_nodes_settle(&p, st, (uint64_t)(p.nodes - 1));
    for (int k = 0; st == SYMCOLL_SUCCESS && k < p.nodes; k++)
        if (k != p.node)
            st = symcoll_nodes_on_node(&p, SYMCOLL_COLL_FCOLLECT, out + k * node_bytes,
                                       out + k * node_bytes + (size_t)p.local * block, block,
                                       node_bytes, 0, SYMCOLL_INT8, SYMCOLL_SUM);
    return st;
}

/* Each PE puts its block for every PE of another node straight there; the node's kernel
 * exchanges the node's own blocks. */
symcoll_status_t symcoll_nodes_alltoall(const symcoll_coll_call_t *call, void *dst, const void *src,
                                        size_t block, cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = start(&p, call, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    char *out = (char *)dst;
    const char *in = (const char *)src;
    const size_t node_bytes = (size_t)p.per_node * block;
    for (int k = 0; st == SYMCOLL_SUCCESS && k < p.nodes; k++)
        for (int local = 0; st == SYMCOLL_SUCCESS && k != p.node && local < p.per_node; local++) {
            st = symcoll_nodes_send(&p, out + (size_t)call->team->my_pe * block,
                                    in + (size_t)symcoll_nodes_rank(&p, k, local) * block, block,
                                    symcoll_nodes_pe(&p, k, local));
        }
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_on_node(&p, SYMCOLL_COLL_ALLTOALL, out + p.node * node_bytes,
                                   in + p.node * node_bytes, block, node_bytes, 0, SYMCOLL_INT8,
                                   SYMCOLL_SUM);
    return symcoll_nodes_settle(&p, st, (uint64_t)(p.nodes - 1) * (uint64_t)p.per_node);
}
