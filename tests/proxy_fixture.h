/* A proxy of PE 1 of 2 with no thread and no network (proxy_fixture.c): receiving from PE 0,
 * the test plays PE 0's puts into the inbox and delivers its messages, then lets the proxy apply
 * what is there; sending to PE 0, the test posts puts and runs the proxy's staging pass by pass
 * (PE 0 frees nothing). In C, as the proxy's internals are. */
#ifndef PROXY_FIXTURE_H
#define PROXY_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct proxy_fixture proxy_fixture_t;

/* This PE is 1 of 2, PE 0 sends; a heap of heap_bytes, poisoned. NULL when out of memory. */
proxy_fixture_t *proxy_fixture_create(size_t heap_bytes);
void proxy_fixture_destroy(proxy_fixture_t *f);
/* PE 0 stages record index: a put of bytes from data to heap offset, then the 8-byte word at
 * signal_offset set to value (value 0: no signal); eager or through the window. */
void proxy_fixture_stage(proxy_fixture_t *f, uint64_t index, const void *data, size_t bytes,
                         uint64_t offset, uint64_t signal_offset, uint64_t value, int eager);
/* A window record's data and record land, as PE 0's puts would (not yet announced). */
void proxy_fixture_put(proxy_fixture_t *f, uint64_t index);
/* PE 0's count of announced records lands. */
void proxy_fixture_announce(proxy_fixture_t *f, uint64_t count);
/* An eager record's message arrives (its header as staged, seq overridden when seq_override). */
void proxy_fixture_deliver(proxy_fixture_t *f, uint64_t index, uint32_t seq_override);
/* One pass of the proxy's receiving step; *applied gets the records applied so far. */
symcoll_status_t proxy_fixture_receive(proxy_fixture_t *f, uint64_t *applied);
unsigned char *proxy_fixture_heap(proxy_fixture_t *f);

/* The fixture's slot_bytes: a record's chunk holds at most this much, and so does a pass. */
size_t proxy_fixture_slot_bytes(void);
/* Posts a put to PE 0: bytes of this PE's heap at src_offset to dst_offset of PE 0's, every
 * record through the window (no eager records). */
void proxy_fixture_post_put(proxy_fixture_t *f, size_t src_offset, size_t bytes,
                            uint64_t dst_offset);
/* Queues the replies to a get of PE 0: bytes of this PE's heap at src_offset, for dst_offset
 * of PE 0's heap. */
void proxy_fixture_queue_reply(proxy_fixture_t *f, size_t src_offset, size_t bytes,
                               uint64_t dst_offset);
/* One pass of the proxy's staging step; *records gets the records staged to PE 0 so far,
 * *requests the posted requests staged in full. */
symcoll_status_t proxy_fixture_stage_pass(proxy_fixture_t *f, uint64_t *records,
                                          uint64_t *requests);
/* The chunk of PE 0's record index as staged in the outbox. */
const unsigned char *proxy_fixture_staged(const proxy_fixture_t *f, uint64_t index);

#ifdef __cplusplus
}
#endif
#endif
