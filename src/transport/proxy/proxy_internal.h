/* The proxy's state and the layout of its mapped host memory, shared by its files (not seen
 * outside src/transport/proxy). */
#ifndef SYMCOLL_PROXY_INTERNAL_H
#define SYMCOLL_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include "proxy.h"

/* What a mailbox record asks of its target. */
typedef enum {
    PROXY_PUT = 0,   /* the staged chunk into the heap, then the signal if any */
    PROXY_GET = 1,   /* bytes of the heap back to the sender, as replies */
    PROXY_REPLY = 2, /* the staged chunk of a get into the heap; the get's last one is marked */
} proxy_kind_t;

typedef struct {
    uint64_t offset, bytes;        /* PUT, REPLY: where the chunk goes; GET: what goes back */
    uint64_t signal_offset, value; /* PUT */
    uint64_t reply_offset;         /* GET: where the replies go in the sender's heap */
    uint64_t data_at;              /* the chunk's place in the staging ring (ever growing) */
    uint16_t kind;                 /* proxy_kind_t */
    uint8_t has_signal, op;        /* has_signal: PUT: signal; REPLY: the get's last chunk */
    uint32_t seq;   /* the record's index + 1 (low 32 bits): tells it from the slot's last one */
    uint32_t from;  /* the sender */
    uint32_t eager; /* 1: sent as a message with its chunk, applied once it arrives; 0: through
                       the window, applied once announced */
} proxy_record_t;
_Static_assert(sizeof(proxy_record_t) == 64, "a record is one 64-byte line");

/* The bytes of staged data a record carries (a get's bytes are asked, not carried). */
static inline uint64_t proxy_record_data(const proxy_record_t *r) {
    return r->kind == PROXY_GET ? 0 : r->bytes;
}

/* The mapped host memory of a job of n PEs, a box per PE q and direction:
 *   inbox q  (written by PE q):  window[ring_bytes], records[records], posted count
 *   outbox q (staged for PE q):  staging[ring_bytes], records[records], freed count
 * The staging and the window are one ring of slots * slot_bytes bytes, the same place in
 * both: each record's chunk (at most slot_bytes) is contiguous at data_at % ring_bytes, 64-byte
 * aligned, so that small puts share what a large one takes in slot_bytes pieces. Record i from
 * PE q to this PE is records[i % records] of both boxes. posted: records PE q has announced to
 * this PE (PE q puts its total; eager records among them may be applied before it counts them);
 * freed: records of this PE that PE q has applied (PE q puts its total). Every PE's layout is the
 * same, so an offset here is one there. */
typedef struct {
    size_t slot_bytes, ring_bytes, box_bytes;
    unsigned slots, records;
    int n_pes;
} proxy_layout_t;

static inline size_t proxy_inbox(const proxy_layout_t *l, int q) {
    return (size_t)q * l->box_bytes;
}
static inline size_t proxy_outbox(const proxy_layout_t *l, int q) {
    return ((size_t)l->n_pes + q) * l->box_bytes;
}
static inline size_t proxy_ring_at(const proxy_layout_t *l, uint64_t data_at) {
    return (size_t)(data_at % l->ring_bytes);
}
static inline size_t proxy_records(const proxy_layout_t *l) {
    return l->ring_bytes;
}
static inline size_t proxy_count(const proxy_layout_t *l) {
    return proxy_records(l) + (size_t)l->records * sizeof(proxy_record_t);
}

/* A posted put or get. */
typedef struct {
    proxy_kind_t kind; /* PUT or GET */
    int pe;
    size_t remote_offset; /* PUT: the destination, GET: the source, in pe's heap */
    char *local;          /* PUT: the source, GET: the destination, in this PE's heap (or any local
                             memory, memory.any_local; a pre-staged source: pinned host memory) */
    size_t bytes;
    bool signal; /* PUT */
    size_t signal_offset;
    uint64_t value;
    symcoll_ucx_signal_op_t op;
    bool prestaged; /* PUT: local is pinned host memory (symcoll_proxy_put_t.prestaged) */
} proxy_request_t;

/* A request, until it is complete. */
typedef struct {
    _Atomic uint64_t ready; /* its index + 1 once the poster has filled it */
    proxy_request_t request;
    uint64_t last; /* proxy: PUT: the target's record count after its last record; GET: the
                      target's count of gets after it */
} proxy_entry_t;

/* A get that another PE asked of this one, until its replies are staged. */
typedef struct {
    const char *src; /* in this PE's heap */
    uint64_t dst_offset, bytes, staged;
} proxy_reply_t;

