/* Host-side one-sided RMA on a stream: put and get are copy-engine copies on the peer
 * mapping; put_signal adds one small kernel that publishes the signal; signal_wait_until is
 * one kernel that spins under the WORLD team's timeout. A PE of another node is reached through
 * the proxy instead (rma_remote.c). Arguments are checked host-only first and the stream last.
 * A transfer of 0 bytes enqueues nothing and does not look at its data pointers. */
#include <stdint.h>
#include "internal.h"
#include "rma_launch.h"
#include "rma_remote.h"

/* A buffer of this PE's GPU that need not be symmetric: not NULL, and its range does not
 * wrap around the address space. */
static symcoll_status_t check_local(const char *fn, const char *arg, const void *ptr,
                                    size_t bytes) {
    if (!ptr)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, arg);
    if (bytes > UINTPTR_MAX - (uintptr_t)ptr)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %p + %zu bytes wraps around the address space", fn, arg,
                                 ptr, bytes);
    return SYMCOLL_SUCCESS;
}

/* A signal: one symmetric, 8-byte aligned uint64_t. */
static symcoll_status_t check_signal(const char *fn, const uint64_t *sig) {
    symcoll_status_t st = symcoll_check_symmetric(fn, "sig", sig, sizeof *sig);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if ((uintptr_t)sig % sizeof *sig)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: sig %p is not 8-byte aligned",
                                 fn, (const void *)sig);
    return SYMCOLL_SUCCESS;
}

/* Initialized and pe a reachable WORLD PE, or one of another node (*remote) while the proxy
 * works: checked first by every transfer. */
static symcoll_status_t check_pe(const char *fn, int pe, bool *remote) {
    symcoll_status_t st = symcoll_check_initialized(fn);
    *remote = st == SYMCOLL_SUCCESS && symcoll_rma_remote(pe);
    if (*remote)
        return symcoll_rma_remote_usable();
    return st == SYMCOLL_SUCCESS ? symcoll_check_pe(fn, pe) : st;
}

/* The data of a put: dst symmetric, src local, and src clear of pe's copy of dst (which is in
 * another node's memory when remote). */
static symcoll_status_t check_put_data(const char *fn, const void *dst, const void *src,
                                       size_t bytes, int pe, bool remote) {
    symcoll_status_t st = symcoll_check_symmetric(fn, "dst", dst, bytes);
    if (st == SYMCOLL_SUCCESS)
        st = check_local(fn, "src", src, bytes);
    if (st == SYMCOLL_SUCCESS && !remote)
        st = symcoll_check_no_overlap(fn, "src", src, bytes, "pe's copy of dst",
                                      symcoll_peer_address(dst, pe), bytes);
    return st;
}

symcoll_status_t symcoll_put_on_stream(void *dst, const void *src, size_t bytes, int pe,
                                       cudaStream_t stream) {
    static const char fn[] = "symcoll_put_on_stream";
    bool remote;
    symcoll_status_t st = check_pe(fn, pe, &remote);
    if (st == SYMCOLL_SUCCESS && bytes > 0)
        st = check_put_data(fn, dst, src, bytes, pe, remote);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    if (remote)
        return symcoll_rma_remote_put(fn, dst, src, bytes, NULL, 0, SYMCOLL_SIGNAL_SET, pe,
                                      SYMCOLL_TEAM_WORLD, SYMCOLL_COLL_DEVICE_API, stream);
    return symcoll_cuda_status(cudaMemcpyAsync(symcoll_peer_address(dst, pe), src, bytes,
                                               cudaMemcpyDeviceToDevice, stream),
                               fn, "cudaMemcpyAsync to the peer");
}

symcoll_status_t symcoll_get_on_stream(void *dst, const void *src, size_t bytes, int pe,
                                       cudaStream_t stream) {
    static const char fn[] = "symcoll_get_on_stream";
    bool remote;
    symcoll_status_t st = check_pe(fn, pe, &remote);
    if (st == SYMCOLL_SUCCESS && bytes > 0)
        st = symcoll_check_symmetric(fn, "src", src, bytes);
    if (st == SYMCOLL_SUCCESS && bytes > 0)
        st = check_local(fn, "dst", dst, bytes);
    if (st == SYMCOLL_SUCCESS && bytes > 0 && !remote)
        st = symcoll_check_no_overlap(fn, "dst", dst, bytes, "pe's copy of src",
                                      symcoll_peer_address(src, pe), bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    if (remote)
        return symcoll_rma_remote_get(fn, dst, src, bytes, pe, SYMCOLL_COLL_DEVICE_API, stream);
    return symcoll_cuda_status(cudaMemcpyAsync(dst, symcoll_peer_address(src, pe), bytes,
                                               cudaMemcpyDeviceToDevice, stream),
                               fn, "cudaMemcpyAsync from the peer");
}

symcoll_status_t symcoll_put_signal_on_stream(void *dst, const void *src, size_t bytes,
                                              uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                              int pe, cudaStream_t stream) {
    static const char fn[] = "symcoll_put_signal_on_stream";
    bool remote;
    symcoll_status_t st = check_pe(fn, pe, &remote);
    if (st == SYMCOLL_SUCCESS && op != SYMCOLL_SIGNAL_SET && op != SYMCOLL_SIGNAL_ADD)
        st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                               "%s: op %d is neither SYMCOLL_SIGNAL_SET nor SYMCOLL_SIGNAL_ADD", fn,
                               (int)op);
    if (st == SYMCOLL_SUCCESS)
        st = check_signal(fn, sig);
    if (st == SYMCOLL_SUCCESS && bytes > 0)
        st = check_put_data(fn, dst, src, bytes, pe, remote);
    if (st == SYMCOLL_SUCCESS && bytes > 0)
        st = symcoll_check_no_overlap(fn, "dst", dst, bytes, "sig", sig, sizeof *sig);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (remote)
        return symcoll_rma_remote_put(fn, dst, src, bytes, sig, value, op, pe, SYMCOLL_TEAM_WORLD,
                                      SYMCOLL_COLL_DEVICE_API, stream);

    void *peer_dst = bytes > 0 ? symcoll_peer_address(dst, pe) : NULL;
    size_t kernel_bytes = bytes;
    if (bytes > SYMCOLL_PUT_SIGNAL_FUSED_MAX) {
        st = symcoll_cuda_status(
            cudaMemcpyAsync(peer_dst, src, bytes, cudaMemcpyDeviceToDevice, stream), fn,
            "cudaMemcpyAsync to the peer");
        if (st != SYMCOLL_SUCCESS)
            return st;
        kernel_bytes = 0;
    }
    return symcoll_cuda_status(symcoll_put_signal_launch(peer_dst, src, kernel_bytes,
                                                         symcoll_peer_address(sig, pe), value, op,
                                                         stream),
                               fn, "signal kernel launch");
}

symcoll_status_t symcoll_signal_wait_until_on_stream(uint64_t *sig, symcoll_cmp_t cmp,
                                                     uint64_t value, cudaStream_t stream) {
    static const char fn[] = "symcoll_signal_wait_until_on_stream";
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if ((unsigned)cmp > SYMCOLL_CMP_LE)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: cmp %d is not a symcoll_cmp_t (SYMCOLL_CMP_EQ .. LE)", fn,
                                 (int)cmp);
    st = check_signal(fn, sig);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    symcoll_team_state_t *world = NULL;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_team_for_call(fn, SYMCOLL_TEAM_WORLD, &world);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_cuda_status(
        symcoll_signal_wait_launch(symcoll_team_device(world), sig, cmp, value, stream), fn,
        "wait kernel launch");
}
