/* The proxy's life: create, the thread's loop, posts and quiet, destroy. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "proxy_internal.h"

#define DEFAULT_SLOT_BYTES ((size_t)1 << 20)
/* The default staging ring: as many slots as DEFAULT_STAGING bytes per direction holds for
 * every PE of the job, within MIN_DEFAULT_SLOTS and MAX_DEFAULT_SLOTS. On two simulated nodes of
 * one H200, 16 slots of 1 MiB took puts of 64 KiB - 16 MiB from 0.6-0.8 of raw UCX to 0.7-1.07
 * (perf/NOTES.md): a put's chunks wait for the target to free the ring, and the count that
 * frees them trails the data by a flush and the target's copies. */
#define DEFAULT_STAGING ((size_t)64 << 20)
#define MIN_DEFAULT_SLOTS 4u
#define MAX_DEFAULT_SLOTS 16u
#define DEFAULT_RING_ENTRIES 1024u
/* Records per pair of PEs and direction, at least: small puts share the staging ring. */
#define MIN_RECORDS 64u

void proxy_fail(symcoll_proxy_t *p, symcoll_status_t st) {
    pthread_mutex_lock(&p->failure_lock);
    if (!atomic_load_explicit(&p->failed, memory_order_relaxed)) {
        p->failure = st;
        snprintf(p->message, sizeof p->message, "%s", symcoll_last_error());
        atomic_store_explicit(&p->failed, true, memory_order_release);
    }
    pthread_mutex_unlock(&p->failure_lock);
}

void proxy_fail_aside(symcoll_proxy_t *p, symcoll_status_t st) {
    if (p->aside == SYMCOLL_SUCCESS)
        p->aside = st;
    proxy_fail(p, st);
}

symcoll_status_t proxy_failure(symcoll_proxy_t *p) {
    if (!atomic_load_explicit(&p->failed, memory_order_acquire))
        return SYMCOLL_SUCCESS;
    pthread_mutex_lock(&p->failure_lock);
    symcoll_status_t st = symcoll_set_error(p->failure, "%s", p->message);
    pthread_mutex_unlock(&p->failure_lock);
    return st;
}

/* The oldest incomplete request has not moved for timeout_ms: the failure names the PE it
 * waits for. */
static symcoll_status_t stalled(symcoll_proxy_t *p) {
    uint64_t retired = atomic_load_explicit(&p->retired, memory_order_relaxed);
    const proxy_entry_t *e = &p->ring[retired % p->ring_entries];
    if (retired == p->taken && atomic_load_explicit(&e->ready, memory_order_acquire) != retired + 1)
        return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                 "symcoll_proxy: request %llu was reserved and not filled in "
                                 "%llu ms",
                                 (unsigned long long)retired, (unsigned long long)p->timeout_ms);
    int pe = e->request.pe;
    const proxy_layout_t *l = &p->layout;
    if (e->request.kind == PROXY_GET && p->taken > retired)
        return symcoll_set_error(
            SYMCOLL_ERROR_TIMEOUT,
            "symcoll_proxy: PE %d answered %llu of the %llu gets this PE asked of it, and none "
            "in %llu ms",
            pe, (unsigned long long)p->sources[pe].answered,
            (unsigned long long)p->targets[pe].gets, (unsigned long long)p->timeout_ms);
    uint64_t sent = proxy_sent(p, pe);
    if (p->taken > retired && sent < e->last)
        return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                 "symcoll_proxy: the send (ucp_am_send_nbx) of record %llu to PE "
                                 "%d has not completed in %llu ms",
                                 (unsigned long long)sent, pe, (unsigned long long)p->timeout_ms);
    return symcoll_set_error(
        SYMCOLL_ERROR_TIMEOUT,
        "symcoll_proxy: PE %d applied %llu of the %llu records this PE sent it, and none in %llu "
        "ms",
        pe, (unsigned long long)proxy_counter(p, proxy_outbox(l, pe) + proxy_count(l)),
        (unsigned long long)p->targets[pe].staged, (unsigned long long)p->timeout_ms);
}

/* Where the oldest incomplete request stands: it has moved when any of these changed (other
 * traffic through this PE must not pass for its progress). */
typedef struct {
    uint64_t retired, taken, taken_bytes, staged, done;
} oldest_t;

