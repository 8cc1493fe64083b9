/* reduce and reduce_scatter across nodes. Each node reduces within itself; then the PEs of one
 * local rank exchange their node's partial results of one shard through the proxy into each
 * other's scratch (symcoll_g.nodes_scratch, one slot per node), and each combines them in node
 * order, so that every node computes the same bits. A message larger than the scratch goes in
 * rounds, each entered by every PE before its slots are written. */
#include <stdint.h>
#include "nodes_plan.h"

/* Bytes of one slot when the scratch holds `slots` of them: 16-byte aligned, whole elements. */
static size_t slot_bytes(size_t slots, size_t elem_size) {
    size_t bytes = symcoll_g.nodes_scratch_size / slots / 16 * 16;
    return bytes / elem_size * elem_size;
}

static symcoll_status_t scratch_too_small(const symcoll_nodes_plan_t *p, size_t slots) {
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "%s: SYMCOLL_NODES_SCRATCH %zu bytes holds no element of %zu bytes in "
                             "each of its %zu slots; it needs at least %zu bytes",
                             p->call->fn, symcoll_g.nodes_scratch_size, p->call->elem_size, slots,
                             slots * 16);
}

/* First element of shard `local` of count elements split over per_node PEs. */
static size_t shard_begin(size_t count, int per_node, int local) {
    return count / (size_t)per_node * (size_t)local +
           (count % (size_t)per_node) * (size_t)local / (size_t)per_node;
}

/* The node's PEs share their combined shards: one in-place fcollect where the shards are equal,
 * else a broadcast from each. */
static symcoll_status_t share_shards(const symcoll_nodes_plan_t *p, char *out, size_t count,
                                     symcoll_datatype_t type) {
    const size_t e = p->call->elem_size, bytes = count * e;
    if (count % (size_t)p->per_node == 0) {
        size_t block = bytes / (size_t)p->per_node;
        return symcoll_nodes_on_node(p, SYMCOLL_COLL_FCOLLECT, out, out + (size_t)p->local * block,
                                     block, bytes, 0, type, SYMCOLL_SUM);
    }
    symcoll_status_t st = SYMCOLL_SUCCESS;
    for (int r = 0; st == SYMCOLL_SUCCESS && r < p->per_node; r++) {
        size_t lo = shard_begin(count, p->per_node, r), hi = shard_begin(count, p->per_node, r + 1);
        st = symcoll_nodes_on_node(p, SYMCOLL_COLL_BROADCAST, out + lo * e, out + lo * e,
                                   (hi - lo) * e, (hi - lo) * e, r, type, SYMCOLL_SUM);
    }
    return st;
}

/* One round of reduce: count elements (at most per_node slots' worth). */
static symcoll_status_t reduce_round(const symcoll_nodes_plan_t *p, char *out, const char *in,
                                     size_t count, size_t slot, symcoll_datatype_t type,
                                     symcoll_op_t op) {
    const size_t e = p->call->elem_size;
    size_t lo = shard_begin(count, p->per_node, p->local);
    size_t n = shard_begin(count, p->per_node, p->local + 1) - lo;
    symcoll_status_t st = symcoll_nodes_enter(p);
    if (st != SYMCOLL_SUCCESS)
        return st;
    st = symcoll_nodes_on_node(p, SYMCOLL_COLL_REDUCE, out, in, count * e, count * e, 0, type, op);
    for (int k = 0; st == SYMCOLL_SUCCESS && n > 0 && k < p->nodes; k++)
        if (k != p->node)
            st = symcoll_nodes_send(p, symcoll_g.nodes_scratch + (size_t)p->node * slot,
                                    out + lo * e, n * e, symcoll_nodes_pe(p, k, p->local));
    if (n > 0)
        st = symcoll_nodes_settle(p, st, (uint64_t)(p->nodes - 1));
    if (st == SYMCOLL_SUCCESS && n > 0)
        st = symcoll_nodes_combine(p, out + lo * e, out + lo * e, symcoll_g.nodes_scratch, slot, n,
                                   type, op);
    return st == SYMCOLL_SUCCESS && p->per_node > 1 ? share_shards(p, out, count, type) : st;
}

