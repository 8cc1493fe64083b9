/* One UCX context and one worker per PE, and what the context says it can move. */
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

static symcoll_status_t query_memory_types(symcoll_ucx_t *t) {
    ucp_context_attr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
    ucs_status_t status = t->lib.ucp_context_query(t->context, &attr);
    if (status != UCS_OK)
        return symcoll_ucx_fail(&t->lib, "ucp_context_query", status, "memory types");
    t->caps.memory_types = attr.memory_types;
    t->caps.cuda_memory = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_context_open(symcoll_ucx_t *t) {
    symcoll_status_t st = symcoll_ucx_lib_open(SYMCOLL_UCX_LIBRARY, &t->lib);
    if (st != SYMCOLL_SUCCESS)
        return st;
    t->caps.version = t->lib.ucp_get_version_string();
    ucp_config_t *config = NULL;
    ucs_status_t status = t->lib.ucp_config_read(NULL, NULL, &config); /* the UCX_* variables */
    if (status != UCS_OK)
        return symcoll_ucx_fail(&t->lib, "ucp_config_read", status, "UCX %s", t->caps.version);
    st = symcoll_ucx_set_tcp_segments(t, config);
    if (st != SYMCOLL_SUCCESS) {
        t->lib.ucp_config_release(config);
        return st;
    }
    ucp_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    /* Puts and gets, 64-bit atomics for the signals, active messages for the proxy's eager
     * records; no WAKEUP: every wait polls. */
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
    status = t->lib.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &t->context);
    t->lib.ucp_config_release(config);
    if (status != UCS_OK) {
        t->context = NULL;
        return symcoll_ucx_fail(&t->lib, "ucp_init", status, "UCX %s", t->caps.version);
    }
    st = query_memory_types(t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    ucp_worker_params_t worker_params;
    memset(&worker_params, 0, sizeof worker_params);
    worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* SERIALIZED: one thread at a time, not always the creator (the barrier's helper thread
     * progresses it, as a proxy thread will). */
    worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    status = t->lib.ucp_worker_create(t->context, &worker_params, &t->worker);
    if (status != UCS_OK) {
        t->worker = NULL;
        return symcoll_ucx_fail(&t->lib, "ucp_worker_create", status, "UCX %s", t->caps.version);
    }
    return SYMCOLL_SUCCESS;
}

void symcoll_ucx_context_close(symcoll_ucx_t *t) {
    if (t->worker)
        t->lib.ucp_worker_destroy(t->worker);
    if (t->context)
        t->lib.ucp_cleanup(t->context);
    t->worker = NULL;
    t->context = NULL;
    symcoll_ucx_lib_close(&t->lib);
}
