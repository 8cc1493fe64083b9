/* The proxy's way into this PE's GPU (src/nodes_proxy_memory.c): CUDA copies and the signal
 * kernel on a stream of a CUDA context of its own, staging in pinned host memory. One per
 * process, as the PE. */
#ifndef SYMCOLL_NODES_PROXY_MEMORY_H
#define SYMCOLL_NODES_PROXY_MEMORY_H

#include "transport/proxy/proxy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the context and its stream on device and fills *out (any_local: the proxy copies from
 * and to any memory of the GPU); a copy or signal that the GPU has not run after timeout_ms (0:
 * no limit) fails the proxy. On failure, symcoll_nodes_proxy_memory_close frees what it made. */
symcoll_status_t symcoll_nodes_proxy_memory_open(int device, uint64_t timeout_ms,
                                                 symcoll_proxy_memory_t *out);
/* The SYMCOLL_NODES_AWAITED arrivals words of calls across nodes (symcoll_g.nodes_sync), zero
 * and written by no one but the proxy (only other nodes signal them): an ADD to one of them is
 * one memory operation of the sum the proxy keeps, not the signal kernel, or for a barrier's
 * word with no copy of the proxy's before it, a store of the sum into the word's host-mapped
 * mirror (allocated here, in the calling thread's context). Before any PE may signal them. */
symcoll_status_t symcoll_nodes_proxy_memory_arrivals(const uint64_t *words);
/* The GPU address of the mirror of an arrivals word (symcoll_arrivals_wait_launch reads both),
 * or NULL where the proxy never stores into one for it: a word other than a barrier's, or no
 * proxy. */
const uint64_t *symcoll_nodes_proxy_memory_mirror(const uint64_t *word);
/* The proxy these copies serve, once created: its transport progresses while they run. */
void symcoll_nodes_proxy_memory_attach(symcoll_proxy_t *p);
/* Forgets the proxy and destroys the stream and the context, once the proxy is gone. */
void symcoll_nodes_proxy_memory_close(void);

#ifdef __cplusplus
}
#endif
#endif
