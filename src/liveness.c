#include "liveness.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

/* Per PE; 0 where not checkable (another host or PID namespace). Fixed arrays: nothing to
 * allocate that could fail on one PE and leave the others in the exchange. */
static pid_t pids[SYMCOLL_MAX_PES];
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
    symcoll_liveness_record_t mine = my_record(), all[SYMCOLL_MAX_PES];
    if (boot->size > SYMCOLL_MAX_PES)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED, "symcoll_init: %d PEs, more than %d",
                                 boot->size, SYMCOLL_MAX_PES);
    symcoll_status_t st = boot->allgather(boot, &mine, all, sizeof mine);
    n_pids = st == SYMCOLL_SUCCESS ? boot->size : 0;
    for (int pe = 0; pe < n_pids; pe++)
        pids[pe] = same_host[pe] && pe != boot->rank && same_namespace(&mine, &all[pe])
                       ? (pid_t)all[pe].pid
                       : 0;
    return st;
}

int symcoll_liveness_first_gone(void) {
    for (int pe = 0; pe < n_pids; pe++)
        if (pids[pe] > 0 && kill(pids[pe], 0) != 0 && errno == ESRCH)
            return pe;
    return -1;
}

void symcoll_liveness_fini(void) {
    n_pids = 0;
}
