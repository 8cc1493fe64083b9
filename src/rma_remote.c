/* RMA to the PEs of other nodes: a kernel on the caller's stream posts the request into the
 * proxy's ring, as the device API does (include/symcoll_proxy_ring.h), and holds the stream until
 * a put's source is staged (by the kernel itself into the ring's pre-staging, up to
 * SYMCOLL_PROXY_PRESTAGE_MAX bytes; else by the proxy) or a get complete; a quiet waits for
 * every request before it. Kernels replay in a graph as they were captured, and no host
 * function waits for the proxy: one that did would hold the driver while the proxy thread's own
 * calls (the copies into this GPU, the signals it applies) need it, and a graph's host nodes
 * deadlocked so. */
#include "internal.h"
#include "rma_launch.h"
#include "nodes_device_ring.h"
#include "rma_remote.h"
#include "transport/proxy/proxy.h"

#ifdef SYMCOLL_HAVE_UCX

bool symcoll_rma_remote(int pe) {
    return symcoll_g.proxy && pe >= 0 && pe < symcoll_g.n_pes && pe != symcoll_g.my_pe &&
           !((symcoll_g.reachable >> pe) & 1ull);
}

symcoll_status_t symcoll_rma_remote_usable(void) {
    return symcoll_proxy_wait(symcoll_g.proxy, 0);
}

static symcoll_device_t handle(symcoll_team_t team) {
    return symcoll_team_device(&symcoll_g.teams[team]);
}

static uint64_t heap_offset(const void *sym) {
    return (uint64_t)((const char *)sym - symcoll_g.heap_base);
}

symcoll_status_t symcoll_rma_remote_put(const char *fn, void *dst, const void *src, size_t bytes,
                                        const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                        int pe, symcoll_team_t team,
                                        symcoll_collective_t collective, cudaStream_t stream) {
    return symcoll_cuda_status(
        symcoll_proxy_request_launch(handle(team), symcoll_nodes_device_ring_prestage(),
                                     SYMCOLL_PROXY_RING_PUT, pe, bytes ? heap_offset(dst) : 0, src,
                                     bytes, sig, value, op, collective, stream),
        fn, "kernel launch of a put to another node");
}

symcoll_status_t symcoll_rma_remote_get(const char *fn, void *dst, const void *src, size_t bytes,
                                        int pe, symcoll_collective_t collective,
                                        cudaStream_t stream) {
    return symcoll_cuda_status(symcoll_proxy_request_launch(handle(SYMCOLL_TEAM_WORLD), NULL,
                                                            SYMCOLL_PROXY_RING_GET, pe,
                                                            heap_offset(src), dst, bytes, NULL, 0,
                                                            SYMCOLL_SIGNAL_SET, collective, stream),
                               fn, "kernel launch of a get from another node");
}

symcoll_status_t symcoll_rma_remote_quiet(const char *fn, symcoll_team_t team,
                                          symcoll_collective_t collective, cudaStream_t stream) {
    return symcoll_cuda_status(symcoll_proxy_quiet_launch(handle(team), collective, stream), fn,
                               "kernel launch of a quiet of the proxy");
}

#else
/* A build without the UCX headers has no proxy (init refuses PEs on other nodes), so no PE is
 * remote and nothing below is reached. */
bool symcoll_rma_remote(int pe) {
    (void)pe;
    return false;
}

static symcoll_status_t no_proxy(const char *fn) {
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "%s: this symcoll was built without the UCX headers: no PE of another "
                             "node is reachable",
                             fn);
}

symcoll_status_t symcoll_rma_remote_usable(void) {
    return no_proxy("symcoll");
}

symcoll_status_t symcoll_rma_remote_put(const char *fn, void *dst, const void *src, size_t bytes,
                                        const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                        int pe, symcoll_team_t team,
                                        symcoll_collective_t collective, cudaStream_t stream) {
    (void)dst, (void)src, (void)bytes, (void)sig, (void)value, (void)op, (void)pe;
    (void)team, (void)collective, (void)stream;
    return no_proxy(fn);
}

symcoll_status_t symcoll_rma_remote_get(const char *fn, void *dst, const void *src, size_t bytes,
                                        int pe, symcoll_collective_t collective,
                                        cudaStream_t stream) {
    (void)dst, (void)src, (void)bytes, (void)pe, (void)collective, (void)stream;
    return no_proxy(fn);
}

symcoll_status_t symcoll_rma_remote_quiet(const char *fn, symcoll_team_t team,
                                          symcoll_collective_t collective, cudaStream_t stream) {
    (void)team, (void)collective, (void)stream;
    return no_proxy(fn);
}
#endif
