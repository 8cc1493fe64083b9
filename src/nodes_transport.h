/* The transport between nodes at init: created where the job spans more than one node, destroyed
 * at finalize (docs/design.md, "Beyond one node"). Through this file only, so that a build
 * without the UCX headers, which has no transport, still links and says what it lacks. */
#ifndef SYMCOLL_NODES_TRANSPORT_H
#define SYMCOLL_NODES_TRANSPORT_H

#include <stdint.h>
#include "bootstrap/bootstrap.h"
#include "transport/proxy/proxy.h"
#include "transport/ucx/ucx_transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over boot when nodes (every PE's node identity, as init exchanged them) name more
 * than one node: the UCX transport, with an endpoint to each PE of another node and waits that
 * give up after timeout_ms, into *out. On one node *out is NULL and UCX is never loaded. A
 * failure keeps the transport's status, its reason after "symcoll_init: PEs on N nodes need the
 * UCX transport: "; a build without the UCX headers returns UNSUPPORTED saying how to rebuild. */
symcoll_status_t symcoll_nodes_transport_create(symcoll_bootstrap_t *boot,
                                                const unsigned long long *nodes,
                                                uint64_t timeout_ms, symcoll_ucx_t **out);

/* symcoll_ucx_destroy(t, abort), nothing for t NULL. */
symcoll_status_t symcoll_nodes_transport_destroy(symcoll_ucx_t *t, int abort);

/* Collective over boot, where t (the transport) exists: the proxy that carries RMA to the PEs of
 * other nodes, reaching heap (heap_bytes, this PE's) and every other memory of device through
 * CUDA copies (nodes_proxy_memory.h), into *out, and the device API's ring that it drains
 * (nodes_device_ring.h), into *ring (zeroed when there is none). */
symcoll_status_t symcoll_nodes_proxy_create(symcoll_bootstrap_t *boot, symcoll_ucx_t *t, int device,
                                            char *heap, size_t heap_bytes, uint64_t timeout_ms,
                                            symcoll_proxy_t **out, symcoll_proxy_ring_t *ring);

/* symcoll_proxy_destroy(p, abort), the device ring and the proxy's stream and context; nothing
 * for p NULL. With abort the transport must be destroyed right after (the proxy's puts may still
 * be in flight). */
symcoll_status_t symcoll_nodes_proxy_destroy(symcoll_proxy_t *p, int abort);

#ifdef __cplusplus
}
#endif
#endif
