#include "launcher.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* One write, so the ranks' messages do not interleave; async-signal-safe calls only. */
static void report_exec_failure(const char *program, int exec_errno) {
    const char *reason = strerrordesc_np(exec_errno);
    const char *parts[] = {LAUNCHER_NAME ": cannot run '", program,
                           "': ", reason != NULL ? reason : "unknown error"};
    char message[1024];
    size_t len = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t part_len = strlen(parts[i]);
        if (part_len > sizeof message - 1 - len)
            part_len = sizeof message - 1 - len;
        memcpy(message + len, parts[i], part_len);
        len += part_len;
    }
    message[len++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, message, len);
    (void)ignored;
}

/* Kernels before 5.11 lack CLOSE_RANGE_CLOEXEC. getdents64, not readdir, which may allocate. */
static void mark_listed_fds_close_on_exec(void) {
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    char entries[4096];
    ssize_t got;
    while ((got = getdents64(dir, entries, sizeof entries)) > 0)
        for (ssize_t offset = 0; offset < got;) {
            const struct dirent64 *entry = (const struct dirent64 *)(entries + offset);
            offset += entry->d_reclen;
            int fd = 0;
            for (const char *digit = entry->d_name; *digit >= '0' && *digit <= '9'; digit++)
                fd = 10 * fd + (*digit - '0');
            if (fd > STDERR_FILENO && fd != dir)
                fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    close(dir);
}

/* What the launcher holds without close-on-exec, such as the NCCL bootstrap root's listening
   socket or its caller's descriptors, would stay open in every rank and its descendants and
   keep the root's port bound after the run. */
static void inherit_only(int status_fd) {
    if (close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        mark_listed_fds_close_on_exec();
    fcntl(status_fd, F_SETFD, 0);
}

/* Between fork and exec: only async-signal-safe calls, since the launcher has NCCL threads. */
static void exec_child(char **argv, char **envp, pid_t launcher_pid, int stdin_fd,
                       const int *out_pipe, const int *err_pipe, int status_fd,
                       const sigset_t *old_mask) {
    setpgid(0, 0);
    /* Even a launcher killed by SIGKILL (a harness timeout) must leave no rank behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher_pid)
        _exit(128 + SIGKILL);
    dup2(stdin_fd, STDIN_FILENO);
    if (out_pipe != NULL) {
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
    }
    inherit_only(status_fd);
    signals_reset_in_child(old_mask);
    execvpe(argv[0], argv, envp);
    int exec_errno = errno;
    report_exec_failure(argv[0], exec_errno);
    /* The shell's codes: 127 not found, 126 found but not runnable. */
    _exit(exec_errno == ENOENT ? 127 : 126);
}

static void close_pipe(int *fds) {
    close(fds[0]);
    close(fds[1]);
}

bool spawn_child(struct child *child, char **argv, char **envp, int status_fd,
                 const struct tag_outputs *tag) {
    bool tag_output = tag != NULL;
    int out_pipe[2], err_pipe[2];
    int stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (stdin_fd < 0) {
        fprintf(stderr, LAUNCHER_NAME ": /dev/null: %s\n", strerror(errno));
        return false;
    }
    if (tag_output && pipe2(out_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, LAUNCHER_NAME ": pipe for rank %d: %s\n", child->rank, strerror(errno));
        close(stdin_fd);
        return false;
    }
    if (tag_output && pipe2(err_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, LAUNCHER_NAME ": pipe for rank %d: %s\n", child->rank, strerror(errno));
        close_pipe(out_pipe);
        close(stdin_fd);
        return false;
    }

    sigset_t old_mask;
    signals_block(&old_mask);
    pid_t launcher_pid = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv, envp, launcher_pid, stdin_fd, tag_output ? out_pipe : NULL,
                   tag_output ? err_pipe : NULL, status_fd, &old_mask);
    int fork_errno = errno;
    signals_unblock(&old_mask);
    close(stdin_fd);
    if (pid < 0) {
        fprintf(stderr, LAUNCHER_NAME ": fork for rank %d: %s\n", child->rank,
                strerror(fork_errno));
        if (tag_output) {
            close_pipe(out_pipe);
            close_pipe(err_pipe);
        }
        return false;
    }

    /* Also here, so the group exists before the launcher may signal it; the child's own call
       or exec may win the race, which is fine. */
    setpgid(pid, pid);
    child->pid = pid;
    child->running = true;
    child->out.fd = -1;
    child->err.fd = -1;
    if (tag_output) {
        close(out_pipe[1]);
        close(err_pipe[1]);
        fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
        fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
        tagged_stream_init(&child->out, out_pipe[0], tag->out, child->rank);
        tagged_stream_init(&child->err, err_pipe[0], tag->err, child->rank);
    }
    return true;
}