/* Sending to one PE (proxy thread only). */
typedef struct {
    uint64_t staged;        /* records staged (and their data put) */
    uint64_t head;          /* the staging ring's place after the last staged chunk */
    uint64_t sent;          /* of which their records put, a flush started after them */
    uint64_t announced;     /* of which announced: that flush complete, the count put (or, a
                               batch of eager records only, needing none) */
    uint64_t count;         /* the total last put as pe's count of announced records */
    void *announcing;       /* the flush, until complete */
    void **sends;           /* per record slot: the send of an eager record, until complete */
    uint64_t sends_done;    /* records whose sends, if eager, are complete */
    uint64_t gets;          /* gets asked of it */
    proxy_reply_t *replies; /* the gets it asked of this PE, oldest first, from first */
    size_t first, n_replies, replies_capacity;
} proxy_target_t;

/* Receiving from one PE (proxy thread only). */
typedef struct {
    uint64_t applied;   /* records applied, their copies and signals perhaps still running */
    uint64_t consumed;  /* records applied and settled */
    uint64_t answering; /* gets of this PE answered in full since the last settle */
    uint64_t answered;  /* gets of this PE that it has answered in full, settled */
    uint64_t returned;  /* the count of applied records last put to the sender */
    void *returning;    /* the flush that completes that put at the sender, until it has */
    uint64_t *arrived;  /* per record slot: the index + 1 of the eager record that arrived in it */
} proxy_source_t;

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
    symcoll_ucx_region_t *heap_region; /* the direct path: the heaps; NULL: staging */
    size_t eager_bytes;                /* records of at most this much data go as messages */
    symcoll_status_t aside; /* proxy thread: a failure outside its steps' statuses (a record
                               refused on arrival, a send that failed) */

    proxy_entry_t *ring;
    unsigned ring_entries;
    _Atomic uint64_t posted;  /* requests reserved by posters */
    _Atomic uint64_t retired; /* requests complete: the entries below are free */
    _Atomic uint64_t staged;  /* requests whose sources are staged in full (taken, published) */
    uint64_t taken;           /* proxy: requests staged in full */
    uint64_t taken_bytes;     /* proxy: bytes of request `taken` staged so far */
    proxy_target_t *targets;
    proxy_source_t *sources;

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

/* An 8-byte counter of the mapped memory, read with acquire (its one writer, another PE, put
 * it there after what it counts). */
static inline uint64_t proxy_counter(const symcoll_proxy_t *p, size_t offset) {
    return __atomic_load_n((const uint64_t *)(p->host + offset), __ATOMIC_ACQUIRE);
}

/* Every counter has one writer, which puts its new total (*count, 8 bytes that only grow): a put
 * works over every transport, where remote atomics do not (UCX 1.16 over TCP has no protocol for
 * them), and it does not wait for a round trip. UCX orders no two puts to one address, so a
 * counter is put again only once its last put is complete at the target (a flush of the
 * endpoint since): else an older total could land last, and the reader wait for ever. *count
 * stays as put until then. */
static inline symcoll_status_t proxy_put_count(symcoll_proxy_t *p, int pe, size_t offset,
                                               const uint64_t *count) {
    return symcoll_ucx_put(p->t, p->region, pe, offset, count, sizeof *count);
}

/* ---- the proxy thread's steps; each returns true when it did something ---- */
/* Stages the replies to other PEs' gets, then the posted requests in order, as far as the
 * targets' records and staging rings have room; the replies to each PE, and the requests, stop
 * once they have staged slot_bytes or more in the pass: a put that filled the ring in one pass
 * was announced only once the ring was full, and then waited for room (proxy_send.c). */
bool proxy_stage(symcoll_proxy_t *p, symcoll_status_t *st);
/* Announces the staged records without waiting: their records follow their data, and once a
 * flush has made both complete at the target, the target's posted count grows; meanwhile the
 * thread stages and receives (proxy_send.c). */
bool proxy_announce(symcoll_proxy_t *p, symcoll_status_t *st);
/* Retires the requests, in order, whose records every target has applied and whose gets are
 * answered (proxy_send.c). */
bool proxy_retire(symcoll_proxy_t *p);
/* Applies the records announced to this PE, and the eager ones that arrived, and frees them, and
 * their chunks, at their senders
 * (proxy_receive.c). */
bool proxy_receive(symcoll_proxy_t *p, symcoll_status_t *st);
/* An eager record and its chunk, arrived from another PE (proxy_receive.c): into the inbox,
 * where proxy_receive applies it in its turn. The transport's message handler. */
void proxy_arrived(void *proxy, const void *header, size_t header_bytes, const void *data,
                   size_t bytes);
/* Records staged to PE pe whose sends, if eager, are complete: before it, their chunks and
 * records may be reused once pe frees them (proxy_send.c). */
uint64_t proxy_sent(symcoll_proxy_t *p, int pe);
/* Records a failure outside a step (p->aside) and fails the proxy with it. */
void proxy_fail_aside(symcoll_proxy_t *p, symcoll_status_t st);
/* Queues the replies to a get of PE to (proxy_send.c). */
symcoll_status_t proxy_queue_reply(symcoll_proxy_t *p, int to, const proxy_reply_t *reply);

#endif
