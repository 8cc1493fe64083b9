#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const int caught_signals[] = {SIGCHLD, SIGINT, SIGTERM};
#define N_CAUGHT_SIGNALS (sizeof caught_signals / sizeof caught_signals[0])

static int self_pipe_write_fd = -1;

/* What the launcher found, for its children: signals its caller ignores (trap '' INT PIPE)
   stay ignored in the ranks. */
static struct sigaction original_actions[N_CAUGHT_SIGNALS];
static struct sigaction original_sigpipe_action;

static void on_signal(int signal_number) {
    int saved_errno = errno;
    unsigned char byte = (unsigned char)signal_number;
    /* A full pipe already holds a wake-up; losing this byte loses no child exit, since every
       wake-up reaps every child that ended. */
    ssize_t ignored = write(self_pipe_write_fd, &byte, 1);
    (void)ignored;
    errno = saved_errno;
}

int signals_install(void) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, LAUNCHER_NAME ": pipe: %s\n", strerror(errno));
        return -1;
    }
    self_pipe_write_fd = fds[1];

    struct sigaction action = {.sa_handler = on_signal, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < N_CAUGHT_SIGNALS; i++)
        sigaction(caught_signals[i], &action, &original_actions[i]);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &original_sigpipe_action);
    return fds[0];
}

size_t signals_take(int fd, unsigned char *signals, size_t capacity) {
    ssize_t got;
    do
        got = read(fd, signals, capacity);
    while (got < 0 && errno == EINTR);
    return got > 0 ? (size_t)got : 0;
}

void signals_block(sigset_t *old_mask) {
    sigset_t mask;
    sigemptyset(&mask);
    for (size_t i = 0; i < N_CAUGHT_SIGNALS; i++)
        sigaddset(&mask, caught_signals[i]);
    pthread_sigmask(SIG_BLOCK, &mask, old_mask);
}

void signals_unblock(const sigset_t *old_mask) {
    pthread_sigmask(SIG_SETMASK, old_mask, NULL);
}

/* Only async-signal-safe calls: the launcher has NCCL threads when it forks. */
void signals_reset_in_child(const sigset_t *old_mask) {
    for (size_t i = 0; i < N_CAUGHT_SIGNALS; i++)
        sigaction(caught_signals[i], &original_actions[i], NULL);
    sigaction(SIGPIPE, &original_sigpipe_action, NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
}
