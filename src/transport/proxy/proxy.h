/* The proxy: a thread per PE that carries puts and signals into the symmetric heaps of PEs
 * that this PE cannot reach with loads and stores (PEs of other nodes), over the UCX
 * transport, straight between the heaps where UCX can register their memory (the direct path,
 * symcoll_proxy_memory_t.heap_memory), else through staging in pinned host memory:
 *
 *   sender: the source goes from the heap, in chunks, into a staging ring (memory.to_host; a
 *   source its poster pre-staged in pinned host memory is put from where it lies),
 *   ucp_put takes each into the same place of the target's receive window, the batch's mailbox
 *   records (offset, length, signal, value, op) follow, and once a flush of the endpoint has
 *   made both complete at the target, a put of the new total of the target's count of records
 *   from this PE announces them (the thread stages and receives meanwhile); target: its proxy
 *   copies each record's data from the window into its heap (memory.from_host), then applies the
 *   record's signal (memory.signal), and once all that is complete (memory.settle, one wait for
 *   the records that arrived together) returns the records and their chunks to the sender with a
 *   put of the new total of the sender's count of freed records. Each count has one writer, so
 *   no remote atomics are needed.
 *
 * An eager record (a chunk of at most eager_bytes, a signal alone, a get) skips the window's
 * put, the flush and the count: the record and its chunk go as one message (an active message
 * of the transport), which the target's proxy lays into the same places of its inbox when it
 * arrives and applies in its turn. A small put then costs one trip, not three.
 *
 * A get is a record that asks the target's proxy to stage the bytes back as replies, which the
 * requester's proxy copies into its heap.
 *
 * Requests are taken in the order they were posted, and each target applies the puts and
 * signals of one sender in that order: a signal is seen only after the data of every earlier
 * put to the same PE. A get reads its source when the target stages its replies, which may be
 * after later puts of the same PE have landed: as OpenSHMEM's non-blocking gets, it is ordered
 * with them only by a quiet. Callers post from any thread; only the proxy thread calls the
 * transport while it runs. */
#ifndef SYMCOLL_PROXY_H
#define SYMCOLL_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bootstrap/bootstrap.h"
#include "symcoll.h"
#include "transport/ucx/ucx_transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symcoll_proxy symcoll_proxy_t;

/* How the proxy reaches this PE's heap and allocates its staging, whatever memory the heap is
 * (the library: CUDA copies; the CPU tests: memcpy). Called on the proxy thread; each returns
 * a status with the error set. to_host returns once its copy is complete (the proxy puts the
 * staging at once); from_host and signal may return before their work is, which then happens
 * in the order of the calls, until settle. */
typedef struct {
    void *context;
    symcoll_status_t (*to_host)(void *context, void *host, const void *heap, size_t bytes);
    symcoll_status_t (*from_host)(void *context, void *heap, const void *host, size_t bytes);
    /* *word = value (SET) or *word += value (ADD), visible to the heap's readers after the
     * data that from_host wrote before it. */
    symcoll_status_t (*signal)(void *context, uint64_t *word, uint64_t value,
                               symcoll_ucx_signal_op_t op);
    /* Returns once every from_host and signal before it is complete: the proxy then frees the
     * window's chunks and completes gets. NULL: they complete before they return. One wait for
     * all the records that arrived together, rather than one per copy and signal. */
    symcoll_status_t (*settle)(void *context);
    /* Zeroed host memory for the staging rings and mailboxes, 64-byte aligned; NULL when out
     * of memory. */
    void *(*host_alloc)(void *context, size_t bytes);
    void (*host_free)(void *context, void *p);
    /* to_host and from_host reach any memory of this PE, not only its heap: the source of a
     * put and the destination of a get may lie anywhere (the library's GPU buffers). */
    bool any_local;
    /* Where not NULL, called on every pass of the proxy thread: takes requests from another
     * source (the device API's ring) with symcoll_proxy_try_put and _try_get; true when it did
     * something, false with *st set on failure. */
    bool (*poll)(void *context, symcoll_proxy_t *p, symcoll_status_t *st);
    /* What the heap and every local buffer are. Where UCX can register that memory on every
     * PE, the heaps are mapped and puts and gets move straight between them (the direct path):
     * no staging copy, the data complete at the target before the request is staged (so its
     * source may change), a signal following as a record of no data. */
    symcoll_ucx_memory_t heap_memory;
} symcoll_proxy_memory_t;

/* The most slots a configuration may ask for. */
#define SYMCOLL_PROXY_MAX_SLOTS 1024u

/* The same on every PE (as is the heap's size). 0 picks the default. */
typedef struct {
    size_t slot_bytes; /* the staging chunk: a put moves in pieces of this size (1 MiB) */
    unsigned slots;    /* chunks the staging ring holds, per pair and direction (as many as 64 MiB
                          holds for all PEs, 4 to 16) */
    unsigned ring_entries; /* requests posted and not complete (1024); a post waits for room */
    bool staged;           /* stage even where the direct path could be taken */
    size_t eager_bytes;    /* records of at most this much data go as one message with it; 0:
                              none (every record through the window, announced by a count) */
} symcoll_proxy_config_t;

