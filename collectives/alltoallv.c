/* alltoallv and the expert-grouped dispatch and combine, with the counts in device memory: the
 * host checks what it can see (the team, the buffers, dst's capacity, the experts) and picks
 * the algorithm by dst's capacity per PE; the kernel (kernels/alltoallv.cu) exchanges the
 * counts and checks them against every PE's dst capacity and src allocation. WORLD across
 * nodes takes its own plan (collectives/nodes_alltoallv.c). */
#include "nodes_plan.h"

/* One call as its public function received it. */
typedef struct {
    symcoll_team_t team;
    void *dst;
    size_t dst_capacity;
    const void *src;
    const size_t *send_counts;
    size_t *recv_counts, *recv_offsets; /* NULL in a combine */
    int experts;
    size_t align;
    bool combine;
    symcoll_datatype_t type;
    cudaStream_t stream;
} exchange_t;

/* A counts array (team size x experts entries of device memory), outside dst: peers write
 * dst while this PE's blocks may still read send_counts, and block 0 writes recv_counts and
 * recv_offsets while peers still push into dst. */
static symcoll_status_t check_counts(const symcoll_coll_call_t *call, const exchange_t *x,
                                     const char *arg, const void *p, size_t dst_bytes) {
    if (!p)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", call->fn, arg);
    size_t bytes = (size_t)call->team->size * (size_t)x->experts * sizeof(size_t);
    return symcoll_check_no_overlap(call->fn, arg, p, bytes, "dst", x->dst, dst_bytes);
}

static symcoll_status_t check_experts(const symcoll_coll_call_t *call, const exchange_t *x) {
    if (x->experts < 1 || (long)x->experts * call->team->size > SYMCOLL_ALLTOALLV_MAX_SEGMENTS)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: n_experts %d: at least 1, and at most %d per PE in a team "
                                 "of %d (team size x n_experts <= %d)",
                                 call->fn, x->experts,
                                 SYMCOLL_ALLTOALLV_MAX_SEGMENTS / call->team->size,
                                 call->team->size, SYMCOLL_ALLTOALLV_MAX_SEGMENTS);
    /* Larger than the capacity is fine (only the last group's elements need room: the padding
     * past it is never written); the bound keeps the kernel's sums of up to 512 group lengths,
     * each at most 512 x (capacity + 1) + align, far below 2^64. */
    if (x->align < 1 || x->align > SYMCOLL_MOE_MAX_ALIGN)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: major_align %zu: 1 to %llu elements", call->fn, x->align,
                                 SYMCOLL_MOE_MAX_ALIGN);
    return SYMCOLL_SUCCESS;
}

/* The call's shape in one word (FNV-1a over its parts), which every member's must match. */
static uint64_t shape_of(const exchange_t *x, size_t elem_size) {
    const uint64_t parts[] = {(uint64_t)x->experts, (uint64_t)x->align, (uint64_t)elem_size,
                              (uint64_t)x->combine};
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (int byte = 0; byte < 8; byte++)
            h = (h ^ ((parts[i] >> (8 * byte)) & 0xff)) * 1099511628211ull;
    return h;
}

/* The elements from src to the end of its allocation, or to dst where dst follows it there. */
static symcoll_status_t src_room(const symcoll_coll_call_t *call, const exchange_t *x,
                                 size_t dst_bytes, size_t *room_elements) {
    void *base = NULL;
    size_t size = 0;
    if (!symcoll_heap_find(x->src, &base, &size))
        return symcoll_check_symmetric(call->fn, "src", x->src, 0);
    const char *s = (const char *)x->src, *d = (const char *)x->dst;
    size_t room = size - (size_t)(s - (const char *)base);
    if (d > s && (size_t)(d - s) < room)
        room = (size_t)(d - s);
    *room_elements = room / call->elem_size;
    return symcoll_check_no_overlap(call->fn, "dst", x->dst, dst_bytes, "src", x->src, room);
}

static symcoll_status_t exchange(const char *fn, const exchange_t *x) {
    symcoll_coll_call_t call;
    size_t dst_bytes = 0, room = 0;
    symcoll_status_t st =
        symcoll_coll_begin(&call, fn, SYMCOLL_COLL_ALLTOALLV, x->team, x->type, x->stream);
    if (st == SYMCOLL_SUCCESS)
        st = check_experts(&call, x);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_bytes(&call, "dst_capacity", x->dst_capacity, 1, &dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(fn, "dst", x->dst, dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = check_counts(&call, x, "send_counts", x->send_counts, dst_bytes);
    if (st == SYMCOLL_SUCCESS && !x->combine)
        st = check_counts(&call, x, "recv_counts", x->recv_counts, dst_bytes);
    if (st == SYMCOLL_SUCCESS && !x->combine)
        st = check_counts(&call, x, "recv_offsets", x->recv_offsets, dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = src_room(&call, x, dst_bytes, &room);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_alltoallv_args_t args = {
        .elem_size = call.elem_size,
        .capacity = x->dst_capacity,
        .src_room = room,
        .send_counts = x->send_counts,
        .recv_counts = x->recv_counts,
        .recv_offsets = x->recv_offsets,
        .experts = x->experts,
        .combine = x->combine,
        .align = x->align,
        .shape = shape_of(x, call.elem_size),
        .overflow = call.team->overflow_device,
    };
    if (symcoll_nodes_spans(call.team))
        return symcoll_nodes_alltoallv(&call, &args, x->dst, x->src, dst_bytes, x->stream);
    symcoll_choice_t choice;
    size_t per_pe = dst_bytes / (size_t)call.team->size;
    st = symcoll_coll_prepare(&call, dst_bytes, x->dst, x->src, per_pe, &args.c, &choice);
    return st != SYMCOLL_SUCCESS
               ? st
               : symcoll_coll_launched(&call, symcoll_alltoallv_launch(&args, choice.blocks,
                                                                       choice.threads, x->stream));
}

symcoll_status_t symcoll_alltoallv_on_stream(symcoll_team_t team, void *dst, size_t dst_capacity,
                                             const void *src, const size_t *send_counts,
                                             size_t *recv_counts, size_t *recv_offsets,
                                             symcoll_datatype_t type, cudaStream_t stream) {
    exchange_t x = {team, dst, dst_capacity, src,  send_counts, recv_counts, recv_offsets,
                    1,    1,   false,        type, stream};
    return exchange("symcoll_alltoallv_on_stream", &x);
}

symcoll_status_t symcoll_moe_dispatch_on_stream(symcoll_team_t team, void *dst, size_t dst_capacity,
                                                const void *src, const size_t *send_counts,
                                                size_t *recv_counts, size_t *recv_offsets,
                                                int n_experts, size_t major_align,
                                                symcoll_datatype_t type, cudaStream_t stream) {
    exchange_t x = {team,         dst,       dst_capacity, src,   send_counts, recv_counts,
                    recv_offsets, n_experts, major_align,  false, type,        stream};
    return exchange("symcoll_moe_dispatch_on_stream", &x);
}

symcoll_status_t symcoll_moe_combine_on_stream(symcoll_team_t team, void *dst, size_t dst_capacity,
                                               const void *src, const size_t *send_counts,
                                               int n_experts, size_t major_align,
                                               symcoll_datatype_t type, cudaStream_t stream) {
    exchange_t x = {team, dst,       dst_capacity, src,  send_counts, NULL,
                    NULL, n_experts, major_align,  true, type,        stream};
    return exchange("symcoll_moe_combine_on_stream", &x);
}
