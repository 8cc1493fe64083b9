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
/* The pre-staging's GPU address (SYMCOLL_PROXY_PRESTAGE_SLOTS slots of
 * SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES, host-mapped); NULL where there is no ring. */
char *symcoll_nodes_device_ring_prestage(void);
/* Waits until proxy p has read every entry that the GPU reserved (the GPU is idle: finalize
 * synchronized it), so that p's quiet covers them: a pre-staged put's kernel ends before the
 * proxy has taken it. TIMEOUT after timeout_ms (0: never), or p's failure. */
symcoll_status_t symcoll_nodes_device_ring_drain(symcoll_proxy_t *p, uint64_t timeout_ms);
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
