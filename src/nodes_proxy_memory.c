/* How the proxy (src/transport/proxy) reaches this PE's GPU: copies between its staging in
 * pinned host memory and any memory of the GPU, and signals applied by stream memory
 * operations or the signal kernel, all on one stream of a CUDA context of the proxy's own. The
 * kernels of calls across nodes wait for this work, so it must never queue behind them: CUDA feeds
 * a context's streams through a few hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), and a stream of
 * the user's context can hold one of them behind a kernel waiting for the proxy (on the device: the
 * halo tests across two simulated nodes stalled in 15 of 22 runs with the proxy's stream in the
 * primary context, in 0 of 22 with this context). Another context has queues of its own. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include "driver.h"
#include "internal.h"
#include "nodes_device_ring.h"
#include "nodes_proxy_memory.h"
#include "kernel_load.h"
#include "rma_launch.h"

typedef struct {
    int device;
    uint64_t timeout_ms; /* 0: no limit */
    const symcoll_driver_t *driver;
    CUcontext context;
    cudaStream_t stream;
    symcoll_proxy_t *_Atomic proxy;       /* once created: progressed while a copy runs */
    const uint64_t *_Atomic arrivals;     /* SYMCOLL_NODES_AWAITED words only the proxy writes */
    uint64_t sums[SYMCOLL_NODES_AWAITED]; /* their values: what the proxy last wrote */
    uint64_t *mirror;        /* host-mapped, SYMCOLL_NODES_AWAITED words: sums stored by the CPU */
    uint64_t *mirror_device; /* its GPU address */
    bool queued;             /* work on the stream not yet seen done */
} proxy_gpu_t;

static proxy_gpu_t proxy_gpu;

/* The proxy's calls run in its context, whichever thread makes them; leave() gives the thread
 * back the context it had. */
static symcoll_status_t enter(const proxy_gpu_t *g, const char *what) {
    return symcoll_driver_status(g->driver->ctx_push(g->context), "symcoll_proxy", what);
}

static void leave(const proxy_gpu_t *g) {
    CUcontext ours;
    symcoll_driver_status(g->driver->ctx_pop(&ours), "symcoll_proxy", "leaving its context");
}

/* Prepares the calling thread, then enters the proxy's context. Beneath it, the thread's own
 * current context is the primary one of this PE's device, as the application's: UCX takes GPU
 * memory in the thread's current context (the direct path), and no runtime call of the thread
 * falls to device 0. The proxy's calls capture nothing, so the thread relaxes its capture mode:
 * a user's capture in global mode on another thread would otherwise fail its stream queries,
 * and a graph of calls to other nodes would wait for a proxy that has failed. */
static symcoll_status_t on_proxy_thread(const proxy_gpu_t *g, const char *what) {
    static _Thread_local bool relaxed;
    symcoll_status_t st = symcoll_cuda_status(cudaSetDevice(g->device), "symcoll_proxy", what);
    if (st == SYMCOLL_SUCCESS && !relaxed) {
        enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        st = symcoll_cuda_status(cudaThreadExchangeStreamCaptureMode(&mode), "symcoll_proxy", what);
        relaxed = st == SYMCOLL_SUCCESS;
    }
    return st == SYMCOLL_SUCCESS ? enter(g, what) : st;
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
    g->queued = g->queued && err != cudaSuccess;
    return symcoll_cuda_status(err, "symcoll_proxy", what);
}

/* A copy on the proxy's stream, waited for when wait: to_host's, as the proxy puts the staging
 * as soon as it returns; not from_host's, which settle waits for once for every record applied
 * together. */
static symcoll_status_t copy(void *context, void *dst, const void *src, size_t bytes, bool wait,
                             const char *what) {
    proxy_gpu_t *g = context;
    symcoll_status_t st = on_proxy_thread(g, what);
    if (st != SYMCOLL_SUCCESS)
        return st;
    st = symcoll_cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, g->stream),
                             "symcoll_proxy", what);
    g->queued = true;
    if (st == SYMCOLL_SUCCESS && wait)
        st = finish(g, what);
    leave(g);
    return st;
}

static symcoll_status_t to_host(void *context, void *host, const void *gpu, size_t bytes) {
    return copy(context, host, gpu, bytes, true, "staging a put's data");
}

static symcoll_status_t from_host(void *context, void *gpu, const void *host, size_t bytes) {
    return copy(context, gpu, host, bytes, false, "copying received data into the GPU");
}

