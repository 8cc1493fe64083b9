/* The device API's ring of requests to PEs of other nodes, drained by the proxy thread: entries,
 * the proxy's counts and the pre-staging in host-mapped memory (the GPU writes entries and
 * pre-staged sources and polls the counts), the GPU's reservation count in its own memory
 * (atomics of its threads). */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nodes_device_ring.h"

#define ENTRIES SYMCOLL_PROXY_RING_ENTRIES
#define PRESTAGE_BYTES ((size_t)SYMCOLL_PROXY_PRESTAGE_SLOTS * SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES)

typedef struct {
    symcoll_proxy_ring_entry_t *entries; /* host addresses of device.entries */
    uint64_t *progress;                  /* host addresses of device.progress */
    char *prestage;                      /* the pre-staging, host address; NULL: none */
    char *prestage_device;               /* its GPU address */
    symcoll_proxy_ring_t device;
    bool owned; /* the memory is this file's (else a CPU test's) */
    /* The proxy thread's: entries read, and how many of them are staged and complete. */
    uint64_t read, staged, complete;
    uint64_t tickets[ENTRIES]; /* the proxy's ticket of each entry read, until complete */
} device_ring_t;

static device_ring_t *_Atomic ring;

static symcoll_status_t mapped(size_t bytes, void **host, void **device, const char *what) {
    symcoll_status_t st =
        symcoll_cuda_status(cudaHostAlloc(host, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
                            "symcoll_init", what);
    if (st != SYMCOLL_SUCCESS)
        return st;
    memset(*host, 0, bytes);
    return symcoll_cuda_status(cudaHostGetDevicePointer(device, *host, 0), "symcoll_init", what);
}

static void free_ring(device_ring_t *r) {
    if (!r->owned) {
        free(r);
        return;
    }
    if (r->entries)
        symcoll_cuda_status(cudaFreeHost(r->entries), "symcoll_finalize",
                            "freeing the device ring");
    if (r->progress)
        symcoll_cuda_status(cudaFreeHost(r->progress), "symcoll_finalize",
                            "freeing the device ring's counts");
    if (r->prestage)
        symcoll_cuda_status(cudaFreeHost(r->prestage), "symcoll_finalize",
                            "freeing the device ring's pre-staging");
    if (r->device.reserved)
        symcoll_cuda_status(cudaFree(r->device.reserved), "symcoll_finalize",
                            "freeing the device ring's reservations");
    free(r);
}

symcoll_status_t symcoll_nodes_device_ring_create(symcoll_proxy_ring_t *out) {
    memset(out, 0, sizeof *out);
    device_ring_t *r = calloc(1, sizeof *r);
    if (!r)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "symcoll_init: no host memory for the device ring");
    r->owned = true;
    void *entries_device = NULL, *progress_device = NULL, *prestage_device = NULL;
    symcoll_status_t st = mapped(ENTRIES * sizeof(symcoll_proxy_ring_entry_t), (void **)&r->entries,
                                 &entries_device, "the device ring");
    if (st == SYMCOLL_SUCCESS)
        st = mapped(SYMCOLL_PROXY_RING_WORDS * sizeof(uint64_t), (void **)&r->progress,
                    &progress_device, "the device ring's counts");
    if (st == SYMCOLL_SUCCESS)
        st = mapped(PRESTAGE_BYTES, (void **)&r->prestage, &prestage_device,
                    "the device ring's pre-staging");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaMalloc((void **)&r->device.reserved, sizeof(uint64_t)),
                                 "symcoll_init", "the device ring's reservations");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaMemset(r->device.reserved, 0, sizeof(uint64_t)),
                                 "symcoll_init", "the device ring's reservations");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaDeviceSynchronize(), "symcoll_init",
                                 "the device ring's reservations");
    if (st != SYMCOLL_SUCCESS) {
        free_ring(r);
        return st;
    }
    r->device.entries = entries_device;
    r->device.progress = progress_device;
    r->prestage_device = prestage_device;
    *out = r->device;
    atomic_store_explicit(&ring, r, memory_order_release);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_nodes_device_ring_serve(symcoll_proxy_ring_entry_t *entries,
                                                 uint64_t *progress, char *prestage) {
    device_ring_t *r = calloc(1, sizeof *r);
    if (!r)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "symcoll_nodes_device_ring_serve: no host memory");
    r->entries = entries;
    r->progress = progress;
    r->prestage = prestage;
    atomic_store_explicit(&ring, r, memory_order_release);
    return SYMCOLL_SUCCESS;
}

void symcoll_nodes_device_ring_destroy(void) {
    device_ring_t *r = atomic_exchange_explicit(&ring, NULL, memory_order_acq_rel);
    if (r)
        free_ring(r);
}

/* The source of put entry e: its pre-staging slot's host address for PUT_PRESTAGED (NULL where
 * the slot lies outside the pre-staging), else the GPU address it names. */
static const void *put_source(const device_ring_t *r, const symcoll_proxy_ring_entry_t *e) {
    if (e->kind != SYMCOLL_PROXY_RING_PUT_PRESTAGED)
        return (const void *)(uintptr_t)e->local;
    if (!r->prestage || e->local > PRESTAGE_BYTES || e->bytes > PRESTAGE_BYTES - e->local)
        return NULL;
    return r->prestage + e->local;
}

char *symcoll_nodes_device_ring_prestage(void) {
    device_ring_t *r = atomic_load_explicit(&ring, memory_order_acquire);
    return r ? r->prestage_device : NULL;
}

