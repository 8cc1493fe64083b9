/* The proxy's state and the layout of its mapped host memory, shared by its files (not seen
 * outside src/transport/proxy). */
#ifndef SYMCOLL_PROXY_INTERNAL_H
#define SYMCOLL_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include "proxy.h"

/* A mailbox record: what the target does with one staged chunk. */
typedef struct {
    uint64_t dst_offset, bytes; /* the chunk goes to dst_offset of the target's heap */
    uint64_t signal_offset, value;
    uint32_t has_signal, op; /* then the signal, if any */
    uint8_t unused[24];
} proxy_record_t;
_Static_assert(sizeof(proxy_record_t) == 64, "a record is one 64-byte line");

/* The mapped host memory of a job of n PEs, a box per PE q and direction:
 *   inbox q  (written by PE q):  window[slots][slot_bytes], records[slots], posted count
 *   outbox q (staged for PE q):  staging[slots][slot_bytes], records[slots], freed count
 * Record i from PE q to this PE uses slot i % slots of both boxes. posted: records PE q has
 * announced to this PE (PE q adds to it); freed: records of this PE that PE q has applied
 * (PE q adds to it). Every PE's layout is the same, so an offset here is one there. */
typedef struct {
    size_t slot_bytes, box_bytes;
    unsigned slots;
    int n_pes;
} proxy_layout_t;

static inline size_t proxy_inbox(const proxy_layout_t *l, int q) {
    return (size_t)q * l->box_bytes;
}
static inline size_t proxy_outbox(const proxy_layout_t *l, int q) {
    return ((size_t)l->n_pes + q) * l->box_bytes;
}
static inline size_t proxy_slot(const proxy_layout_t *l, uint64_t record) {
    return (size_t)(record % l->slots) * l->slot_bytes;
}
static inline size_t proxy_records(const proxy_layout_t *l) {
    return (size_t)l->slots * l->slot_bytes;
}
static inline size_t proxy_count(const proxy_layout_t *l) {
    return proxy_records(l) + (size_t)l->slots * sizeof(proxy_record_t);
}

/* A posted request, until it is complete. */
typedef struct {
    _Atomic uint64_t ready; /* its index + 1 once the poster has filled it */
    symcoll_proxy_put_t put;
    uint64_t last; /* proxy: the target's record count after this request's last record */
} proxy_entry_t;

/* Sending to one PE (proxy thread only). */
typedef struct {
    uint64_t staged;    /* records staged and put */
    uint64_t announced; /* of which announced */
} proxy_target_t;

struct symcoll_proxy {
    symcoll_bootstrap_t *boot;
    symcoll_ucx_t *t;
    char *heap;
    size_t heap_bytes;
    symcoll_proxy_memory_t memory;
    proxy_layout_t layout;
    uint64_t timeout_ms;
    char *host; /* the mapped memory (layout) */
    size_t host_bytes;
    symcoll_ucx_region_t *region;

    proxy_entry_t *ring;
    unsigned ring_entries;
    _Atomic uint64_t posted;  /* requests reserved by posters */
    _Atomic uint64_t retired; /* requests complete: the entries below are free */
    uint64_t taken;           /* proxy: requests staged in full */
    uint64_t taken_bytes;     /* proxy: bytes of request `taken` staged so far */
    proxy_target_t *targets;
    uint64_t *consumed; /* proxy: records applied, per source PE */

    pthread_t thread;
    bool thread_running;
    _Atomic bool stop;
    pthread_mutex_t failure_lock;
    _Atomic bool failed;
    symcoll_status_t failure;
    char message[512];
};

/* Records the first failure (any thread): st with the error text of the calling thread. */
void proxy_fail(symcoll_proxy_t *p, symcoll_status_t st);
/* The recorded failure as this thread's error; SUCCESS when there is none. */
symcoll_status_t proxy_failure(symcoll_proxy_t *p);

/* An 8-byte counter of the mapped memory, read with acquire (a remote atomic wrote it). */
static inline uint64_t proxy_counter(const symcoll_proxy_t *p, size_t offset) {
    return __atomic_load_n((const uint64_t *)(p->host + offset), __ATOMIC_ACQUIRE);
}

/* ---- the proxy thread's steps; each returns true when it did something ---- */
/* Stages the posted requests, in order, as far as the targets' free slots allow
 * (proxy_send.c). */
bool proxy_stage(symcoll_proxy_t *p, symcoll_status_t *st);
/* Announces every staged record: its records follow once its data is complete at the target,
 * then the target's posted count grows (proxy_send.c). */
bool proxy_announce(symcoll_proxy_t *p, symcoll_status_t *st);
/* Retires the requests, in order, whose records every target has applied (proxy_send.c). */
bool proxy_retire(symcoll_proxy_t *p);
/* Applies the records announced to this PE and frees their slots at their senders
 * (proxy_receive.c). */
bool proxy_receive(symcoll_proxy_t *p, symcoll_status_t *st);

#endif