static symcoll_status_t settle(void *context) {
    proxy_gpu_t *g = context;
    const char *what = "copying received data into the GPU and applying its signals";
    symcoll_status_t st = on_proxy_thread(g, what);
    if (st != SYMCOLL_SUCCESS)
        return st;
    st = finish(g, what);
    leave(g);
    return st;
}

/* The index of an arrivals word among them, or -1 for any other word. */
static ptrdiff_t arrivals_index(const proxy_gpu_t *g, const uint64_t *word) {
    const uint64_t *first = atomic_load_explicit(&g->arrivals, memory_order_acquire);
    return first && word >= first && word < first + SYMCOLL_NODES_AWAITED ? word - first : -1;
}

/* A barrier's arrivals word (only the barrier's wait kernel reads those, and it reads the
 * mirror too): its index, or -1 for any other word or without a mirror. */
static ptrdiff_t barrier_index(const proxy_gpu_t *g, const uint64_t *word) {
    ptrdiff_t i = arrivals_index(g, word);
    return i >= 0 && g->mirror && i % SYMCOLL_NODES_KINDS == SYMCOLL_NODES_BARRIER_ARRIVALS ? i
                                                                                            : -1;
}

/* A stream memory operation: its default flags fence the copies before it, and it takes
 * neither a kernel nor a copy engine. */
static symcoll_status_t word_write(proxy_gpu_t *g, uint64_t *word, uint64_t value,
                                   const char *what) {
    return symcoll_driver_status(g->driver->stream_write_value64((CUstream)g->stream,
                                                                 (CUdeviceptr)word, value,
                                                                 CU_STREAM_WRITE_VALUE_DEFAULT),
                                 "symcoll_proxy", what);
}

/* After the data that from_host copied, in stream order, so the signal is seen only with it.
 * Without a kernel where it can be: a kernel of the proxy's context waits for a time slice while
 * the application's kernels run (no MPS; on the device 1.7 ms beside a spinning kernel, against
 * 11 us for a memory operation and 19 us for a copy). A SET is one memory operation; an ADD to
 * an arrivals word, which only the proxy writes, is one too, of the sum the proxy keeps (it
 * applies its signals one at a time); any other ADD must be atomic beside the GPU's own, so the
 * signal kernel does it. With nothing of the proxy's on the stream to come first, an ADD to a
 * barrier's arrivals word is a store of the sum into its host-mapped mirror, which the barrier's
 * wait kernel reads beside the word: no stream work to submit, run and settle. */
static symcoll_status_t apply_signal(void *context, uint64_t *word, uint64_t value,
                                     symcoll_ucx_signal_op_t op) {
    proxy_gpu_t *g = context;
    const char *what = "applying a received signal";
    ptrdiff_t barrier = barrier_index(g, word);
    if (op == SYMCOLL_UCX_SIGNAL_ADD && barrier >= 0 && !g->queued) {
        g->sums[barrier] += value;
        __atomic_store_n(&g->mirror[barrier], g->sums[barrier], __ATOMIC_RELEASE);
        return SYMCOLL_SUCCESS;
    }
    symcoll_status_t st = on_proxy_thread(g, what);
    if (st != SYMCOLL_SUCCESS)
        return st;
    ptrdiff_t i = arrivals_index(g, word);
    g->queued = true;
    if (op == SYMCOLL_UCX_SIGNAL_SET) {
        st = word_write(g, word, value, what);
    } else if (i >= 0) {
        g->sums[i] += value;
        st = word_write(g, word, g->sums[i], what);
    } else {
        st = symcoll_cuda_status(
            symcoll_put_signal_launch(NULL, NULL, 0, word, value, SYMCOLL_SIGNAL_ADD, g->stream),
            "symcoll_proxy", what);
    }
    leave(g);
    return st;
}

static void free_mirror(proxy_gpu_t *g) {
    atomic_store_explicit(&g->arrivals, NULL, memory_order_release);
    if (g->mirror)
        symcoll_cuda_status(cudaFreeHost(g->mirror), "symcoll_finalize", "freeing the mirror");
    g->mirror = g->mirror_device = NULL;
}

/* Pinned in the proxy's context, as every staging buffer is freed before that context is
 * destroyed; portable, so that the user's context sees it pinned too. */
