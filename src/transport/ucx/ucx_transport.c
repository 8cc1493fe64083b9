/* The transport's life: create (context, worker, endpoints) and destroy. */
#include <stdlib.h>
#include "internal.h"
#include "ucx_internal.h"

symcoll_status_t symcoll_ucx_capabilities(const symcoll_ucx_t *t, symcoll_ucx_capabilities_t *out) {
    *out = t->caps;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_create(symcoll_bootstrap_t *boot, const bool *connect_to,
                                    uint64_t timeout_ms, symcoll_ucx_t **out) {
    const char *fn = "symcoll_ucx_create";
    *out = NULL;
    symcoll_ucx_t *t = calloc(1, sizeof *t);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (t) {
        t->boot = boot;
        t->timeout_ms = timeout_ms;
        t->peers = calloc((size_t)boot->size, sizeof *t->peers);
    }
    if (!t || !t->peers)
        st = symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: no memory for %d PEs", fn,
                               boot->size);
    for (int pe = 0; st == SYMCOLL_SUCCESS && pe < boot->size; pe++)
        t->peers[pe] = (symcoll_ucx_peer_t){.t = t, .pe = pe, .ep = NULL, .failure = UCS_OK};
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_context_open(t);
    /* One PE without UCX fails the creation on every PE, each with its own reason. */
    st = symcoll_bootstrap_agree(boot, fn, st);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_connect(t, connect_to);
    st = symcoll_bootstrap_agree(boot, fn, st);
    /* Endpoints finish their wire-up here, while every PE progresses, so a peer that cannot be
     * reached fails the creation rather than the first transfer. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_barrier(t);
    if (st != SYMCOLL_SUCCESS) {
        if (t)
            symcoll_ucx_destroy(t, 1);
        return st;
    }
    *out = t;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_destroy(symcoll_ucx_t *t, int abort) {
    /* Nothing may be in flight to or from a PE when the endpoints close without a flush. */
    symcoll_status_t st = abort ? SYMCOLL_SUCCESS : symcoll_ucx_barrier(t);
    while (t->regions) {
        symcoll_status_t released = symcoll_ucx_region_release(t, t->regions);
        st = st == SYMCOLL_SUCCESS ? released : st;
    }
    if (t->peers) {
        symcoll_status_t closed = symcoll_ucx_disconnect(t);
        st = st == SYMCOLL_SUCCESS ? closed : st;
    }
    symcoll_ucx_drop_pending(t);
    symcoll_ucx_context_close(t);
    free(t->peers);
    free(t);
    return st;
}
