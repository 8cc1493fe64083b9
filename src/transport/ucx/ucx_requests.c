/* Requests: waiting for one with a deadline, keeping those of non-blocking calls until a
 * quiet, and the quiet itself. Nothing here waits without a deadline, unless the transport's
 * timeout is 0. */
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"
#include "ucx_internal.h"

uint64_t symcoll_ucx_deadline(const symcoll_ucx_t *t) {
    return t->timeout_ms ? symcoll_bootstrap_now_ms() + t->timeout_ms : UINT64_MAX;
}

static symcoll_status_t timed_out(const symcoll_ucx_t *t, const char *call, int pe) {
    const symcoll_ucx_peer_t *peer = &t->peers[pe];
    if (peer->failure != UCS_OK)
        return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                 "UCX transport: %s to PE %d did not complete in %llu ms: the "
                                 "endpoint to PE %d failed (%s)",
                                 call, pe, (unsigned long long)t->timeout_ms, pe,
                                 t->lib.ucs_status_string(peer->failure));
    return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                             "UCX transport: %s to PE %d did not complete in %llu ms: PE %d has "
                             "died or stopped progressing",
                             call, pe, (unsigned long long)t->timeout_ms, pe);
}

/* Progresses until the request is done or the deadline passes; *status gets its outcome. */
static symcoll_status_t progress_until_done(symcoll_ucx_t *t, void *request, const char *call,
                                            int pe, uint64_t deadline, ucs_status_t *status) {
    for (;;) {
        *status = t->lib.ucp_request_check_status(request);
        if (*status != UCS_INPROGRESS)
            return SYMCOLL_SUCCESS;
        t->lib.ucp_worker_progress(t->worker);
        if (symcoll_bootstrap_now_ms() > deadline)
            return timed_out(t, call, pe);
    }
}

symcoll_status_t symcoll_ucx_wait(symcoll_ucx_t *t, ucs_status_ptr_t sp, const char *call, int pe,
                                  uint64_t deadline) {
    if (sp == NULL)
        return SYMCOLL_SUCCESS;
    if (UCS_PTR_IS_ERR(sp))
        return symcoll_ucx_fail(&t->lib, call, UCS_PTR_STATUS(sp), "PE %d", pe);
    ucs_status_t status;
    symcoll_status_t st = progress_until_done(t, sp, call, pe, deadline, &status);
    /* Freed even when unfinished: UCX releases it once it completes or its endpoint closes. */
    t->lib.ucp_request_free(sp);
    if (st == SYMCOLL_SUCCESS && status != UCS_OK)
        st = symcoll_ucx_fail(&t->lib, call, status, "PE %d", pe);
    return st;
}

/* Frees the kept requests that completed well; a failed one stays for the next quiet to report.
 * A PE that only ever puts counts to another, and never quiets it, keeps few. */
static void drop_completed(symcoll_ucx_t *t) {
    size_t kept = 0;
    for (size_t i = 0; i < t->n_pending; i++) {
        symcoll_ucx_pending_t *q = &t->pending[i];
        if (t->lib.ucp_request_check_status(q->request) == UCS_OK)
            t->lib.ucp_request_free(q->request);
        else
            t->pending[kept++] = *q;
    }
    t->n_pending = kept;
}

