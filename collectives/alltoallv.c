/* alltoallv with the counts in device memory: the host checks what it can see (the team, the
 * buffers, dst's capacity) and picks the algorithm by dst's capacity per PE; the kernel
 * (kernels/alltoallv.cu) exchanges the counts and checks them against every PE's dst capacity
 * and src allocation. */
#include "collective_common.h"

static symcoll_status_t check_device_array(const char *fn, const char *arg, const void *p) {
    if (p)
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, arg);
}

symcoll_status_t symcoll_alltoallv_on_stream(symcoll_team_t team, void *dst, size_t dst_capacity,
                                             const void *src, const size_t *send_counts,
                                             size_t *recv_counts, size_t *recv_offsets,
                                             symcoll_datatype_t type, cudaStream_t stream) {
    symcoll_coll_call_t call;
    size_t dst_bytes = 0;
    const char *fn = "symcoll_alltoallv_on_stream";
    symcoll_status_t st = symcoll_coll_begin(&call, fn, SYMCOLL_COLL_ALLTOALLV, team, type, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_bytes(&call, "dst_capacity", dst_capacity, 1, &dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(fn, "dst", dst, dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(fn, "src", src, 0);
    if (st == SYMCOLL_SUCCESS)
        st = check_device_array(fn, "send_counts", send_counts);
    if (st == SYMCOLL_SUCCESS)
        st = check_device_array(fn, "recv_counts", recv_counts);
    if (st == SYMCOLL_SUCCESS)
        st = check_device_array(fn, "recv_offsets", recv_offsets);
    void *src_base = NULL;
    size_t src_size = 0;
    /* src may run to the end of its allocation, or to dst where dst follows it there. */
    if (st == SYMCOLL_SUCCESS && symcoll_heap_find(src, &src_base, &src_size)) {
        const char *s = (const char *)src, *d = (const char *)dst;
        size_t room = src_size - (size_t)(s - (const char *)src_base);
        if (d > s && (size_t)(d - s) < room)
            room = (size_t)(d - s);
        st = symcoll_check_no_overlap(fn, "dst", dst, dst_bytes, "src", src, room);
        src_size = room / call.elem_size;
    }
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_alltoallv_args_t args = {
        .elem_size = call.elem_size,
        .capacity = dst_capacity,
        .src_room = src_size,
        .send_counts = send_counts,
        .recv_counts = recv_counts,
        .recv_offsets = recv_offsets,
        .overflow = call.team->overflow_device,
    };
    symcoll_choice_t choice;
    size_t per_pe = dst_bytes / (size_t)call.team->size;
    st = symcoll_coll_prepare(&call, dst_bytes, dst, src, per_pe, &args.c, &choice);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_coll_launched(
        &call, symcoll_alltoallv_launch(&args, choice.blocks, choice.threads, stream));
}
