/* Messages: a header and data that the target's handler gets whole, in one eager active
 * message, so that what a put and its mailbox record would take (the data, the record, a flush
 * there and back, the count) is one send. */
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

/* The one active message the transport sends. */
#define MESSAGE_ID 1

/* Eager only: a rendezvous would hand the handler no data, only a promise of it. The data is
 * kept by no one past the handler (UCS_OK). */
static ucs_status_t on_message(void *arg, const void *header, size_t header_bytes, void *data,
                               size_t bytes, const ucp_am_recv_param_t *param) {
    symcoll_ucx_t *t = arg;
    if (t->on_message)
        t->on_message(t->on_message_arg, header, header_bytes,
                      param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV ? NULL : data, bytes);
    return UCS_OK;
}

/* Registers the transport's own handler with UCX once; it stays until the worker goes. */
static symcoll_status_t register_once(symcoll_ucx_t *t) {
    if (t->messages_registered)
        return SYMCOLL_SUCCESS;
    ucp_am_handler_param_t param;
    memset(&param, 0, sizeof param);
    param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                       UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    param.id = MESSAGE_ID;
    param.flags = UCP_AM_FLAG_WHOLE_MSG;
    param.cb = on_message;
    param.arg = t;
    ucs_status_t status = t->lib.ucp_worker_set_am_recv_handler(t->worker, &param);
    if (status != UCS_OK)
        return symcoll_ucx_fail(&t->lib, "ucp_worker_set_am_recv_handler", status, "id %d",
                                MESSAGE_ID);
    t->messages_registered = true;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_set_message_handler(symcoll_ucx_t *t,
                                                 symcoll_ucx_message_handler_t handler, void *arg) {
    symcoll_status_t st = handler ? register_once(t) : SYMCOLL_SUCCESS;
    if (st == SYMCOLL_SUCCESS) {
        t->on_message = handler;
        t->on_message_arg = arg;
    }
    return st;
}

symcoll_status_t symcoll_ucx_send(symcoll_ucx_t *t, int pe, const void *header, size_t header_bytes,
                                  const void *data, size_t bytes, void **send) {
    *send = NULL;
    symcoll_status_t st = symcoll_ucx_check_connected(t, "symcoll_ucx_send", pe);
    if (st != SYMCOLL_SUCCESS)
        return st;
    ucp_request_param_t param;
    memset(&param, 0, sizeof param);
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.flags = UCP_AM_SEND_FLAG_EAGER;
    param.memory_type = UCS_MEMORY_TYPE_HOST;
    ucs_status_ptr_t sp = t->lib.ucp_am_send_nbx(t->peers[pe].ep, MESSAGE_ID, header, header_bytes,
                                                 data, bytes, &param);
    if (UCS_PTR_IS_ERR(sp))
        return symcoll_ucx_fail(&t->lib, "ucp_am_send_nbx", UCS_PTR_STATUS(sp), "PE %d, %zu bytes",
                                pe, bytes);
    *send = sp;
    return SYMCOLL_SUCCESS;
}
