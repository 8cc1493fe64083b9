/* The UCX transport: one-sided puts, gets and signals on host memory between PEs that cannot
 * reach each other with loads and stores (PEs of other nodes). One UCX context and worker per
 * PE, wired up over the bootstrap. The proxy (src/transport/proxy) carries heap RMA over it.
 *
 * Every wait (flush, endpoint close, signal) progresses the worker and gives up after the
 * transport's timeout with TIMEOUT naming the PE it waited for. After a TIMEOUT or another
 * failure of a transfer, only symcoll_ucx_destroy(t, 1) is valid. Every call is made by one
 * thread at a time (the worker is created SERIALIZED). */
#ifndef SYMCOLL_UCX_TRANSPORT_H
#define SYMCOLL_UCX_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bootstrap/bootstrap.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symcoll_ucx symcoll_ucx_t;
typedef struct symcoll_ucx_region symcoll_ucx_region_t;

/* What this UCX can do, from ucp_context_query. */
typedef struct {
    const char *version;   /* ucp_get_version_string(), e.g. "1.13.1" */
    uint64_t memory_types; /* bit UCS_MEMORY_TYPE_x: UCX can register and move that memory */
    bool cuda_memory;      /* bit UCS_MEMORY_TYPE_CUDA: without it, GPU data must be staged
                              through pinned host memory (a UCX without CUDA crashes on it) */
    bool tcp_segments;     /* symcoll gave the context its TCP segments (256 KiB, not UCX's
                              8 KiB; ucx_tcp_segments.c): the environment set neither size,
                              and UCX may open a TCP interface */
} symcoll_ucx_capabilities_t;

/* Collective over boot: opens libucp (UNSUPPORTED, saying what to install, when it is absent
 * on any PE), creates the context (RMA, 64-bit atomics and active messages) and worker, exchanges
 * worker addresses and connects an endpoint to each PE p with connect_to[p] (NULL: every other PE;
 * connect_to must be symmetric: p connects to q exactly when q connects to p). Each wait gives
 * up after timeout_ms (0: never, as SYMCOLL_TIMEOUT_MS=0 means). boot must outlive t. */
symcoll_status_t symcoll_ucx_create(symcoll_bootstrap_t *boot, const bool *connect_to,
                                    uint64_t timeout_ms, symcoll_ucx_t **out);

/* Closes every endpoint: forcibly, dropping what is in flight, where UCX handles a peer's
 * failure; else with a flush, within the timeout. Once it succeeds nothing is sent or received,
 * so the buffers of transfers still in flight may be freed (an aborting owner's); after a
 * failure (a flush that timed out) UCX may still read them. Then only symcoll_ucx_destroy(t, 1)
 * is valid. */
symcoll_status_t symcoll_ucx_disconnect(symcoll_ucx_t *t);

/* Collective unless abort: completes every transfer (quiet), waits for every PE, then closes
 * the endpoints, unmaps the regions still mapped and destroys the worker and context. With
 * abort (after a failure: peers may be gone) nothing waits on another PE. Frees t either way;
 * returns the first failure. */
symcoll_status_t symcoll_ucx_destroy(symcoll_ucx_t *t, int abort);

symcoll_status_t symcoll_ucx_capabilities(const symcoll_ucx_t *t, symcoll_ucx_capabilities_t *out);

/* Whether UCX may open a TCP interface under the values of UCX_TLS and UCX_NET_DEVICES as UCX
 * parsed them (never NULL: "all" by default); is_netdev says whether the name of len bytes is a
 * network interface of this host (TCP's devices). UCX warns of a setting that no interface
 * takes, so symcoll sets its TCP segments only then. */
bool symcoll_ucx_may_use_tcp(const char *tls, const char *net_devices,
                             bool (*is_netdev)(const char *name, size_t len));

/* What memory a region or the local buffer of a transfer is: said, never detected (UCX's
 * detection is what crashes a UCX without CUDA support on a GPU pointer). CUDA memory is
 * refused (UNSUPPORTED) where the capabilities lack cuda_memory. */
typedef enum { SYMCOLL_UCX_MEMORY_HOST = 0, SYMCOLL_UCX_MEMORY_CUDA = 1 } symcoll_ucx_memory_t;

/* Collective: registers [base, base + bytes) of memory on every PE (the sizes may differ) and
 * exchanges the remote keys, so that the connected PEs can put, get and signal into it by
 * offset (signals into host memory only). Its exchanges do not progress the worker: call it
 * with no transfer in flight (after symcoll_ucx_barrier or creation). A failure on any PE fails
 * it on every PE. */
symcoll_status_t symcoll_ucx_region_map(symcoll_ucx_t *t, void *base, size_t bytes,
                                        symcoll_ucx_memory_t memory, symcoll_ucx_region_t **out);
/* Collective: completes every transfer, waits for every PE, then unregisters; frees r. */
symcoll_status_t symcoll_ucx_region_unmap(symcoll_ucx_t *t, symcoll_ucx_region_t *r);
/* Destroys the keys and unregisters without waiting on any PE (after a failure); frees r. */
symcoll_status_t symcoll_ucx_region_release(symcoll_ucx_t *t, symcoll_ucx_region_t *r);

/* Non-blocking, as NVSHMEM's _nbi calls: bytes from src into PE pe's region at offset. src
 * must stay unchanged until symcoll_ucx_quiet returns. */
