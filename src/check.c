/* Argument checks shared by every public call; each names the argument and its value. */
#include <stdio.h>
#include "internal.h"

symcoll_status_t symcoll_check_initialized(const char *fn) {
    if (!symcoll_g.initialized)
        return symcoll_set_error(SYMCOLL_ERROR_NOT_INITIALIZED,
                                 "%s: symcoll is not initialized (call symcoll_init first)", fn);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_check_symmetric(const char *fn, const char *arg, const void *ptr,
                                         size_t bytes) {
    if (!ptr)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, arg);
    void *base;
    size_t size;
    if (!symcoll_heap_find(ptr, &base, &size))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %p is not inside a live symmetric allocation "
                                 "(symcoll_malloc)",
                                 fn, arg, ptr);
    size_t offset = (size_t)((const char *)ptr - (const char *)base);
    if (bytes > size - offset)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %p + %zu bytes runs past the end of its %zu-byte "
                                 "allocation at %p",
                                 fn, arg, ptr, bytes, size, base);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_check_pe(const char *fn, int pe) {
    if (pe < 0 || pe >= symcoll_g.n_pes)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: pe %d out of range for %d PEs", fn, pe, symcoll_g.n_pes);
    if (!((symcoll_g.reachable >> pe) & 1ull))
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: pe %d is not load/store reachable from PE %d (no P2P path "
                                 "between their GPUs)",
                                 fn, pe, symcoll_g.my_pe);
    return SYMCOLL_SUCCESS;
}

/* The last stream that passed on this thread: checking it again would cost two runtime calls
 * on every enqueue, a large part of the host budget of a call. */
static _Thread_local cudaStream_t last_good_stream;
static _Thread_local int last_good_device = -1;

symcoll_status_t symcoll_check_stream(const char *fn, cudaStream_t stream) {
    if (stream == 0 || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return SYMCOLL_SUCCESS;
    if (stream == last_good_stream && last_good_device == symcoll_g.device)
        return SYMCOLL_SUCCESS;
    /* Querying a stream's device is not allowed while it is being captured (the capture
     * would be invalidated); a stream of another device then fails at launch instead. */
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err == cudaSuccess && capture != cudaStreamCaptureStatusNone)
        return SYMCOLL_SUCCESS;
    int device = -1;
    if (err == cudaSuccess)
        err = cudaStreamGetDevice(stream, &device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: stream %p is not valid: %s",
                                 fn, (void *)stream, cudaGetErrorString(err));
    }
    if (device != symcoll_g.device)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: stream %p belongs to device %d; this PE uses device %d", fn,
                                 (void *)stream, device, symcoll_g.device);
    last_good_stream = stream;
    last_good_device = device;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_check_count(const char *fn, const char *arg, size_t count,
                                     size_t elem_size, size_t *bytes) {
    if (elem_size && count > SIZE_MAX / elem_size)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %zu x %zu-byte elements overflows", fn, arg, count,
                                 elem_size);
    *bytes = count * elem_size;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_check_no_overlap(const char *fn, const char *a_name, const void *a,
                                          size_t a_bytes, const char *b_name, const void *b,
                                          size_t b_bytes) {
    const char *pa = a, *pb = b;
    if (a_bytes && b_bytes && pa < pb + b_bytes && pb < pa + a_bytes)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %p (%zu bytes) overlaps %s %p (%zu bytes)", fn, a_name, a,
                                 a_bytes, b_name, b, b_bytes);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_check_p2p(const char *fn, const char *whose, topo_class_t topo) {
    if (topo != TOPO_NO_P2P)
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "%s: %s has members whose GPUs cannot reach each other with "
                             "loads and stores (no P2P path, or other nodes); across nodes, the "
                             "barrier, broadcast, reduce, reduce_scatter, fcollect, alltoall and "
                             "alltoallv (dispatch and combine too) run, other calls are not "
                             "supported yet",
                             fn, whose);
}

symcoll_status_t symcoll_check_team_p2p(const char *fn, const symcoll_team_state_t *t) {
    char whose[32];
    snprintf(whose, sizeof whose, "team %d", (int)t->handle);
    return symcoll_check_p2p(fn, whose, t->topo_class);
}
