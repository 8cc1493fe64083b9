/* Wire-up: every worker's address over the bootstrap, then an endpoint to each PE asked for. */
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

/* Called by UCX when the connection to a peer breaks (it dies, resets, or its keepalive
 * stops): the waits on that PE then say so. */
static void on_endpoint_error(void *arg, ucp_ep_h ep, ucs_status_t status) {
    (void)ep;
    symcoll_ucx_peer_t *peer = arg;
    peer->failure = status;
    symcoll_debug(SYMCOLL_LOG_WARN, "UCX transport: the endpoint to PE %d failed: %s", peer->pe,
                  peer->t->lib.ucs_status_string(status));
}

static symcoll_status_t create_endpoint(symcoll_ucx_t *t, int pe, const ucp_address_t *address) {
    symcoll_ucx_peer_t *peer = &t->peers[pe];
    ucp_ep_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                        UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address = address;
    /* PEER: a dead peer fails the requests to it instead of aborting the process. UCX 1.13's
     * shared-memory transports cannot detect a dead peer and refuse PEER (UNREACHABLE): there
     * the endpoint is made without it, and only the transport's timeouts bound the waits. */
    params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb = on_endpoint_error;
    params.err_handler.arg = peer;
    ucs_status_t status = t->lib.ucp_ep_create(t->worker, &params, &peer->ep);
    if (status == UCS_ERR_UNREACHABLE) {
        symcoll_debug(SYMCOLL_LOG_WARN,
                      "UCX transport: no transport to PE %d detects a dead peer; connecting "
                      "without peer error handling",
                      pe);
        params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
        status = t->lib.ucp_ep_create(t->worker, &params, &peer->ep);
    }
    peer->peer_failure = params.err_mode == UCP_ERR_HANDLING_MODE_PEER;
    if (status != UCS_OK) {
        peer->ep = NULL;
        return symcoll_ucx_fail(&t->lib, "ucp_ep_create", status, "to PE %d", pe);
    }
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_connect(symcoll_ucx_t *t, const bool *connect_to) {
    symcoll_bootstrap_t *b = t->boot;
    ucp_address_t *address = NULL;
    size_t address_bytes = 0;
    ucs_status_t status = t->lib.ucp_worker_get_address(t->worker, &address, &address_bytes);
    symcoll_status_t st = status == UCS_OK ? SYMCOLL_SUCCESS
                                           : symcoll_ucx_fail(&t->lib, "ucp_worker_get_address",
                                                              status, "PE %d", b->rank);
    st = symcoll_bootstrap_agree(b, "symcoll_ucx_create", st);
    symcoll_bootstrap_blobs_t addresses = {0};
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_bootstrap_allgatherv(b, "symcoll_ucx_create", address, address_bytes,
                                          &addresses);
    if (address)
        t->lib.ucp_worker_release_address(t->worker, address);
    for (int pe = 0; pe < b->size && st == SYMCOLL_SUCCESS; pe++)
        if (pe != b->rank && (!connect_to || connect_to[pe]))
            st = create_endpoint(t, pe,
                                 (const ucp_address_t *)(addresses.data + pe * addresses.stride));
    symcoll_bootstrap_blobs_free(&addresses);
    return st;
}

symcoll_status_t symcoll_ucx_disconnect(symcoll_ucx_t *t) {
    uint64_t deadline = symcoll_ucx_deadline(t);
    symcoll_status_t first = SYMCOLL_SUCCESS;
    for (int pe = 0; pe < t->boot->size; pe++) {
        if (!t->peers[pe].ep)
            continue;
        /* FORCE: no flush, no handshake with the peer, which may be gone or already closed.
         * UCX allows it only on endpoints with peer error handling; the others flush, within
         * the deadline. */
        ucp_request_param_t param = {0};
        param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = t->peers[pe].peer_failure ? UCP_EP_CLOSE_FLAG_FORCE : 0;
        symcoll_status_t st = symcoll_ucx_wait(t, t->lib.ucp_ep_close_nbx(t->peers[pe].ep, &param),
                                               "ucp_ep_close_nbx", pe, deadline);
        t->peers[pe].ep = NULL;
        first = first == SYMCOLL_SUCCESS ? st : first;
    }
    return first;
}
