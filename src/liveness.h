/* Whether the other PEs of this host still run, from their process ids. A closing barrier
 * that includes a PE whose process has ended could only time out. */
#ifndef SYMCOLL_LIVENESS_H
#define SYMCOLL_LIVENESS_H

#include "bootstrap/bootstrap.h"

/* Collective: gathers every PE's process id. same_host[pe] says which PEs share this host;
 * only those can be checked. */
symcoll_status_t symcoll_liveness_init(symcoll_bootstrap_t *boot, const int *same_host);
/* The first PE of this host whose process has ended, or -1. */
int symcoll_liveness_first_gone(void);
void symcoll_liveness_fini(void);

#endif
