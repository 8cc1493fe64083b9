/* The ring in which the device API posts RMA to PEs of other nodes (symcoll_proxy_ring.h): its
 * memory, and the proxy thread's pass that takes its requests. One per process, as the PE. */
#ifndef SYMCOLL_NODES_DEVICE_RING_H
#define SYMCOLL_NODES_DEVICE_RING_H

#include "symcoll.h"
#include "transport/proxy/proxy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates the ring (host-mapped entries, counts and pre-staging, the GPU's reservation count) and
 * fills *out with the addresses the GPU uses. */
symcoll_status_t symcoll_nodes_device_ring_create(symcoll_proxy_ring_t *out);
/* The same ring over memory that the caller owns (zeroed, SYMCOLL_PROXY_RING_ENTRIES entries,
 * SYMCOLL_PROXY_RING_WORDS counts, and SYMCOLL_PROXY_PRESTAGE_SLOTS slots of pre-staging or
 * NULL): a CPU test's host memory stands in for the GPU's. */
symcoll_status_t symcoll_nodes_device_ring_serve(symcoll_proxy_ring_entry_t *entries,
                                                 uint64_t *progress, char *prestage);
/* Frees it (the memory only where create allocated it), once the proxy that polled it is
 * gone. */
void symcoll_nodes_device_ring_destroy(void);
/* The proxy thread's pass (symcoll_proxy_memory_t.poll): posts the ring's new requests, in
 * order, as far as the proxy's own ring has room, and publishes how many are read, staged and
 * complete. */
bool symcoll_nodes_device_ring_poll(void *context, symcoll_proxy_t *p, symcoll_status_t *st);

#ifdef __cplusplus
}
#endif
#endif