symcoll_status_t symcoll_ucx_put(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                 size_t offset, const void *src, size_t bytes);
/* Non-blocking: bytes of PE pe's region at offset into dst, valid once symcoll_ucx_quiet
 * returns. */
symcoll_status_t symcoll_ucx_get(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                 size_t offset, void *dst, size_t bytes);
/* The same with a local buffer of the given memory (symcoll_ucx_put and _get take host
 * memory). */
symcoll_status_t symcoll_ucx_put_from(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                      size_t offset, const void *src, size_t bytes,
                                      symcoll_ucx_memory_t src_memory);
symcoll_status_t symcoll_ucx_get_into(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                      size_t offset, void *dst, size_t bytes,
                                      symcoll_ucx_memory_t dst_memory);

typedef enum { SYMCOLL_UCX_SIGNAL_SET = 0, SYMCOLL_UCX_SIGNAL_ADD = 1 } symcoll_ucx_signal_op_t;

/* The 8-byte word at signal_offset of PE pe's region (8-byte aligned) is set to, or increased
 * by, value atomically; returns once it is done at PE pe. */
symcoll_status_t symcoll_ucx_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                    size_t signal_offset, uint64_t value,
                                    symcoll_ucx_signal_op_t op);
/* symcoll_ucx_put, then the signal, which PE pe sees only once the data is there; returns once
 * both are done at PE pe. */
symcoll_status_t symcoll_ucx_put_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r, int pe,
                                        size_t offset, const void *src, size_t bytes,
                                        size_t signal_offset, uint64_t value,
                                        symcoll_ucx_signal_op_t op);

/* Every put and get this PE issued is complete: the data is at its target (or, for a
 * get, in dst). TIMEOUT names the PE that did not answer in time. */
symcoll_status_t symcoll_ucx_quiet(symcoll_ucx_t *t);
/* The same for the puts and gets issued to PE pe alone. */
symcoll_status_t symcoll_ucx_quiet_pe(symcoll_ucx_t *t, int pe);

/* The same without waiting: a flush of the endpoint to PE pe starts, and *flush holds it until
 * symcoll_ucx_flush_done sees it complete (NULL once it has). UCX orders no two operations, not
 * even two puts to one address: one issued after such a flush completes lands after those
 * before it. (ucp_worker_fence would order them too, but where UCX makes it strong it flushes
 * every endpoint, blocking, with no deadline.) */
symcoll_status_t symcoll_ucx_flush_start(symcoll_ucx_t *t, int pe, void **flush);
/* Whether the flush of symcoll_ucx_flush_start is complete, without waiting: then *flush is
 * NULL again. *st gets its failure, if it failed. */
bool symcoll_ucx_flush_done(symcoll_ucx_t *t, int pe, void **flush, symcoll_status_t *st);
/* Waits for the flush until the transport's timeout, or with abort only lets it go. */
symcoll_status_t symcoll_ucx_flush_finish(symcoll_ucx_t *t, int pe, void **flush, bool abort);

/* Messages: the header and data of one send reach the handler of PE pe whole, in one eager
 * active message, inside pe's progress (the thread that progresses its worker), in no order
 * that the transport promises beside other sends and puts. data is NULL where UCX would have
 * sent it by rendezvous, which the transport never asks for. */
typedef void (*symcoll_ucx_message_handler_t)(void *arg, const void *header, size_t header_bytes,
                                              const void *data, size_t bytes);
/* The handler of this PE's messages. NULL: none, and messages that arrive are dropped (the
 * transport's own handler stays registered with UCX, so a late message draws no warning); it
 * fails only where it registers one. */
symcoll_status_t symcoll_ucx_set_message_handler(symcoll_ucx_t *t,
                                                 symcoll_ucx_message_handler_t handler, void *arg);
/* Sends header and data (host memory) to PE pe; both stay unchanged until *send is NULL, at
 * once or once symcoll_ucx_send_done has seen the send complete. */
symcoll_status_t symcoll_ucx_send(symcoll_ucx_t *t, int pe, const void *header, size_t header_bytes,
                                  const void *data, size_t bytes, void **send);
/* Whether the send is complete, without waiting (as symcoll_ucx_flush_done). */
bool symcoll_ucx_send_done(symcoll_ucx_t *t, int pe, void **send, symcoll_status_t *st);
/* Waits for the send until the transport's timeout, or with abort only lets it go. */
symcoll_status_t symcoll_ucx_send_finish(symcoll_ucx_t *t, int pe, void **send, bool abort);

/* One pass of the worker's progress: over transports that emulate RMA in software (TCP), the
 * transfers that target this PE advance only while it progresses. */
void symcoll_ucx_progress(symcoll_ucx_t *t);

/* Whether this PE has an endpoint to PE pe. */
bool symcoll_ucx_connected(const symcoll_ucx_t *t, int pe);

/* Waits, progressing the worker, until the 8-byte word at signal_offset of this PE's own
 * region r is at least value; TIMEOUT after the transport's timeout. */
symcoll_status_t symcoll_ucx_wait_signal(symcoll_ucx_t *t, const symcoll_ucx_region_t *r,
                                         size_t signal_offset, uint64_t value);

/* Collective: quiet, then an agreement over the bootstrap (the barrier) while a helper thread
 * progresses the worker, because over transports that emulate RMA in software (TCP) a transfer
 * completes only when its target progresses: a PE that blocked in the bootstrap without progressing
 * would hold up another PE's quiet. */
symcoll_status_t symcoll_ucx_barrier(symcoll_ucx_t *t);

#ifdef __cplusplus
}
#endif
#endif
