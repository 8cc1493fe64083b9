/* What the ranks' symcoll libraries tell the launcher (include/symcoll_launch_protocol.h): one
   pipe that every rank inherits, its write end named by SYMCOLL_LAUNCHER_FD and its inode by
   SYMCOLL_LAUNCHER_FD_INODE (a rank's descendants inherit the variables but maybe not the
   pipe); one record per event. */
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool rank_status_open(struct rank_status *status) {
    int fds[2];
    *status = (struct rank_status){.read_fd = -1, .write_fd = -1};
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, LAUNCHER_NAME ": status pipe: %s\n", strerror(errno));
        return false;
    }
    /* The write end stays open across exec, for the ranks; the read end never blocks. */
    struct stat st;
    if (fcntl(fds[1], F_SETFD, 0) != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0 ||
        fstat(fds[1], &st) != 0) {
        fprintf(stderr, LAUNCHER_NAME ": status pipe: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    status->read_fd = fds[0];
    status->write_fd = fds[1];
    status->inode = st.st_ino;
    return true;
}

void rank_status_close(struct rank_status *status) {
    if (status->read_fd >= 0)
        close(status->read_fd);
    if (status->write_fd >= 0)
        close(status->write_fd);
    status->read_fd = status->write_fd = -1;
}

static void apply_line(const char *line, struct child *children, int n_children) {
    char *end;
    long rank = strtol(line, &end, 10);
    if (end == line || rank < 0 || rank >= n_children || *end != ' ')
        return;
    /* symcoll_init may run again after symcoll_finalize, and then owes another finalize. */
    if (strcmp(end + 1, SYMCOLL_LAUNCH_EVENT_INIT) == 0) {
        children[rank].initialized = true;
        children[rank].finalized = false;
    } else if (strcmp(end + 1, SYMCOLL_LAUNCH_EVENT_FINALIZE) == 0) {
        children[rank].finalized = true;
    }
}

void rank_status_pump(struct rank_status *status, struct child *children, int n_children) {
    char chunk[512];
    ssize_t got;
    while ((got = read(status->read_fd, chunk, sizeof chunk)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (chunk[i] == '\n') {
                status->line[status->line_len] = '\0';
                apply_line(status->line, children, n_children);
                status->line_len = 0;
            } else if (status->line_len + 1 < sizeof status->line) {
                status->line[status->line_len++] = chunk[i];
            }
        }
    }
}