static oldest_t oldest(symcoll_proxy_t *p) {
    oldest_t o = {atomic_load_explicit(&p->retired, memory_order_relaxed), p->taken, p->taken_bytes,
                  0, 0};
    const proxy_entry_t *e = &p->ring[o.retired % p->ring_entries];
    if (atomic_load_explicit(&e->ready, memory_order_acquire) == o.retired + 1) {
        int pe = e->request.pe;
        const proxy_layout_t *l = &p->layout;
        o.staged = p->targets[pe].staged;
        /* A put is done as its records are freed and their sends complete. */
        o.done = e->request.kind == PROXY_GET
                     ? p->sources[pe].answered
                     : proxy_counter(p, proxy_outbox(l, pe) + proxy_count(l)) + proxy_sent(p, pe);
    }
    return o;
}

static void *proxy_thread(void *arg) {
    symcoll_proxy_t *p = arg;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    uint64_t moved_ms = symcoll_bootstrap_now_ms();
    oldest_t seen = oldest(p);
    while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
        bool did = p->memory.poll ? p->memory.poll(p->memory.context, p, &st) : false;
        if (st == SYMCOLL_SUCCESS)
            did |= proxy_stage(p, &st);
        if (st == SYMCOLL_SUCCESS)
            did |= proxy_announce(p, &st);
        if (st == SYMCOLL_SUCCESS)
            did |= proxy_receive(p, &st);
        if (st == SYMCOLL_SUCCESS)
            did |= proxy_retire(p);
        if (st != SYMCOLL_SUCCESS)
            break;
        symcoll_ucx_progress(p->t);
        uint64_t now = symcoll_bootstrap_now_ms();
        bool waiting = atomic_load_explicit(&p->retired, memory_order_relaxed) <
                       atomic_load_explicit(&p->posted, memory_order_acquire);
        oldest_t o = oldest(p);
        if (!waiting || memcmp(&o, &seen, sizeof o)) {
            moved_ms = now;
            seen = o;
        } else if (p->timeout_ms && now - moved_ms > p->timeout_ms) {
            st = stalled(p);
            break;
        }
        if (!did)
            sched_yield(); /* PEs may outnumber the cores: let the others' threads run */
    }
    if (st != SYMCOLL_SUCCESS)
        proxy_fail(p, st);
    return NULL;
}

/* A request's PE, and its ranges inside the heaps (this PE's own for local; a remote heap is
 * taken to be as large, as symmetric heaps are). */
static symcoll_status_t check_request(const symcoll_proxy_t *p, const char *fn,
                                      const proxy_request_t *r) {
    const char *local = r->kind == PROXY_GET ? "dst" : "src";
    const char *remote = r->kind == PROXY_GET ? "src_offset" : "dst_offset";
    if (r->pe == p->boot->rank || !symcoll_ucx_connected(p->t, r->pe))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: pe %d is not a PE of another node (this PE is %d of %d)", fn,
                                 r->pe, p->boot->rank, p->boot->size);
    size_t heap = p->heap_bytes;
    if (r->remote_offset > heap || r->bytes > heap - r->remote_offset)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %zu and bytes %zu overrun the %zu-byte heap", fn, remote,
                                 r->remote_offset, r->bytes, heap);
    uintptr_t local_at = (uintptr_t)r->local, heap_at = (uintptr_t)p->heap;
    if (r->bytes && !p->memory.any_local && !r->prestaged &&
        (local_at < heap_at || local_at - heap_at > heap || r->bytes > heap - (local_at - heap_at)))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: %s %p and bytes %zu are not inside this PE's heap", fn, local,
                                 (void *)r->local, r->bytes);
    if (r->signal &&
        (r->signal_offset % 8 || r->signal_offset > heap || heap - r->signal_offset < 8))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: signal_offset %zu is not an aligned 8-byte word of the "
                                 "%zu-byte heap",
                                 fn, r->signal_offset, heap);
    if (r->signal && r->op != SYMCOLL_UCX_SIGNAL_SET && r->op != SYMCOLL_UCX_SIGNAL_ADD)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: op %d is neither SET nor ADD",
                                 fn, (int)r->op);
    return SYMCOLL_SUCCESS;
}

/* Reserves an entry and publishes r in it; its ticket is the count of requests retired once it
 * is. wait: for room in the ring; else *posted is false while the ring is full (the proxy
 * thread's own posts: a compare-and-swap never takes an index past the room, so it never waits
 * for itself). */
