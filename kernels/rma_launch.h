/* Launch functions of kernels/rma.cu, called by src/rma.c. */
#ifndef SYMCOLL_RMA_LAUNCH_H
#define SYMCOLL_RMA_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest put_signal whose data the signal kernel copies itself; larger ones go through the
 * copy engine first and the kernel only updates the signal. */
#define SYMCOLL_PUT_SIGNAL_FUSED_MAX ((size_t)64 * 1024)

/* One kernel: copies bytes (<= SYMCOLL_PUT_SIGNAL_FUSED_MAX, 0 for none) from src to the
 * peer address peer_dst, then updates the peer signal with release semantics. */
cudaError_t symcoll_put_signal_launch(void *peer_dst, const void *src, size_t bytes,
                                      uint64_t *peer_sig, uint64_t value, symcoll_signal_op_t op,
                                      cudaStream_t stream);

/* One single-thread kernel: waits until (*sig cmp value) under h's timeout. */
cudaError_t symcoll_signal_wait_launch(symcoll_device_t h, const uint64_t *sig, symcoll_cmp_t cmp,
                                       uint64_t value, cudaStream_t stream);

/* One single-thread kernel: adds expected to *awaited (this PE's running total, in its GPU
 * memory), then waits until *arrivals or *mirror (host-mapped, the proxy's stores of the same
 * running sum; NULL: none) >= *awaited under h's timeout, a timeout naming collective. Replayed
 * in a graph, each run waits for its own arrivals. */
cudaError_t symcoll_arrivals_wait_launch(symcoll_device_t h, const uint64_t *arrivals,
                                         const uint64_t *mirror, uint64_t *awaited,
                                         uint64_t expected, symcoll_collective_t collective,
                                         cudaStream_t stream);

/* Posts a request (SYMCOLL_PROXY_RING_PUT or _GET) for pe, of another node, into the proxy's
 * ring, as the device API does; its waits time out under h's timeout naming collective. A put
 * of at most SYMCOLL_PROXY_PRESTAGE_MAX bytes, where there is a pre-staging (prestage, its GPU
 * address, else NULL): one block copies its source there and posts it, and the stream goes on.
 * Else one thread posts it and waits until the proxy has staged a put's source or completed a
 * get. */
cudaError_t symcoll_proxy_request_launch(symcoll_device_t h, char *prestage, int kind, int pe,
                                         uint64_t remote_offset, const void *local, size_t bytes,
                                         const uint64_t *sig, uint64_t value,
                                         symcoll_signal_op_t op, symcoll_collective_t collective,
                                         cudaStream_t stream);

/* One single-thread kernel: waits until every request posted into the proxy's ring before it
 * (by any stream or kernel of this PE) is complete at its target. */
cudaError_t symcoll_proxy_quiet_launch(symcoll_device_t h, symcoll_collective_t collective,
                                       cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
