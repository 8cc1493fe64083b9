/* RMA to the PEs of other nodes (src/rma_remote.c): through the proxy, in stream order. */
#ifndef SYMCOLL_RMA_REMOTE_H
#define SYMCOLL_RMA_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pe is a WORLD PE of another node, which the proxy reaches (and loads and stores do not). */
bool symcoll_rma_remote(int pe);

/* SUCCESS, or the proxy's failure (fn's prefix is the proxy's own): after it, no remote
 * transfer is enqueued. */
symcoll_status_t symcoll_rma_remote_usable(void);

/* Enqueues on stream a put of bytes from src (any memory of this GPU) to pe's copy of the
 * symmetric dst, then, where sig is not NULL, pe's copy of sig set to or increased by value. In
 * stream order it completes once src is staged (may be reused); pe sees the data before the
 * signal, and after a quiet. The arguments are checked by the caller. A wait that times out
 * (the proxy stalled) breaks team (WORLD for RMA, the collective's team) and names collective. */
symcoll_status_t symcoll_rma_remote_put(const char *fn, void *dst, const void *src, size_t bytes,
                                        const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                        int pe, symcoll_team_t team,
                                        symcoll_collective_t collective, cudaStream_t stream);

/* Enqueues a get of bytes of pe's copy of the symmetric src into dst (any memory of this GPU);
 * in stream order it completes once the data is in dst. */
symcoll_status_t symcoll_rma_remote_get(const char *fn, void *dst, const void *src, size_t bytes,
                                        int pe, symcoll_collective_t collective,
                                        cudaStream_t stream);

/* Enqueues a quiet: in stream order, every transfer to another node that this PE enqueued before
 * (on any stream, or from a kernel through the device API) is complete at its target; its
 * timeout breaks team. */
symcoll_status_t symcoll_rma_remote_quiet(const char *fn, symcoll_team_t team,
                                          symcoll_collective_t collective, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
