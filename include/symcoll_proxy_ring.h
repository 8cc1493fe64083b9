/* Internal, not API: the ring in which the device API posts RMA to PEs of other nodes for this
 * PE's proxy (src/nodes_device_ring.c drains it). It belongs to SYMCOLL_DEVICE_HANDLE_VERSION:
 * a change here comes with a new handle version. */
#ifndef SYMCOLL_PROXY_RING_H
#define SYMCOLL_PROXY_RING_H

#include <stdint.h>

#define SYMCOLL_PROXY_RING_ENTRIES 1024u

/* PUT_PRESTAGED: a put whose source the poster has copied into the pre-staging slot of its
 * entry (local: the slot's byte offset in the pre-staging), so that it goes on without waiting
 * for the proxy to stage it. Only the library's own kernel posts it (a put on a stream), with
 * the pre-staging's address as a parameter: the handle does not carry it, and the entry's
 * layout is unchanged, so handle version 3 stands. */
enum {
    SYMCOLL_PROXY_RING_PUT = 0,
    SYMCOLL_PROXY_RING_GET = 1,
    SYMCOLL_PROXY_RING_PUT_PRESTAGED = 2
};

/* The pre-staging: entry i may use slot i % SLOTS, once entry i - SLOTS is complete (its data
 * is at its target, so the proxy no longer reads the slot). A put of at most PRESTAGE_MAX bytes
 * goes as pieces of at most SLOT_BYTES, each its own entry, the signal on the last. */
#define SYMCOLL_PROXY_PRESTAGE_SLOTS 32u
#define SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES (256u << 10)
#define SYMCOLL_PROXY_PRESTAGE_MAX (1u << 20)

/* The words the proxy publishes (host-mapped), each a count of ring entries that only grows:
 * read from the ring (the entry may be reused), with their source staged (a put's source may be
 * reused), complete (a put is at its target, a get's data in dst). */
enum {
    SYMCOLL_PROXY_RING_CONSUMED,
    SYMCOLL_PROXY_RING_STAGED,
    SYMCOLL_PROXY_RING_COMPLETE,
    SYMCOLL_PROXY_RING_WORDS
};

/* One request, one 64-byte line; entry i of the ring is request i % SYMCOLL_PROXY_RING_ENTRIES.
 */
typedef struct {
    uint64_t ready;         /* i + 1 once filled, written last with release at system scope */
    uint64_t remote_offset; /* in pe's heap: a put's destination, a get's source */
    uint64_t local; /* an address of this PE's GPU: a put's source, a get's dst; PUT_PRESTAGED:
                       the offset of its slot in the pre-staging */
    uint64_t bytes;
    uint64_t signal_offset; /* in pe's heap, with has_signal */
    uint64_t value;
    int32_t pe;         /* a WORLD PE of another node */
    uint16_t kind;      /* SYMCOLL_PROXY_RING_PUT, _GET or _PUT_PRESTAGED */
    uint8_t has_signal; /* put: then the signal, SET or ADD (op) of value */
    uint8_t op;         /* symcoll_signal_op_t */
    uint64_t unused;
} symcoll_proxy_ring_entry_t;

/* Where the device API finds the ring: entries NULL in a job on one node. */
typedef struct {
    symcoll_proxy_ring_entry_t *entries; /* host-mapped, as the GPU addresses it */
    const uint64_t *progress;            /* host-mapped, SYMCOLL_PROXY_RING_WORDS counts */
    unsigned long long *reserved;        /* GPU memory: entries taken by the GPU's threads */
} symcoll_proxy_ring_t;

#endif