/* A put of bytes from src (in this PE's heap, any local memory with memory.any_local, or
 * pinned host memory with prestaged) to dst_offset of PE pe's heap, and with signal,
 * then the 8-byte word at signal_offset of pe's heap set to, or increased by, value. bytes may
 * be 0 (a signal alone). */
typedef struct {
    int pe;
    size_t dst_offset;
    const void *src;
    size_t bytes;
    bool signal;
    size_t signal_offset;
    uint64_t value;
    symcoll_ucx_signal_op_t op;
    /* src is pinned host memory that stays unchanged until the put is complete (the device
     * ring's pre-staging): the proxy puts from it, with no copy out, and src need not lie in
     * the heap. */
    bool prestaged;
} symcoll_proxy_put_t;

/* A get of bytes from src_offset of PE pe's heap into dst (in this PE's heap). */
typedef struct {
    int pe;
    size_t src_offset;
    void *dst;
    size_t bytes;
} symcoll_proxy_get_t;

/* Collective over boot: allocates and maps the windows (through t, which the proxy thread then
 * owns until symcoll_proxy_destroy) and starts the thread. heap: this PE's heap of heap_bytes
 * (offsets are the same on every PE). Waits give up after timeout_ms (0: never). */
symcoll_status_t symcoll_proxy_create(symcoll_bootstrap_t *boot, symcoll_ucx_t *t, char *heap,
                                      size_t heap_bytes, const symcoll_proxy_memory_t *memory,
                                      const symcoll_proxy_config_t *config, uint64_t timeout_ms,
                                      symcoll_proxy_t **out);

/* Posts a put (returns before it is done: src must stay unchanged until a quiet, or a wait
 * for its ticket, returns). ticket (may be NULL): what symcoll_proxy_wait takes for this request.
 * INVALID_ARGUMENT names what is wrong; a failure of the proxy is returned by the next post,
 * wait or quiet. */
symcoll_status_t symcoll_proxy_put(symcoll_proxy_t *p, const symcoll_proxy_put_t *put,
                                   uint64_t *ticket);

/* Posts a get (returns before it is done: dst holds the data once a quiet, or a wait for its
 * ticket, returns). */
symcoll_status_t symcoll_proxy_get(symcoll_proxy_t *p, const symcoll_proxy_get_t *get,
                                   uint64_t *ticket);

/* The same, for the proxy thread itself (memory.poll), which must not wait for room in its own
 * ring: *posted is false, and nothing posted, while the ring is full. */
symcoll_status_t symcoll_proxy_try_put(symcoll_proxy_t *p, const symcoll_proxy_put_t *put,
                                       uint64_t *ticket, bool *posted);
symcoll_status_t symcoll_proxy_try_get(symcoll_proxy_t *p, const symcoll_proxy_get_t *get,
                                       uint64_t *ticket, bool *posted);

/* Whether puts and gets take the direct path (memory.heap_memory). */
bool symcoll_proxy_direct(const symcoll_proxy_t *p);

/* How many requests, in posting order, are staged in full (a put's source may change) and
 * complete: tickets up to these counts are. */
uint64_t symcoll_proxy_staged(symcoll_proxy_t *p);
uint64_t symcoll_proxy_complete(symcoll_proxy_t *p);

/* The request of ticket is complete, as after a quiet, and so is every request posted before it
 * (requests complete in the order they were posted). */
symcoll_status_t symcoll_proxy_wait(symcoll_proxy_t *p, uint64_t ticket);

/* For the memory callbacks, on the proxy thread, while they wait for a copy: one pass of the
 * transport's progress (over TCP a put moves only while its sender progresses). */
void symcoll_proxy_progress(symcoll_proxy_t *p);

/* Every request posted before is complete: a put's data is in the target's heap and its signal
 * applied, a get's data in dst. TIMEOUT names the PE that did not take or apply them in time; after
 * a failure only symcoll_proxy_destroy(p, 1) is valid. */
symcoll_status_t symcoll_proxy_quiet(symcoll_proxy_t *p);

/* Collective unless abort: quiet, waits until every PE is done, stops the thread, unmaps and
 * frees. With abort nothing waits for a quiet or for another PE, but the thread may first
 * have to leave a transport wait, bounded by the transport's timeout, and the transport's
 * endpoints are closed (symcoll_ucx_disconnect) before the staging is freed (kept, leaked, where
 * one did not close in time). Frees p either way. */
symcoll_status_t symcoll_proxy_destroy(symcoll_proxy_t *p, int abort);

#ifdef __cplusplus
}
#endif
#endif