static symcoll_status_t post(symcoll_proxy_t *p, const char *fn, const proxy_request_t *r,
                             bool wait, uint64_t *ticket, bool *posted) {
    if (posted)
        *posted = false;
    symcoll_status_t st = proxy_failure(p);
    if (st == SYMCOLL_SUCCESS)
        st = check_request(p, fn, r);
    if (st != SYMCOLL_SUCCESS)
        return st;
    uint64_t index;
    if (wait) {
        index = atomic_fetch_add_explicit(&p->posted, 1, memory_order_acq_rel);
        /* No clock of its own: while the entry it needs is in use, the proxy thread watches
         * that request and fails the proxy when it stalls. */
        while (index - atomic_load_explicit(&p->retired, memory_order_acquire) >= p->ring_entries) {
            if ((st = proxy_failure(p)) != SYMCOLL_SUCCESS)
                return st;
            sched_yield();
        }
    } else {
        index = atomic_load_explicit(&p->posted, memory_order_acquire);
        do {
            if (index - atomic_load_explicit(&p->retired, memory_order_acquire) >= p->ring_entries)
                return SYMCOLL_SUCCESS;
        } while (!atomic_compare_exchange_weak_explicit(
            &p->posted, &index, index + 1, memory_order_acq_rel, memory_order_acquire));
    }
    proxy_entry_t *e = &p->ring[index % p->ring_entries];
    e->request = *r;
    atomic_store_explicit(&e->ready, index + 1, memory_order_release);
    if (ticket)
        *ticket = index + 1;
    if (posted)
        *posted = true;
    return SYMCOLL_SUCCESS;
}

static proxy_request_t put_request(const symcoll_proxy_put_t *put) {
    return (proxy_request_t){.kind = PROXY_PUT,
                             .pe = put->pe,
                             .remote_offset = put->dst_offset,
                             .local = (char *)put->src,
                             .bytes = put->bytes,
                             .signal = put->signal,
                             .signal_offset = put->signal_offset,
                             .value = put->value,
                             .op = put->op,
                             .prestaged = put->prestaged};
}

static proxy_request_t get_request(const symcoll_proxy_get_t *get) {
    return (proxy_request_t){.kind = PROXY_GET,
                             .pe = get->pe,
                             .remote_offset = get->src_offset,
                             .local = get->dst,
                             .bytes = get->bytes};
}

symcoll_status_t symcoll_proxy_put(symcoll_proxy_t *p, const symcoll_proxy_put_t *put,
                                   uint64_t *ticket) {
    if (!put)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "symcoll_proxy_put: put is NULL");
    proxy_request_t r = put_request(put);
    return post(p, "symcoll_proxy_put", &r, true, ticket, NULL);
}

symcoll_status_t symcoll_proxy_try_put(symcoll_proxy_t *p, const symcoll_proxy_put_t *put,
                                       uint64_t *ticket, bool *posted) {
    proxy_request_t r = put_request(put);
    return post(p, "symcoll_proxy_try_put", &r, false, ticket, posted);
}

/* A get of nothing (dst may be NULL) is checked, not posted: its ticket 0 is complete. */
static symcoll_status_t get(symcoll_proxy_t *p, const char *fn, const symcoll_proxy_get_t *g,
                            bool wait, uint64_t *ticket, bool *posted) {
    proxy_request_t r = get_request(g);
    if (r.bytes == 0) {
        if (ticket)
            *ticket = 0;
        if (posted)
            *posted = true;
        symcoll_status_t st = proxy_failure(p);
        return st == SYMCOLL_SUCCESS ? check_request(p, fn, &r) : st;
    }
    return post(p, fn, &r, wait, ticket, posted);
}

symcoll_status_t symcoll_proxy_get(symcoll_proxy_t *p, const symcoll_proxy_get_t *g,
                                   uint64_t *ticket) {
    if (!g)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "symcoll_proxy_get: get is NULL");
    return get(p, "symcoll_proxy_get", g, true, ticket, NULL);
}

symcoll_status_t symcoll_proxy_try_get(symcoll_proxy_t *p, const symcoll_proxy_get_t *g,
                                       uint64_t *ticket, bool *posted) {
    return get(p, "symcoll_proxy_try_get", g, false, ticket, posted);
}