symcoll_status_t symcoll_nodes_device_ring_drain(symcoll_proxy_t *p, uint64_t timeout_ms) {
    static const char fn[] = "symcoll_finalize";
    device_ring_t *r = atomic_load_explicit(&ring, memory_order_acquire);
    if (!r || !r->owned)
        return SYMCOLL_SUCCESS;
    uint64_t reserved = 0;
    symcoll_status_t st = symcoll_cuda_status(
        cudaMemcpy(&reserved, r->device.reserved, sizeof reserved, cudaMemcpyDeviceToHost), fn,
        "reading the device ring's reservations");
    uint64_t start = symcoll_bootstrap_now_ms(), read;
    while (st == SYMCOLL_SUCCESS &&
           (read = __atomic_load_n(&r->progress[SYMCOLL_PROXY_RING_CONSUMED], __ATOMIC_ACQUIRE)) <
               reserved) {
        if ((st = symcoll_proxy_wait(p, 0)) != SYMCOLL_SUCCESS)
            break;
        if (timeout_ms && symcoll_bootstrap_now_ms() - start > timeout_ms)
            st = symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                   "%s: the proxy read %llu of the %llu requests this PE's GPU "
                                   "posted for other nodes in %llu ms",
                                   fn, (unsigned long long)read, (unsigned long long)reserved,
                                   (unsigned long long)timeout_ms);
        else
            sched_yield();
    }
    return st;
}

/* Hands entry e (index r->read) to the proxy; *posted false while the proxy's ring is full. */
static symcoll_status_t take(const device_ring_t *r, symcoll_proxy_t *p,
                             const symcoll_proxy_ring_entry_t *e, uint64_t *ticket, bool *posted) {
    if (e->kind == SYMCOLL_PROXY_RING_PUT || e->kind == SYMCOLL_PROXY_RING_PUT_PRESTAGED) {
        const void *src = put_source(r, e);
        if (!src && e->kind == SYMCOLL_PROXY_RING_PUT_PRESTAGED)
            return symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                                     "symcoll_proxy: device request %llu names pre-staging %llu + "
                                     "%llu bytes, outside the %zu bytes there are",
                                     (unsigned long long)(e->ready - 1),
                                     (unsigned long long)e->local, (unsigned long long)e->bytes,
                                     r->prestage ? PRESTAGE_BYTES : (size_t)0);
        symcoll_proxy_put_t put = {.pe = e->pe,
                                   .dst_offset = e->remote_offset,
                                   .src = src,
                                   .bytes = e->bytes,
                                   .signal = e->has_signal != 0,
                                   .signal_offset = e->signal_offset,
                                   .value = e->value,
                                   .op = e->op == SYMCOLL_SIGNAL_ADD ? SYMCOLL_UCX_SIGNAL_ADD
                                                                     : SYMCOLL_UCX_SIGNAL_SET,
                                   .prestaged = e->kind == SYMCOLL_PROXY_RING_PUT_PRESTAGED};
        return symcoll_proxy_try_put(p, &put, ticket, posted);
    }
    if (e->kind == SYMCOLL_PROXY_RING_GET) {
        symcoll_proxy_get_t get = {.pe = e->pe,
                                   .src_offset = e->remote_offset,
                                   .dst = (void *)(uintptr_t)e->local,
                                   .bytes = e->bytes};
        return symcoll_proxy_try_get(p, &get, ticket, posted);
    }
    return symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                             "symcoll_proxy: device request %llu has kind %u, neither put nor get",
                             (unsigned long long)(e->ready - 1), (unsigned)e->kind);
}

/* Advances *count over the entries read whose tickets the proxy's count done has reached. */
static bool advance(const device_ring_t *r, uint64_t *count, uint64_t done) {
    uint64_t before = *count;
    while (*count < r->read && r->tickets[*count % ENTRIES] <= done)
        (*count)++;
    return *count != before;
}

bool symcoll_nodes_device_ring_poll(void *context, symcoll_proxy_t *p, symcoll_status_t *st) {
    (void)context;
    device_ring_t *r = atomic_load_explicit(&ring, memory_order_acquire);
    if (!r)
        return false;
    bool did = false;
    while (r->read - r->complete < ENTRIES) {
        const symcoll_proxy_ring_entry_t *e = &r->entries[r->read % ENTRIES];
        if (__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) != r->read + 1)
            break;
        uint64_t ticket = 0;
        bool posted = false;
        if ((*st = take(r, p, e, &ticket, &posted)) != SYMCOLL_SUCCESS)
            return false;
        if (!posted)
            break;
        r->tickets[r->read % ENTRIES] = ticket;
        r->read++;
        __atomic_store_n(&r->progress[SYMCOLL_PROXY_RING_CONSUMED], r->read, __ATOMIC_RELEASE);
        did = true;
    }
    if (advance(r, &r->staged, symcoll_proxy_staged(p))) {
        __atomic_store_n(&r->progress[SYMCOLL_PROXY_RING_STAGED], r->staged, __ATOMIC_RELEASE);
        did = true;
    }
    if (advance(r, &r->complete, symcoll_proxy_complete(p))) {
        __atomic_store_n(&r->progress[SYMCOLL_PROXY_RING_COMPLETE], r->complete, __ATOMIC_RELEASE);
        did = true;
    }
    return did;
}
