/* Puts, gets and signals into the regions of connected PEs. */
#include <stdint.h>
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

/* [offset, offset + bytes) lies inside PE pe's region, which this PE is connected to. */
static symcoll_status_t check_target(const symcoll_ucx_t *t, const symcoll_ucx_region_t *r,
                                     const char *fn, int pe, size_t offset, size_t bytes) {
    symcoll_status_t st = symcoll_ucx_check_connected(t, fn, pe);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (offset > r->remote_bytes[pe] || bytes > r->remote_bytes[pe] - offset)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %zu bytes at offset %zu overrun PE %d's %llu-byte region", fn,
                                 bytes, offset, pe, (unsigned long long)r->remote_bytes[pe]);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_check_memory(const symcoll_ucx_t *t, const char *fn, const char *what,
                                          symcoll_ucx_memory_t memory) {
    if (memory == SYMCOLL_UCX_MEMORY_HOST ||
        (memory == SYMCOLL_UCX_MEMORY_CUDA && t->caps.cuda_memory))
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "%s: %s is memory of type %d, which UCX %s does not support here "
                             "(memory types 0x%llx)",
                             fn, what, (int)memory, t->caps.version,
                             (unsigned long long)t->caps.memory_types);
}

/* The local buffer's memory, said rather than detected: see ucx_transport.h. */
static ucp_request_param_t memory_param(symcoll_ucx_memory_t memory) {
    ucp_request_param_t param = {0};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type =
        memory == SYMCOLL_UCX_MEMORY_CUDA ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
    return param;
}

/* A put (local is the source) or a get (local is the destination) of bytes at offset of PE
 * pe's region; tracked until the next quiet. */
static symcoll_status_t transfer(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                 size_t offset, void *local, size_t bytes,
                                 symcoll_ucx_memory_t memory, int is_put) {
    const char *fn = is_put ? "symcoll_ucx_put" : "symcoll_ucx_get";
    symcoll_status_t st = check_target(t, r, fn, pe, offset, bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_check_memory(t, fn, is_put ? "src" : "dst", memory);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    ucp_request_param_t param = memory_param(memory);
    uint64_t remote = r->remote_base[pe] + offset;
    ucp_ep_h ep = t->peers[pe].ep;
    ucs_status_ptr_t request =
        is_put ? t->lib.ucp_put_nbx(ep, local, bytes, remote, r->rkeys[pe], &param)
               : t->lib.ucp_get_nbx(ep, local, bytes, remote, r->rkeys[pe], &param);
    return symcoll_ucx_track(t, request, is_put ? "ucp_put_nbx" : "ucp_get_nbx", pe);
}

symcoll_status_t symcoll_ucx_put_from(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                      size_t offset, const void *src, size_t bytes,
                                      symcoll_ucx_memory_t src_memory) {
    return transfer(t, r, pe, offset, (void *)src, bytes, src_memory, 1);
}

symcoll_status_t symcoll_ucx_get_into(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                      size_t offset, void *dst, size_t bytes,
                                      symcoll_ucx_memory_t dst_memory) {
    return transfer(t, r, pe, offset, dst, bytes, dst_memory, 0);
}

symcoll_status_t symcoll_ucx_put(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                 size_t offset, const void *src, size_t bytes) {
    return symcoll_ucx_put_from(t, r, pe, offset, src, bytes, SYMCOLL_UCX_MEMORY_HOST);
}

symcoll_status_t symcoll_ucx_get(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                 size_t offset, void *dst, size_t bytes) {
    return symcoll_ucx_get_into(t, r, pe, offset, dst, bytes, SYMCOLL_UCX_MEMORY_HOST);
}

symcoll_status_t symcoll_ucx_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                    size_t signal_offset, uint64_t value,
                                    symcoll_ucx_signal_op_t op) {
    const char *fn = "symcoll_ucx_signal";
    symcoll_status_t st = check_target(t, r, fn, pe, signal_offset, sizeof(uint64_t));
    if (st != SYMCOLL_SUCCESS)
        return st;
    uint64_t address = r->remote_base[pe] + signal_offset;
    if (address % sizeof(uint64_t))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: the signal at offset %zu of PE %d's region is not 8-byte "
                                 "aligned",
                                 fn, signal_offset, pe);
    if (op != SYMCOLL_UCX_SIGNAL_SET && op != SYMCOLL_UCX_SIGNAL_ADD)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: op %d is neither SET nor ADD",
                                 fn, (int)op);
    if (r->memory != SYMCOLL_UCX_MEMORY_HOST)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: signals go into regions of host memory only", fn);
    ucp_request_param_t param = memory_param(SYMCOLL_UCX_MEMORY_HOST);
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_contig(sizeof(uint64_t));
    /* UCP has no plain atomic store: SET swaps, into a reply word that nobody reads. */
    uint64_t replaced;
    if (op == SYMCOLL_UCX_SIGNAL_SET) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = &replaced;
    }
    /* Waited for, not tracked: the operand and the reply word live on this stack, and UCX does
     * not promise to copy the operand when the call returns. */
    ucp_atomic_op_t opcode = op == SYMCOLL_UCX_SIGNAL_SET ? UCP_ATOMIC_OP_SWAP : UCP_ATOMIC_OP_ADD;
    return symcoll_ucx_wait(
        t,
        t->lib.ucp_atomic_op_nbx(t->peers[pe].ep, opcode, &value, 1, address, r->rkeys[pe], &param),
        "ucp_atomic_op_nbx", pe, symcoll_ucx_deadline(t));
}

symcoll_status_t symcoll_ucx_put_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                        size_t offset, const void *src, size_t bytes,
                                        size_t signal_offset, uint64_t value,
                                        symcoll_ucx_signal_op_t op) {
    symcoll_status_t st = symcoll_ucx_put(t, r, pe, offset, src, bytes);
    /* A flush of the endpoint, not ucp_worker_fence: the flush completes the put at the target
     * before the signal is even posted, on every transport; a fence only orders the two, and
     * how strongly depends on the UCX version and transport. It costs a round trip. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_flush_pe(t, pe, symcoll_ucx_deadline(t));
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_signal(t, r, pe, signal_offset, value, op);
    return st;
}

symcoll_status_t symcoll_ucx_wait_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r,
                                         size_t signal_offset, uint64_t value) {
    const char *fn = "symcoll_ucx_wait_signal";
    if (r->memory != SYMCOLL_UCX_MEMORY_HOST || signal_offset > r->bytes ||
        r->bytes - signal_offset < sizeof(uint64_t) ||
        (uintptr_t)(r->base + signal_offset) % sizeof(uint64_t))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: offset %zu is not an aligned 8-byte word of the %zu-byte "
                                 "region of host memory",
                                 fn, signal_offset, r->bytes);
    const uint64_t *word = (const uint64_t *)(r->base + signal_offset);
    uint64_t deadline = symcoll_ucx_deadline(t);
    for (;;) {
        /* Acquire: the data that came before the signal is seen after it. */
        uint64_t seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        if (seen >= value)
            return SYMCOLL_SUCCESS;
        t->lib.ucp_worker_progress(t->worker);
        if (symcoll_bootstrap_now_ms() > deadline)
            return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "%s: the signal at offset %zu stayed %llu, below %llu, for "
                                     "%llu ms",
                                     fn, signal_offset, (unsigned long long)seen,
                                     (unsigned long long)value, (unsigned long long)t->timeout_ms);
    }
}
