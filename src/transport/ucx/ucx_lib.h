/* libucp opened with dlopen, as PMIx is: a machine without UCX links and runs every
 * single-node job, and only a transport that needs UCX fails, saying what to install. */
#ifndef SYMCOLL_UCX_LIB_H
#define SYMCOLL_UCX_LIB_H

#include <ucp/api/ucp.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every UCX function the transport calls. The table's types are the headers' own
 * (__typeof__), so a wrong signature cannot slip in; ucs_status_string is libucs's, found
 * through libucp's dependencies. */
#define SYMCOLL_UCX_FUNCTIONS(F)                                                                   \
    F(ucp_get_version)                                                                             \
    F(ucp_get_version_string)                                                                      \
    F(ucp_config_read)                                                                             \
    F(ucp_config_modify)                                                                           \
    F(ucp_config_print)                                                                            \
    F(ucp_config_release)                                                                          \
    F(ucp_init_version)                                                                            \
    F(ucp_cleanup)                                                                                 \
    F(ucp_context_query)                                                                           \
    F(ucp_worker_create)                                                                           \
    F(ucp_worker_destroy)                                                                          \
    F(ucp_worker_get_address)                                                                      \
    F(ucp_worker_release_address)                                                                  \
    F(ucp_worker_progress)                                                                         \
    F(ucp_ep_create)                                                                               \
    F(ucp_ep_close_nbx)                                                                            \
    F(ucp_ep_flush_nbx)                                                                            \
    F(ucp_mem_map)                                                                                 \
    F(ucp_mem_unmap)                                                                               \
    F(ucp_rkey_pack)                                                                               \
    F(ucp_rkey_buffer_release)                                                                     \
    F(ucp_ep_rkey_unpack)                                                                          \
    F(ucp_rkey_destroy)                                                                            \
    F(ucp_put_nbx)                                                                                 \
    F(ucp_get_nbx)                                                                                 \
    F(ucp_atomic_op_nbx)                                                                           \
    F(ucp_am_send_nbx)                                                                             \
    F(ucp_worker_set_am_recv_handler)                                                              \
    F(ucp_request_check_status)                                                                    \
    F(ucp_request_free)                                                                            \
    F(ucs_status_string)

/* C++ (the tests) must name the global function, as the member of the same name shadows it. */
#ifdef __cplusplus
#define SYMCOLL_UCX_FIELD(name) __typeof__(::name) *name;
#else
#define SYMCOLL_UCX_FIELD(name) __typeof__(name) *name;
#endif
typedef struct {
    void *handle;
    SYMCOLL_UCX_FUNCTIONS(SYMCOLL_UCX_FIELD)
#undef SYMCOLL_UCX_FIELD
} symcoll_ucx_lib_t;

/* The soname the transport opens: UCX's ABI is stable across 1.x. */
#define SYMCOLL_UCX_LIBRARY "libucp.so.0"

/* Opens soname and fills every entry; UNSUPPORTED, saying what to install, when the library
 * or one of its functions is missing. */
symcoll_status_t symcoll_ucx_lib_open(const char *soname, symcoll_ucx_lib_t *lib);
void symcoll_ucx_lib_close(symcoll_ucx_lib_t *lib);

/* The status of a failed UCX call: "UCX transport: <call> failed: <ucs_status_string>"
 * followed by the context fmt gives (the PE, the size). A UCX timeout becomes TIMEOUT, no
 * memory OUT_OF_MEMORY, an unsupported request UNSUPPORTED, anything else SYSTEM (symcoll has
 * no status of its own for a failed network or shared-memory path). */
symcoll_status_t symcoll_ucx_fail(const symcoll_ucx_lib_t *lib, const char *call,
                                  ucs_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
