/* Tells symcoll-run when this PE has initialized and finalized, so that the launcher can name
 * a PE that ended without finalize while its peers wait for it. */
#include "launcher_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "env.h"
#include "internal.h"
#include "symcoll_launch_protocol.h"

/* Every variable symcoll-run sets is a setting of env.def: an undeclared ENV_ROW_<NAME> here
 * is a launcher variable that env.def lacks. */
#define SYMCOLL_ENV(name, kind, field, def, help) ENV_ROW_##name,
enum {
#include "env.def"
};
#undef SYMCOLL_ENV
#define ENV_ROW(NAME) ENV_ROW_##NAME >= 0 &&
_Static_assert(SYMCOLL_LAUNCH_VARIABLES(ENV_ROW) 1, "a launcher variable is not in env.def");
#undef ENV_ROW

/* The rank's descendants inherit SYMCOLL_LAUNCHER_FD but maybe not the pipe, and there the
   number may name an unrelated file or socket; a launcher that names no inode is older than
   this check and gets no report. */
static bool is_launcher_pipe(const symcoll_env_t *e) {
    struct stat st;
    return e->launcher_fd >= 0 && e->launcher_fd_inode > 0 &&
           fstat((int)e->launcher_fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
           st.st_ino == (ino_t)e->launcher_fd_inode;
}

void symcoll_launcher_report(const char *event) {
    const symcoll_env_t *e = symcoll_env();
    if (e->rank < 0 || !is_launcher_pipe(e))
        return;
    char line[SYMCOLL_LAUNCH_RECORD_MAX];
    int len = snprintf(line, sizeof line, "%ld %s\n", e->rank, event);
    /* One write under PIPE_BUF bytes: the PEs' lines never interleave. */
    if (write((int)e->launcher_fd, line, (size_t)len) != len)
        symcoll_debug(SYMCOLL_LOG_WARN, "could not report %s to symcoll-run on fd %ld: %s", event,
                      e->launcher_fd, strerror(errno));
}
