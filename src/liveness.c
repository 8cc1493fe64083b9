#include "liveness.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

static pid_t *pids; /* per PE; 0 where not checkable (another host) */
static int n_pids;

symcoll_status_t symcoll_liveness_init(symcoll_bootstrap_t *boot, const int *same_host) {
    pid_t mine = getpid();
    pids = calloc((size_t)boot->size, sizeof *pids);
    if (!pids)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "symcoll_init: out of memory");
    n_pids = boot->size;
    symcoll_status_t st = boot->allgather(boot, &mine, pids, sizeof mine);
    for (int pe = 0; pe < n_pids; pe++)
        if (!same_host[pe] || pe == boot->rank)
            pids[pe] = 0;
    return st;
}

int symcoll_liveness_first_gone(void) {
    for (int pe = 0; pe < n_pids; pe++)
        if (pids[pe] > 0 && kill(pids[pe], 0) != 0 && errno == ESRCH)
            return pe;
    return -1;
}

void symcoll_liveness_fini(void) {
    free(pids);
    pids = NULL;
    n_pids = 0;
}
