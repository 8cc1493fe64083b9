#include "liveness.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

static pid_t *pids; /* per PE; 0 where not checkable (another host or PID namespace) */
static int n_pids;

static symcoll_liveness_record_t my_record(void) {
    symcoll_liveness_record_t r = {.pid = getpid()};
    struct stat ns;
    if (stat("/proc/self/ns/pid", &ns) == 0) {
        r.pid_ns_dev = (uint64_t)ns.st_dev;
        r.pid_ns_ino = (uint64_t)ns.st_ino;
    }
    return r;
}

static int same_namespace(const symcoll_liveness_record_t *a, const symcoll_liveness_record_t *b) {
    return a->pid_ns_ino != 0 && a->pid_ns_ino == b->pid_ns_ino && a->pid_ns_dev == b->pid_ns_dev;
}

symcoll_status_t symcoll_liveness_init(symcoll_bootstrap_t *boot, const int *same_host) {
    symcoll_liveness_record_t mine = my_record();
    symcoll_liveness_record_t *all = calloc((size_t)boot->size, sizeof *all);
    pids = calloc((size_t)boot->size, sizeof *pids);
    if (!all || !pids) {
        free(all);
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "symcoll_init: out of memory");
    }
    n_pids = boot->size;
    symcoll_status_t st = boot->allgather(boot, &mine, all, sizeof mine);
    for (int pe = 0; pe < n_pids && st == SYMCOLL_SUCCESS; pe++)
        if (same_host[pe] && pe != boot->rank && same_namespace(&mine, &all[pe]))
            pids[pe] = (pid_t)all[pe].pid;
    free(all);
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
