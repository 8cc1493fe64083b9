/* A proxy receiving from one sender with no thread and no network (proxy_arrival_fixture.c):
 * the test plays the sender's puts into the inbox and delivers its messages, then lets the
 * proxy apply what is there. In C, as the proxy's internals are. */
#ifndef PROXY_ARRIVAL_FIXTURE_H
#define PROXY_ARRIVAL_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct arrival_fixture arrival_fixture_t;

/* This PE is 1 of 2, PE 0 sends; a heap of heap_bytes, poisoned. NULL when out of memory. */
arrival_fixture_t *arrival_fixture_create(size_t heap_bytes);
void arrival_fixture_destroy(arrival_fixture_t *f);
/* PE 0 stages record index: a put of bytes from data to heap offset, then the 8-byte word at
 * signal_offset set to value (value 0: no signal); eager or through the window. */
void arrival_fixture_stage(arrival_fixture_t *f, uint64_t index, const void *data, size_t bytes,
                           uint64_t offset, uint64_t signal_offset, uint64_t value, int eager);
/* A window record's data and record land, as PE 0's puts would (not yet announced). */
void arrival_fixture_put(arrival_fixture_t *f, uint64_t index);
/* PE 0's count of announced records lands. */
void arrival_fixture_announce(arrival_fixture_t *f, uint64_t count);
/* An eager record's message arrives (its header as staged, seq overridden when seq_override). */
void arrival_fixture_deliver(arrival_fixture_t *f, uint64_t index, uint32_t seq_override);
/* One pass of the proxy's receiving step; *applied gets the records applied so far. */
symcoll_status_t arrival_fixture_receive(arrival_fixture_t *f, uint64_t *applied);
const unsigned char *arrival_fixture_heap(const arrival_fixture_t *f);

#ifdef __cplusplus
}
#endif
#endif
