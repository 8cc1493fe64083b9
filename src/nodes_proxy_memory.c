/* How the proxy (src/transport/proxy) reaches this PE's GPU: copies between its staging in
 * pinned host memory and any memory of the GPU, and signals applied by the signal kernel, all on
 * one stream of the proxy's own. That stream does not synchronize with the legacy default
 * stream: a kernel on a user's stream 0 waits for the proxy, which must not wait for it. */
#include <stdatomic.h>
#include <string.h>
#include "internal.h"
#include "nodes_device_ring.h"
#include "nodes_proxy_memory.h"
#include "rma_launch.h"

typedef struct {
    int device;
    uint64_t timeout_ms; /* 0: no limit */
    cudaStream_t stream;
    symcoll_proxy_t *_Atomic proxy; /* once created: progressed while a copy runs */
} proxy_gpu_t;

static proxy_gpu_t proxy_gpu;

/* The proxy thread's calls run on this PE's device, whichever thread makes them. */
static symcoll_status_t on_device(const proxy_gpu_t *g, const char *what) {
    return symcoll_cuda_status(cudaSetDevice(g->device), "symcoll_proxy", what);
}

/* The proxy thread's copies and queries, on this PE's device. That thread captures nothing, so
 * it relaxes its capture mode: a user's capture in global mode on another thread would
 * otherwise fail its stream queries, and a graph of calls to other nodes would wait for a proxy
 * that has failed. */
static symcoll_status_t on_proxy_thread(const proxy_gpu_t *g, const char *what) {
    static _Thread_local bool relaxed;
    if (!relaxed) {
        enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        symcoll_status_t st = symcoll_cuda_status(cudaThreadExchangeStreamCaptureMode(&mode),
                                                  "symcoll_proxy", "relaxing its capture mode");
        if (st != SYMCOLL_SUCCESS)
            return st;
        relaxed = true;
    }
    return on_device(g, what);
}

/* The proxy's stream is done. Meanwhile the transport progresses, as the proxy thread would:
 * over TCP the puts already posted move only then, so the network and the copies overlap. A
 * stream that the GPU does not run within the timeout fails the proxy, saying what it waited
 * for, rather than stall it (and every PE that waits for it) for ever. */
static symcoll_status_t finish(proxy_gpu_t *g, const char *what) {
    uint64_t start = symcoll_bootstrap_now_ms();
    cudaError_t err;
    while ((err = cudaStreamQuery(g->stream)) == cudaErrorNotReady) {
        symcoll_proxy_t *proxy = atomic_load_explicit(&g->proxy, memory_order_acquire);
        if (proxy)
            symcoll_proxy_progress(proxy);
        if (g->timeout_ms && symcoll_bootstrap_now_ms() - start > g->timeout_ms)
            return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "symcoll_proxy: %s: the GPU did not run the proxy's stream "
                                     "in %llu ms",
                                     what, (unsigned long long)g->timeout_ms);
    }
    return symcoll_cuda_status(err, "symcoll_proxy", what);
}

static symcoll_status_t copy(proxy_gpu_t *g, void *dst, const void *src, size_t bytes,
                             const char *what) {
    symcoll_status_t st = on_proxy_thread(g, what);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, g->stream),
                                 "symcoll_proxy", what);
    return st == SYMCOLL_SUCCESS ? finish(g, what) : st;
}

static symcoll_status_t to_host(void *context, void *host, const void *gpu, size_t bytes) {
    return copy(context, host, gpu, bytes, "staging a put's data");
}

static symcoll_status_t from_host(void *context, void *gpu, const void *host, size_t bytes) {
    return copy(context, gpu, host, bytes, "copying received data into the GPU");
}

/* After the data that from_host copied, in stream order: the kernel's release makes the signal
 * visible only with it. */
static symcoll_status_t apply_signal(void *context, uint64_t *word, uint64_t value,
                                     symcoll_ucx_signal_op_t op) {
    proxy_gpu_t *g = context;
    const char *what = "applying a received signal";
    symcoll_status_t st = on_proxy_thread(g, what);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(
            symcoll_put_signal_launch(
                NULL, NULL, 0, word, value,
                op == SYMCOLL_UCX_SIGNAL_ADD ? SYMCOLL_SIGNAL_ADD : SYMCOLL_SIGNAL_SET, g->stream),
            "symcoll_proxy", what);
    return st == SYMCOLL_SUCCESS ? finish(g, what) : st;
}

static void *host_alloc(void *context, size_t bytes) {
    void *p = NULL;
    if (on_device(context, "allocating staging") != SYMCOLL_SUCCESS)
        return NULL;
    cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (err != cudaSuccess) {
        symcoll_cuda_status(err, "symcoll_proxy", "cudaHostAlloc of the staging");
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

static void host_free(void *context, void *p) {
    (void)context;
    symcoll_cuda_status(cudaFreeHost(p), "symcoll_proxy", "freeing the staging");
}

symcoll_status_t symcoll_nodes_proxy_memory_open(int device, uint64_t timeout_ms,
                                                 symcoll_proxy_memory_t *out) {
    proxy_gpu = (proxy_gpu_t){.device = device, .timeout_ms = timeout_ms};
    symcoll_status_t st =
        symcoll_cuda_status(cudaStreamCreateWithFlags(&proxy_gpu.stream, cudaStreamNonBlocking),
                            "symcoll_init", "creating the proxy's stream");
    if (st != SYMCOLL_SUCCESS)
        return st;
    *out = (symcoll_proxy_memory_t){.context = &proxy_gpu,
                                    .to_host = to_host,
                                    .from_host = from_host,
                                    .signal = apply_signal,
                                    .host_alloc = host_alloc,
                                    .host_free = host_free,
                                    .any_local = true,
                                    .poll = symcoll_nodes_device_ring_poll,
                                    .heap_memory = SYMCOLL_UCX_MEMORY_CUDA};
    return SYMCOLL_SUCCESS;
}

void symcoll_nodes_proxy_memory_attach(symcoll_proxy_t *p) {
    atomic_store_explicit(&proxy_gpu.proxy, p, memory_order_release);
}

void symcoll_nodes_proxy_memory_close(void) {
    symcoll_nodes_proxy_memory_attach(NULL);
    if (proxy_gpu.stream)
        symcoll_cuda_status(cudaStreamDestroy(proxy_gpu.stream), "symcoll_finalize",
                            "destroying the proxy's stream");
    proxy_gpu.stream = NULL;
}
