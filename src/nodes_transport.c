/* The UCX transport to the PEs of other nodes and the proxy over it, or why this build cannot
 * have them. */
#include <stdio.h>
#include <string.h>
#include "env.h"
#include "internal.h"
#include "nodes.h"
#include "nodes_device_ring.h"
#include "nodes_proxy_memory.h"
#include "nodes_transport.h"

symcoll_status_t symcoll_nodes_transport_create(symcoll_bootstrap_t *boot,
                                                const unsigned long long *nodes,
                                                uint64_t timeout_ms, symcoll_ucx_t **out) {
    bool other[SYMCOLL_MAX_PES];
    int n_nodes = symcoll_nodes_others(nodes, boot->size, boot->rank, other);
    *out = NULL;
    if (n_nodes == 1)
        return SYMCOLL_SUCCESS;
#ifdef SYMCOLL_HAVE_UCX
    /* Another node's PE is reached by no other path, so every one of them gets an endpoint;
     * other[] is symmetric, as creation requires. */
    symcoll_status_t st = symcoll_ucx_create(boot, other, timeout_ms, out);
    if (st != SYMCOLL_SUCCESS) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
        symcoll_set_error(st, "symcoll_init: PEs on %d nodes need the UCX transport: %s", n_nodes,
                          reason);
    }
    return st;
#else
    (void)timeout_ms;
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "symcoll_init: PEs on %d nodes need the UCX transport, but this "
                             "symcoll was built without the UCX headers: install them (Debian "
                             "and Ubuntu: apt-get install libucx-dev; elsewhere set UCX_ROOT to a "
                             "UCX install) and build symcoll again",
                             n_nodes);
#endif
}

symcoll_status_t symcoll_nodes_transport_destroy(symcoll_ucx_t *t, int abort) {
#ifdef SYMCOLL_HAVE_UCX
    return t ? symcoll_ucx_destroy(t, abort) : SYMCOLL_SUCCESS;
#else
    /* Without UCX no transport was ever created. */
    (void)t;
    (void)abort;
    return SYMCOLL_SUCCESS;
#endif
}

symcoll_status_t symcoll_nodes_proxy_create(symcoll_bootstrap_t *boot, symcoll_ucx_t *t, int device,
                                            char *heap, size_t heap_bytes, uint64_t timeout_ms,
                                            symcoll_proxy_t **out, symcoll_proxy_ring_t *ring) {
    *out = NULL;
    memset(ring, 0, sizeof *ring);
#ifdef SYMCOLL_HAVE_UCX
    symcoll_proxy_memory_t memory;
    symcoll_status_t st = symcoll_nodes_proxy_memory_open(device, timeout_ms, &memory);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_device_ring_create(ring);
    /* Every PE creates it (or all give up together), as creation is collective. */
    st = symcoll_bootstrap_agree(boot, "symcoll_init", st);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_proxy_create(boot, t, heap, heap_bytes, &memory,
                                  &(symcoll_proxy_config_t){
                                      .slot_bytes = symcoll_env()->proxy_slot_bytes,
                                      .slots = (unsigned)symcoll_env()->proxy_slots,
                                      .staged = !symcoll_env()->proxy_direct,
                                      .eager_bytes = symcoll_env()->proxy_eager_bytes,
                                  },
                                  timeout_ms, out);
    if (st == SYMCOLL_SUCCESS) {
        symcoll_nodes_proxy_memory_attach(*out);
    } else {
        /* The teardown's own failures must not replace the reason. */
        char reason[512];
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
        symcoll_nodes_device_ring_destroy();
        symcoll_nodes_proxy_memory_close();
        memset(ring, 0, sizeof *ring);
        symcoll_restore_error(reason);
    }
    return st;
#else
    /* Without UCX there is no transport, and init has failed before. */
    (void)boot;
    (void)t;
    (void)device;
    (void)heap;
    (void)heap_bytes;
    (void)timeout_ms;
    return SYMCOLL_SUCCESS;
#endif
}

symcoll_status_t symcoll_nodes_proxy_destroy(symcoll_proxy_t *p, int abort) {
#ifdef SYMCOLL_HAVE_UCX
    if (!p)
        return SYMCOLL_SUCCESS;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    /* Every PE hears of a drain that failed: the others would wait for it in the proxy's own
     * collective teardown. */
    if (!abort)
        st = symcoll_bootstrap_agree(
            symcoll_g.boot, "symcoll_finalize",
            symcoll_nodes_device_ring_drain(p, (uint64_t)symcoll_env()->timeout_ms));
    symcoll_status_t destroyed = symcoll_proxy_destroy(p, abort || st != SYMCOLL_SUCCESS);
    st = st != SYMCOLL_SUCCESS ? st : destroyed;
    symcoll_nodes_device_ring_destroy();
    symcoll_nodes_proxy_memory_close();
    return st;
#else
    (void)p;
    (void)abort;
    return SYMCOLL_SUCCESS;
#endif
}