bool symcoll_proxy_direct(const symcoll_proxy_t *p) {
    return p->heap_region != NULL;
}

uint64_t symcoll_proxy_staged(symcoll_proxy_t *p) {
    return atomic_load_explicit(&p->staged, memory_order_acquire);
}

uint64_t symcoll_proxy_complete(symcoll_proxy_t *p) {
    return atomic_load_explicit(&p->retired, memory_order_acquire);
}

/* Until the ticket is retired, or the proxy fails. */
symcoll_status_t symcoll_proxy_wait(symcoll_proxy_t *p, uint64_t ticket) {
    while (atomic_load_explicit(&p->retired, memory_order_acquire) < ticket) {
        symcoll_status_t st = proxy_failure(p);
        if (st != SYMCOLL_SUCCESS)
            return st;
        sched_yield();
    }
    return proxy_failure(p);
}

void symcoll_proxy_progress(symcoll_proxy_t *p) {
    symcoll_ucx_progress(p->t);
}

symcoll_status_t symcoll_proxy_quiet(symcoll_proxy_t *p) {
    return symcoll_proxy_wait(p, atomic_load_explicit(&p->posted, memory_order_acquire));
}

/* Stops and joins the thread; the transport is the caller's again. */
static void stop_thread(symcoll_proxy_t *p) {
    if (!p->thread_running)
        return;
    atomic_store_explicit(&p->stop, true, memory_order_release);
    pthread_join(p->thread, NULL);
    p->thread_running = false;
}

/* Collective unless abort: the heaps' region, then the windows'; the first failure. */
static symcoll_status_t unmap(symcoll_proxy_t *p, int abort) {
    symcoll_ucx_region_t *regions[] = {p->heap_region, p->region};
    symcoll_status_t first = SYMCOLL_SUCCESS;
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
        if (!regions[i])
            continue;
        symcoll_status_t st = abort ? symcoll_ucx_region_release(p->t, regions[i])
                                    : symcoll_ucx_region_unmap(p->t, regions[i]);
        first = first != SYMCOLL_SUCCESS ? first : st;
    }
    p->heap_region = p->region = NULL;
    return first;
}

/* keep_host: an endpoint may still read the mapped memory (it did not close in time), which
 * then stays allocated for the process's life rather than freed under UCX. */
static void free_proxy(symcoll_proxy_t *p, bool keep_host) {
    if (p->host && !keep_host)
        p->memory.host_free(p->memory.context, p->host);
    free(p->ring);
    for (int pe = 0; p->targets && pe < p->layout.n_pes; pe++) {
        free(p->targets[pe].replies);
        free(p->targets[pe].sends);
    }
    for (int pe = 0; p->sources && pe < p->layout.n_pes; pe++)
        free(p->sources[pe].arrived);
    free(p->targets);
    free(p->sources);
    pthread_mutex_destroy(&p->failure_lock);
    free(p);
}

symcoll_status_t symcoll_proxy_destroy(symcoll_proxy_t *p, int abort) {
    if (!p)
        return SYMCOLL_SUCCESS;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (!abort) {
        /* Every PE's requests are complete, so nothing arrives here any more, before any
         * thread stops: until then each serves the others. */
        st = symcoll_bootstrap_agree(p->boot, "symcoll_proxy_destroy", symcoll_proxy_quiet(p));
        abort = st != SYMCOLL_SUCCESS;
    }
    stop_thread(p);
    symcoll_ucx_set_message_handler(p->t, NULL, NULL); /* clearing cannot fail */
    /* Puts and sends still in flight read the staging, which is freed below: on abort nothing
     * completed them, so the endpoints close first. */
    symcoll_status_t closed = abort ? symcoll_ucx_disconnect(p->t) : SYMCOLL_SUCCESS;
    st = st != SYMCOLL_SUCCESS ? st : closed;
    /* The counts still going back to their senders read p->sources; a batch not yet announced
     * (only after a failure) has a flush of its own. */
    for (int pe = 0; pe < p->layout.n_pes; pe++) {
        void **flushes[] = {p->sources ? &p->sources[pe].returning : NULL,
                            p->targets ? &p->targets[pe].announcing : NULL};
        for (size_t i = 0; i < sizeof flushes / sizeof flushes[0]; i++) {
            symcoll_status_t flushed = flushes[i]
                                           ? symcoll_ucx_flush_finish(p->t, pe, flushes[i], abort)
                                           : SYMCOLL_SUCCESS;
            st = st != SYMCOLL_SUCCESS ? st : flushed;
        }
        for (unsigned slot = 0; p->targets && p->targets[pe].sends && slot < p->layout.records;
             slot++) {
            symcoll_status_t sent =
                symcoll_ucx_send_finish(p->t, pe, &p->targets[pe].sends[slot], abort);
            st = st != SYMCOLL_SUCCESS ? st : sent;
        }
    }
    symcoll_status_t unmapped = unmap(p, abort);
    free_proxy(p, closed != SYMCOLL_SUCCESS);
    return st != SYMCOLL_SUCCESS ? st : unmapped;
}

