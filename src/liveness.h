/* Whether the other PEs of this host still run, from their process ids. A closing barrier
 * that includes a PE whose process has ended could only time out. */
#ifndef SYMCOLL_LIVENESS_H
#define SYMCOLL_LIVENESS_H

#include <stdint.h>
#include "bootstrap/bootstrap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What each PE contributes: its process id and its PID namespace (device and inode of
 * /proc/self/ns/pid, 0 if unknown). Containers on one host share the hostname and boot id
 * but not the namespace, where the same number names another process. */
typedef struct {
    int64_t pid;
    uint64_t pid_ns_dev, pid_ns_ino;
} symcoll_liveness_record_t;

/* Collective: gathers every PE's record. same_host[pe] says which PEs share this host; of
 * those, the ones in this PE's PID namespace (known on both sides) can be checked. */
symcoll_status_t symcoll_liveness_init(symcoll_bootstrap_t *boot, const int *same_host);
/* The first PE of this host whose process has ended, or -1. */
int symcoll_liveness_first_gone(void);
void symcoll_liveness_fini(void);

#ifdef __cplusplus
}
#endif
#endif
