/* Node-local passing of file descriptors (SCM_RIGHTS) over abstract Unix sockets. */
#ifndef SYMCOLL_IPC_H
#define SYMCOLL_IPC_H

#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symcoll_ipc_server symcoll_ipc_server_t;

/* Abstract socket name of PE pe in job `job` (a job-unique 64-bit value). */
void symcoll_ipc_name(uint64_t job, int pe, char *name, size_t len);
/* Listens on name and hands fd to the next n_requests clients, from a thread. */
symcoll_status_t symcoll_ipc_serve(const char *name, int fd, int n_requests,
                                   symcoll_ipc_server_t **out);
/* Waits (up to timeout_ms) for the server to have served everyone, then closes it. */
symcoll_status_t symcoll_ipc_serve_finish(symcoll_ipc_server_t *server, int timeout_ms);
/* Connects to name and receives its fd (a new descriptor owned by the caller). */
symcoll_status_t symcoll_ipc_fetch(const char *name, int timeout_ms, int *fd);

#ifdef __cplusplus
}
#endif
#endif