/* The configuration with defaults, the same on every PE (compared over the bootstrap). */
#define MAX_SLOT_BYTES ((size_t)1 << 30)
#define MAX_RING_ENTRIES (1u << 20)

static unsigned default_slots(size_t slot_bytes, int n_pes) {
    size_t fit = DEFAULT_STAGING / slot_bytes / (size_t)n_pes; /* no product to overflow */
    return fit < MIN_DEFAULT_SLOTS   ? MIN_DEFAULT_SLOTS
           : fit > MAX_DEFAULT_SLOTS ? MAX_DEFAULT_SLOTS
                                     : (unsigned)fit;
}

/* The configuration with defaults, within bounds, and with the heap's size the same on every
 * PE (compared over the bootstrap: offsets checked here must hold there); *direct: every PE's
 * UCX takes its heap's memory and none asked for staging. */
static symcoll_status_t configure(symcoll_proxy_t *p, const symcoll_proxy_config_t *config,
                                  bool *direct) {
    const char *fn = "symcoll_proxy_create";
    size_t slot_bytes = config && config->slot_bytes ? config->slot_bytes : DEFAULT_SLOT_BYTES;
    unsigned slots =
        config && config->slots ? config->slots : default_slots(slot_bytes, p->boot->size);
    p->ring_entries = config && config->ring_entries ? config->ring_entries : DEFAULT_RING_ENTRIES;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (slot_bytes > MAX_SLOT_BYTES || slots > SYMCOLL_PROXY_MAX_SLOTS ||
        p->ring_entries > MAX_RING_ENTRIES)
        st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                               "%s: slot_bytes %zu, slots %u and ring_entries %u must be at most "
                               "%zu, %u and %u",
                               fn, slot_bytes, slots, p->ring_entries, MAX_SLOT_BYTES,
                               SYMCOLL_PROXY_MAX_SLOTS, MAX_RING_ENTRIES);
    /* The direct path where every PE's UCX can register its heap's memory. */
    symcoll_ucx_capabilities_t caps;
    bool can_direct = !(config && config->staged) &&
                      symcoll_ucx_capabilities(p->t, &caps) == SYMCOLL_SUCCESS &&
                      (p->memory.heap_memory == SYMCOLL_UCX_MEMORY_HOST || caps.cuda_memory);
    enum { SAME = 3, WORDS = 4 };
    uint64_t mine[WORDS] = {slot_bytes, slots, p->heap_bytes, can_direct};
    uint64_t *all = calloc((size_t)p->boot->size, sizeof mine);
    if (!all)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    symcoll_status_t exchanged = p->boot->allgather(p->boot, mine, all, sizeof mine);
    st = st == SYMCOLL_SUCCESS ? exchanged : st;
    *direct = st == SYMCOLL_SUCCESS;
    for (int pe = 0; pe < p->boot->size && st == SYMCOLL_SUCCESS; pe++) {
        const uint64_t *theirs = &all[WORDS * pe];
        if (memcmp(theirs, mine, SAME * sizeof *mine))
            st = symcoll_set_error(SYMCOLL_ERROR_SYMMETRY,
                                   "%s: PE %d has slot_bytes %llu, slots %llu and a %llu-byte "
                                   "heap, this PE %zu, %u and %zu",
                                   fn, pe, (unsigned long long)theirs[0],
                                   (unsigned long long)theirs[1], (unsigned long long)theirs[2],
                                   slot_bytes, slots, p->heap_bytes);
        *direct = *direct && theirs[SAME];
    }
    free(all);
    proxy_layout_t *l = &p->layout;
    l->slot_bytes = (slot_bytes + 63) & ~(size_t)63; /* records and counters stay aligned */
    l->slots = slots;
    l->ring_bytes = (size_t)slots * l->slot_bytes;
    /* One more record than may be out, so that the last one freed is never overwritten. */
    l->records = slots + 1 > MIN_RECORDS ? slots + 1 : MIN_RECORDS;
    l->n_pes = p->boot->size;
    l->box_bytes = proxy_count(l) + 64;
    p->eager_bytes = config ? config->eager_bytes : 0;
    return st;
}