static void *host_alloc(void *context, size_t bytes) {
    proxy_gpu_t *g = context;
    void *p = NULL;
    if (on_proxy_thread(g, "allocating staging") != SYMCOLL_SUCCESS)
        return NULL;
    cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    leave(g);
    if (err != cudaSuccess) {
        symcoll_cuda_status(err, "symcoll_proxy", "cudaHostAlloc of the staging");
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

static void host_free(void *context, void *p) {
    proxy_gpu_t *g = context;
    if (on_proxy_thread(g, "freeing the staging") != SYMCOLL_SUCCESS)
        return;
    symcoll_cuda_status(cudaFreeHost(p), "symcoll_proxy", "freeing the staging");
    leave(g);
}

/* In the new context, current on this thread: the stream, and
 * the signal kernel loaded now rather than at the first signal, when loading would wait for the
 * GPU. */
static symcoll_status_t fill_context(proxy_gpu_t *g) {
    symcoll_status_t st =
        symcoll_cuda_status(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking),
                            "symcoll_init", "creating the proxy's stream");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(symcoll_rma_kernels_load(), "symcoll_init",
                                 "loading the proxy's signal kernel");
    return st;
}

symcoll_status_t symcoll_nodes_proxy_memory_open(int device, uint64_t timeout_ms,
                                                 symcoll_proxy_memory_t *out) {
    proxy_gpu = (proxy_gpu_t){.device = device, .timeout_ms = timeout_ms};
    proxy_gpu_t *g = &proxy_gpu;
    CUdevice dev;
    symcoll_status_t st = symcoll_driver_load(&g->driver);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_driver_status(g->driver->device_get(&dev, device), "symcoll_init",
                                   "the proxy's device");
    CUctxCreateParams defaults = {0};
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_driver_status(g->driver->ctx_create(&g->context, &defaults, 0, dev),
                                   "symcoll_init",
                                   "creating the proxy's CUDA context (a GPU in exclusive-process "
                                   "compute mode allows one context per process; the default "
                                   "mode does not limit them)");
    if (st != SYMCOLL_SUCCESS)
        return st;
    st = fill_context(g);
    leave(g); /* creation made the context current here */
    if (st != SYMCOLL_SUCCESS)
        return st; /* the caller closes what there is, keeping this reason */
    *out = (symcoll_proxy_memory_t){.context = g,
                                    .to_host = to_host,
                                    .from_host = from_host,
                                    .signal = apply_signal,
                                    .settle = settle,
                                    .host_alloc = host_alloc,
                                    .host_free = host_free,
                                    .any_local = true,
                                    .poll = symcoll_nodes_device_ring_poll,
                                    .heap_memory = SYMCOLL_UCX_MEMORY_CUDA};
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_nodes_proxy_memory_arrivals(const uint64_t *words) {
    proxy_gpu_t *g = &proxy_gpu;
    const char *what = "the host-mapped mirror of the barrier's arrivals";
    size_t bytes = SYMCOLL_NODES_AWAITED * sizeof(uint64_t);
    symcoll_status_t st = symcoll_cuda_status(
        cudaHostAlloc((void **)&g->mirror, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
        "symcoll_init", what);
    if (st == SYMCOLL_SUCCESS) {
        memset(g->mirror, 0, bytes);
        st = symcoll_cuda_status(cudaHostGetDevicePointer((void **)&g->mirror_device, g->mirror, 0),
                                 "symcoll_init", what);
    }
    if (st != SYMCOLL_SUCCESS) {
        free_mirror(g);
        return st;
    }
    memset(g->sums, 0, sizeof g->sums);
    atomic_store_explicit(&g->arrivals, words, memory_order_release);
    return SYMCOLL_SUCCESS;
}

const uint64_t *symcoll_nodes_proxy_memory_mirror(const uint64_t *word) {
    ptrdiff_t i = barrier_index(&proxy_gpu, word);
    return i >= 0 ? proxy_gpu.mirror_device + i : NULL;
}

void symcoll_nodes_proxy_memory_attach(symcoll_proxy_t *p) {
    atomic_store_explicit(&proxy_gpu.proxy, p, memory_order_release);
}

void symcoll_nodes_proxy_memory_close(void) {
    proxy_gpu_t *g = &proxy_gpu;
    symcoll_nodes_proxy_memory_attach(NULL);
    free_mirror(g);
    if (!g->context)
        return;
    if (enter(g, "freeing its stream") == SYMCOLL_SUCCESS) {
        if (g->stream)
            symcoll_cuda_status(cudaStreamDestroy(g->stream), "symcoll_finalize",
                                "destroying the proxy's stream");
        leave(g);
    }
    symcoll_driver_status(g->driver->ctx_destroy(g->context), "symcoll_finalize",
                          "destroying the proxy's CUDA context");
    *g = (proxy_gpu_t){0};
}