symcoll_status_t symcoll_nodes_reduce(const symcoll_coll_call_t *call, void *dst, const void *src,
                                      size_t count, symcoll_datatype_t type, symcoll_op_t op,
                                      cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = symcoll_nodes_begin(&p, call, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    const size_t e = call->elem_size, slot = slot_bytes((size_t)p.nodes, e);
    if (slot == 0)
        return scratch_too_small(&p, (size_t)p.nodes);
    const size_t per_round = slot / e * (size_t)p.per_node;
    for (size_t first = 0; st == SYMCOLL_SUCCESS && first < count; first += per_round) {
        size_t n = count - first < per_round ? count - first : per_round;
        st = reduce_round(&p, (char *)dst + first * e, (const char *)src + first * e, n, slot, type,
                          op);
    }
    return st;
}

/* A pitch CUDA's 2D copies take (cudaDevAttrMaxPitch is 2^31 - 1 on every GPU it supports). */
#define MAX_PITCH ((size_t)INT32_MAX)

/* part bytes of each of the node's per_node blocks (block_bytes apart, from blocks) into tmp,
 * one after the other. */
static symcoll_status_t gather_blocks(const symcoll_nodes_plan_t *p, char *tmp, const char *blocks,
                                      size_t block_bytes, size_t part) {
    const char *what = "cudaMemcpy2DAsync of the blocks for another node";
    if (block_bytes <= MAX_PITCH)
        return symcoll_cuda_status(cudaMemcpy2DAsync(tmp, part, blocks, block_bytes, part,
                                                     (size_t)p->per_node, cudaMemcpyDeviceToDevice,
                                                     p->stream),
                                   p->call->fn, what);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    for (int local = 0; st == SYMCOLL_SUCCESS && local < p->per_node; local++)
        st = symcoll_cuda_status(cudaMemcpyAsync(tmp + (size_t)local * part,
                                                 blocks + (size_t)local * block_bytes, part,
                                                 cudaMemcpyDeviceToDevice, p->stream),
                                 p->call->fn, what);
    return st;
}

/* One round of reduce_scatter: elements [first, first + n) of every block. For each other node,
 * this node's blocks for it are gathered into the scratch after the slots (tmp), reduced there
 * in place by the node, and this PE's part goes to its peer on that node. */
static symcoll_status_t scatter_round(const symcoll_nodes_plan_t *p, char *out, const char *in,
                                      size_t block_bytes, size_t first, size_t n, size_t slot,
                                      symcoll_datatype_t type, symcoll_op_t op) {
    const size_t e = p->call->elem_size, part = n * e;
    char *tmp = symcoll_g.nodes_scratch + (size_t)p->nodes * slot;
    symcoll_status_t st = symcoll_nodes_enter(p);
    if (st != SYMCOLL_SUCCESS)
        return st;
    for (int k = 0; st == SYMCOLL_SUCCESS && k < p->nodes; k++) {
        if (k == p->node)
            continue;
        const char *blocks = in + (size_t)symcoll_nodes_rank(p, k, 0) * block_bytes + first * e;
        st = gather_blocks(p, tmp, blocks, block_bytes, part);
        if (st == SYMCOLL_SUCCESS)
            st =
                symcoll_nodes_on_node(p, SYMCOLL_COLL_REDUCE_SCATTER, tmp + (size_t)p->local * part,
                                      tmp, part, (size_t)p->per_node * part, 0, type, op);
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_nodes_send(p, symcoll_g.nodes_scratch + (size_t)p->node * slot,
                                    tmp + (size_t)p->local * part, part,
                                    symcoll_nodes_pe(p, k, p->local));
    }
    st = symcoll_nodes_settle(p, st, (uint64_t)(p->nodes - 1));
    return st == SYMCOLL_SUCCESS ? symcoll_nodes_combine(p, out + first * e, out + first * e,
                                                         symcoll_g.nodes_scratch, slot, n, type, op)
                                 : st;
}

symcoll_status_t symcoll_nodes_reduce_scatter(const symcoll_coll_call_t *call, void *dst,
                                              const void *src, size_t count_per_pe,
                                              symcoll_datatype_t type, symcoll_op_t op,
                                              cudaStream_t stream) {
    symcoll_nodes_plan_t p;
    symcoll_status_t st = symcoll_nodes_begin(&p, call, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    const size_t e = call->elem_size, block = count_per_pe * e;
    const size_t slots = (size_t)(p.nodes + p.per_node), slot = slot_bytes(slots, e);
    if (slot == 0)
        return scratch_too_small(&p, slots);
    const char *in = (const char *)src;
    /* This node's own blocks: dst is block `local` of them in place. */
    st = symcoll_nodes_on_node(&p, SYMCOLL_COLL_REDUCE_SCATTER, dst,
                               in + (size_t)symcoll_nodes_rank(&p, p.node, 0) * block, block,
                               (size_t)p.per_node * block, 0, type, op);
    for (size_t first = 0; st == SYMCOLL_SUCCESS && first < count_per_pe; first += slot / e) {
        size_t n = count_per_pe - first < slot / e ? count_per_pe - first : slot / e;
        st = scatter_round(&p, (char *)dst, in, block, first, n, slot, type, op);
    }
    return st;
}
