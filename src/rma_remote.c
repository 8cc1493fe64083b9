/* RMA to the PEs of other nodes: a host function on the caller's stream hands the request to the
 * proxy (src/transport/proxy) and returns once a put's source is staged (the stream's later work
 * may reuse it) or a get's data is here; a quiet waits for every request before it. A captured
 * graph replays the request each time it runs. The proxy reaches the GPU on a stream of its own
 * (nodes_proxy_memory.c), so the host function's wait does not hold up the copies it waits for. */
#include <stdlib.h>
#include "internal.h"
#include "rma_remote.h"
#include "transport/proxy/proxy.h"

#ifdef SYMCOLL_HAVE_UCX

typedef enum { REMOTE_PUT, REMOTE_GET, REMOTE_QUIET } remote_kind_t;

typedef struct {
    symcoll_proxy_t *proxy;
    remote_kind_t kind;
    symcoll_proxy_put_t put;
    symcoll_proxy_get_t get;
    bool in_graph; /* a graph's host node owns it: freed with the graph, not after a run */
} remote_op_t;

bool symcoll_rma_remote(int pe) {
    return symcoll_g.proxy && pe >= 0 && pe < symcoll_g.n_pes && pe != symcoll_g.my_pe &&
           !((symcoll_g.reachable >> pe) & 1ull);
}

symcoll_status_t symcoll_rma_remote_usable(void) {
    return symcoll_proxy_wait(symcoll_g.proxy, 0);
}

/* A failure is the proxy's: recorded there, it is returned by the next call to another node. */
static void CUDART_CB run(void *arg) {
    remote_op_t *op = arg;
    uint64_t ticket = 0;
    if (op->kind == REMOTE_PUT &&
        symcoll_proxy_put(op->proxy, &op->put, &ticket) == SYMCOLL_SUCCESS)
        symcoll_proxy_wait_staged(op->proxy, ticket);
    if (op->kind == REMOTE_GET &&
        symcoll_proxy_get(op->proxy, &op->get, &ticket) == SYMCOLL_SUCCESS)
        symcoll_proxy_wait(op->proxy, ticket);
    if (op->kind == REMOTE_QUIET)
        symcoll_proxy_quiet(op->proxy);
    if (!op->in_graph)
        free(op);
}

static void CUDART_CB free_op(void *arg) {
    free(arg);
}

/* While stream is captured, the graph being built takes op with it (a user object), to run on
 * every replay. */
static cudaError_t give_to_graph(remote_op_t *op, cudaStream_t stream) {
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaGraph_t graph = NULL;
    cudaError_t err = cudaStreamGetCaptureInfo(stream, &capture, NULL, &graph, NULL, NULL, NULL);
    if (err != cudaSuccess || capture != cudaStreamCaptureStatusActive)
        return err;
    cudaUserObject_t object;
    err = cudaUserObjectCreate(&object, op, free_op, 1, cudaUserObjectNoDestructorSync);
    if (err != cudaSuccess)
        return err;
    op->in_graph = true;
    err = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
    if (err != cudaSuccess)
        cudaUserObjectRelease(object, 1); /* frees op */
    return err;
}

static symcoll_status_t enqueue(const char *fn, const remote_op_t *request, cudaStream_t stream) {
    remote_op_t *op = malloc(sizeof *op);
    if (!op)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "%s: no host memory for a transfer to another node", fn);
    *op = *request;
    op->proxy = symcoll_g.proxy;
    cudaError_t err = give_to_graph(op, stream);
    if (err != cudaSuccess) {
        if (!op->in_graph)
            free(op);
        return symcoll_cuda_status(err, fn, "handing a transfer to another node to the graph");
    }
    err = cudaLaunchHostFunc(stream, run, op);
    if (err != cudaSuccess && !op->in_graph)
        free(op);
    return symcoll_cuda_status(err, fn, "cudaLaunchHostFunc of a transfer to another node");
}

static size_t heap_offset(const void *sym) {
    return (size_t)((const char *)sym - symcoll_g.heap_base);
}

symcoll_status_t symcoll_rma_remote_put(const char *fn, void *dst, const void *src, size_t bytes,
                                        const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                        int pe, cudaStream_t stream) {
    remote_op_t request = {
        .kind = REMOTE_PUT,
        .put = {.pe = pe,
                .dst_offset = bytes ? heap_offset(dst) : 0,
                .src = src,
                .bytes = bytes,
                .signal = sig != NULL,
                .signal_offset = sig ? heap_offset(sig) : 0,
                .value = value,
                .op = op == SYMCOLL_SIGNAL_ADD ? SYMCOLL_UCX_SIGNAL_ADD : SYMCOLL_UCX_SIGNAL_SET}};
    return enqueue(fn, &request, stream);
}

symcoll_status_t symcoll_rma_remote_get(const char *fn, void *dst, const void *src, size_t bytes,
                                        int pe, cudaStream_t stream) {
    remote_op_t request = {
        .kind = REMOTE_GET,
        .get = {.pe = pe, .src_offset = heap_offset(src), .dst = dst, .bytes = bytes}};
    return enqueue(fn, &request, stream);
}

symcoll_status_t symcoll_rma_remote_quiet(const char *fn, cudaStream_t stream) {
    remote_op_t request = {.kind = REMOTE_QUIET};
    return enqueue(fn, &request, stream);
}

#else
/* A build without the UCX headers has no proxy (init refuses PEs on other nodes), so no PE is
 * remote and nothing below is reached. */
bool symcoll_rma_remote(int pe) {
    (void)pe;
    return false;
}

static symcoll_status_t no_proxy(const char *fn) {
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "%s: this symcoll was built without the UCX headers: no PE of another "
                             "node is reachable",
                             fn);
}

symcoll_status_t symcoll_rma_remote_usable(void) {
    return no_proxy("symcoll");
}

symcoll_status_t symcoll_rma_remote_put(const char *fn, void *dst, const void *src, size_t bytes,
                                        const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                        int pe, cudaStream_t stream) {
    (void)dst, (void)src, (void)bytes, (void)sig, (void)value, (void)op, (void)pe, (void)stream;
    return no_proxy(fn);
}

symcoll_status_t symcoll_rma_remote_get(const char *fn, void *dst, const void *src, size_t bytes,
                                        int pe, cudaStream_t stream) {
    (void)dst, (void)src, (void)bytes, (void)pe, (void)stream;
    return no_proxy(fn);
}

symcoll_status_t symcoll_rma_remote_quiet(const char *fn, cudaStream_t stream) {
    (void)stream;
    return no_proxy(fn);
}
#endif
