/* Tells symcoll-run when this PE has initialized and finalized, so that the launcher can name
 * a PE that ended without finalize while its peers wait for it. */
#include "launcher_report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "env.h"
#include "internal.h"

void symcoll_launcher_report(const char *event) {
    const symcoll_env_t *e = symcoll_env();
    if (e->launcher_fd < 0 || e->rank < 0)
        return;
    char line[64];
    int len = snprintf(line, sizeof line, "%ld %s\n", e->rank, event);
    /* One write under PIPE_BUF bytes: the PEs' lines never interleave. */
    if (write((int)e->launcher_fd, line, (size_t)len) != len)
        symcoll_debug(SYMCOLL_LOG_WARN, "could not report %s to symcoll-run on fd %ld: %s", event,
                      e->launcher_fd, strerror(errno));
}