static symcoll_status_t allocate(symcoll_proxy_t *p) {
    p->host_bytes = 2 * (size_t)p->layout.n_pes * p->layout.box_bytes;
    p->host = p->memory.host_alloc(p->memory.context, p->host_bytes);
    p->ring = calloc(p->ring_entries, sizeof *p->ring);
    p->targets = calloc((size_t)p->layout.n_pes, sizeof *p->targets);
    p->sources = calloc((size_t)p->layout.n_pes, sizeof *p->sources);
    bool ok = p->host && p->ring && p->targets && p->sources;
    for (int pe = 0; ok && pe < p->layout.n_pes; pe++) {
        p->targets[pe].sends = calloc(p->layout.records, sizeof *p->targets[pe].sends);
        p->sources[pe].arrived = calloc(p->layout.records, sizeof *p->sources[pe].arrived);
        ok = p->targets[pe].sends && p->sources[pe].arrived;
    }
    return ok ? SYMCOLL_SUCCESS
              : symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                  "symcoll_proxy_create: no host memory for %zu bytes of "
                                  "staging and %u requests",
                                  p->host_bytes, p->ring_entries);
}

symcoll_status_t symcoll_proxy_create(symcoll_bootstrap_t *boot, symcoll_ucx_t *t, char *heap,
                                      size_t heap_bytes, const symcoll_proxy_memory_t *memory,
                                      const symcoll_proxy_config_t *config, uint64_t timeout_ms,
                                      symcoll_proxy_t **out) {
    const char *fn = "symcoll_proxy_create";
    if (!boot || !t || !heap || !memory || !out)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: boot %p, t %p, heap %p, memory %p and out %p must not be "
                                 "NULL",
                                 fn, (void *)boot, (void *)t, (void *)heap, (const void *)memory,
                                 (void *)out);
    symcoll_proxy_t *p = calloc(1, sizeof *p);
    if (!p)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    *p = (symcoll_proxy_t){.boot = boot,
                           .t = t,
                           .heap = heap,
                           .heap_bytes = heap_bytes,
                           .memory = *memory,
                           .timeout_ms = timeout_ms};
    pthread_mutex_init(&p->failure_lock, NULL);
    bool direct = false;
    symcoll_status_t st = configure(p, config, &direct);
    if (st == SYMCOLL_SUCCESS)
        st = allocate(p);
    /* Every PE maps (or all give up together), as region_map is collective. */
    st = symcoll_bootstrap_agree(boot, fn, st);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_region_map(t, p->host, p->host_bytes, SYMCOLL_UCX_MEMORY_HOST, &p->region);
    /* A heap that UCX says it takes but cannot register (on any PE) leaves every PE staging. */
    if (st == SYMCOLL_SUCCESS && direct &&
        symcoll_ucx_region_map(t, heap, heap_bytes, p->memory.heap_memory, &p->heap_region) !=
            SYMCOLL_SUCCESS)
        p->heap_region = NULL;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_set_message_handler(t, proxy_arrived, p);
    if (st == SYMCOLL_SUCCESS) {
        int err = pthread_create(&p->thread, NULL, proxy_thread, p);
        p->thread_running = err == 0;
        if (err)
            st = symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "%s: pthread_create failed (error %d)", fn,
                                   err);
        /* The windows are ready everywhere before any PE posts into them. */
        st = symcoll_bootstrap_agree(boot, fn, st);
    }
    if (st != SYMCOLL_SUCCESS) {
        stop_thread(p);
        symcoll_ucx_set_message_handler(t, NULL, NULL); /* clearing cannot fail */
        unmap(p, false);
        free_proxy(p, false);
        return st;
    }
    *out = p;
    return SYMCOLL_SUCCESS;
}