symcoll_status_t symcoll_ucx_track(symcoll_ucx_t *t, ucs_status_ptr_t sp, const char *call,
                                   int pe) {
    if (sp == NULL || UCS_PTR_IS_ERR(sp))
        return symcoll_ucx_wait(t, sp, call, pe, 0);
    if (t->n_pending == t->pending_capacity)
        drop_completed(t);
    if (t->n_pending == t->pending_capacity) {
        size_t capacity = t->pending_capacity ? 2 * t->pending_capacity : 64;
        symcoll_ucx_pending_t *grown = realloc(t->pending, capacity * sizeof *grown);
        if (!grown) /* No room to keep it: complete it now instead. */
            return symcoll_ucx_wait(t, sp, call, pe, symcoll_ucx_deadline(t));
        t->pending = grown;
        t->pending_capacity = capacity;
    }
    t->pending[t->n_pending++] = (symcoll_ucx_pending_t){sp, call, pe};
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_flush_start(symcoll_ucx_t *t, int pe, void **flush) {
    ucp_request_param_t param = {0};
    ucs_status_ptr_t sp = t->lib.ucp_ep_flush_nbx(t->peers[pe].ep, &param);
    *flush = NULL;
    if (UCS_PTR_IS_ERR(sp))
        return symcoll_ucx_fail(&t->lib, "ucp_ep_flush_nbx", UCS_PTR_STATUS(sp), "PE %d", pe);
    *flush = sp;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_flush_pe(symcoll_ucx_t *t, int pe, uint64_t deadline) {
    void *flush;
    symcoll_status_t st = symcoll_ucx_flush_start(t, pe, &flush);
    return st == SYMCOLL_SUCCESS ? symcoll_ucx_wait(t, flush, "ucp_ep_flush_nbx", pe, deadline)
                                 : st;
}

static bool request_done(symcoll_ucx_t *t, int pe, void **request, const char *call,
                         symcoll_status_t *st) {
    if (!*request)
        return true;
    ucs_status_t status = t->lib.ucp_request_check_status(*request);
    if (status == UCS_INPROGRESS)
        return false;
    t->lib.ucp_request_free(*request);
    *request = NULL;
    if (status != UCS_OK)
        *st = symcoll_ucx_fail(&t->lib, call, status, "PE %d", pe);
    return true;
}

static symcoll_status_t request_finish(symcoll_ucx_t *t, int pe, void **request, const char *call,
                                       bool abort) {
    void *pending = *request;
    *request = NULL;
    if (!pending)
        return SYMCOLL_SUCCESS;
    if (!abort)
        return symcoll_ucx_wait(t, pending, call, pe, symcoll_ucx_deadline(t));
    t->lib.ucp_request_free(pending);
    return SYMCOLL_SUCCESS;
}

bool symcoll_ucx_flush_done(symcoll_ucx_t *t, int pe, void **flush, symcoll_status_t *st) {
    return request_done(t, pe, flush, "ucp_ep_flush_nbx", st);
}

symcoll_status_t symcoll_ucx_flush_finish(symcoll_ucx_t *t, int pe, void **flush, bool abort) {
    return request_finish(t, pe, flush, "ucp_ep_flush_nbx", abort);
}

bool symcoll_ucx_send_done(symcoll_ucx_t *t, int pe, void **send, symcoll_status_t *st) {
    return request_done(t, pe, send, "ucp_am_send_nbx", st);
}

symcoll_status_t symcoll_ucx_send_finish(symcoll_ucx_t *t, int pe, void **send, bool abort) {
    return request_finish(t, pe, send, "ucp_am_send_nbx", abort);
}

void symcoll_ucx_drop_pending(symcoll_ucx_t *t) {
    for (size_t i = 0; i < t->n_pending; i++)
        t->lib.ucp_request_free(t->pending[i].request);
    free(t->pending);
    t->pending = NULL;
    t->n_pending = t->pending_capacity = 0;
}

/* Completes what was issued to PE pe (every connected PE when pe < 0): a flush per endpoint
 * rather than of the worker, so that a timeout names the PE. Each tracked request is complete
 * once its endpoint is flushed; its own status says whether it succeeded. Those left after a
 * failure stay for destroy. */
static symcoll_status_t complete(symcoll_ucx_t *t, int pe) {
    uint64_t deadline = symcoll_ucx_deadline(t);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    for (int p = 0; p < t->boot->size && st == SYMCOLL_SUCCESS; p++)
        if (t->peers[p].ep && (pe < 0 || p == pe))
            st = symcoll_ucx_flush_pe(t, p, deadline);
    size_t kept = 0;
    for (size_t i = 0; i < t->n_pending; i++) {
        symcoll_ucx_pending_t *q = &t->pending[i];
        if (st == SYMCOLL_SUCCESS && (pe < 0 || q->pe == pe))
            st = symcoll_ucx_wait(t, q->request, q->call, q->pe, deadline);
        else
            t->pending[kept++] = *q;
    }
    t->n_pending = kept;
    return st;
}

symcoll_status_t symcoll_ucx_quiet(symcoll_ucx_t *t) {
    return complete(t, -1);
}

symcoll_status_t symcoll_ucx_quiet_pe(symcoll_ucx_t *t, int pe) {
    symcoll_status_t st = symcoll_ucx_check_connected(t, "symcoll_ucx_quiet_pe", pe);
    return st == SYMCOLL_SUCCESS ? complete(t, pe) : st;
}

bool symcoll_ucx_connected(const symcoll_ucx_t *t, int pe) {
    return pe >= 0 && pe < t->boot->size && t->peers[pe].ep;
}

symcoll_status_t symcoll_ucx_check_connected(const symcoll_ucx_t *t, const char *fn, int pe) {
    return symcoll_ucx_connected(t, pe)
               ? SYMCOLL_SUCCESS
               : symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                   "%s: PE %d is not a connected PE of the UCX transport", fn, pe);
}

void symcoll_ucx_progress(symcoll_ucx_t *t) {
    t->lib.ucp_worker_progress(t->worker);
}
