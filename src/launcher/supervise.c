#include "launcher.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

bool supervisor_init(struct supervisor *sup, struct child *children, int max_children,
                     int signal_fd, double timeout_seconds, struct rank_status *status,
                     bool keep_going) {
    size_t max_fds = 2 + 2 * (size_t)max_children;
    *sup = (struct supervisor){
        .children = children,
        .signal_fd = signal_fd,
        .timeout_seconds = timeout_seconds,
        .run_deadline = timeout_seconds > 0 ? monotonic_seconds() + timeout_seconds : 0,
        .first_failure = -1,
        .keep_going = keep_going,
        .status = status,
        .poll_fds = calloc(max_fds, sizeof *sup->poll_fds),
        .poll_streams = calloc(max_fds, sizeof *sup->poll_streams),
    };
    if (sup->poll_fds == NULL || sup->poll_streams == NULL) {
        supervisor_destroy(sup);
        return false;
    }
    return true;
}

void supervisor_destroy(struct supervisor *sup) {
    free(sup->poll_fds);
    free(sup->poll_streams);
    sup->poll_fds = NULL;
    sup->poll_streams = NULL;
}

/* Each child leads its own process group, so this reaches what it started too, also after the
   child itself ended (a wrapper script's background job); a group already empty is ESRCH. The
   ids are still the children's groups: an ended child stays unreaped until reap_children. */
static void signal_groups(struct supervisor *sup, int signal_number) {
    for (int i = 0; i < sup->n_children; i++)
        kill(-sup->children[i].pid, signal_number);
}

static void stop_children(struct supervisor *sup, int signal_number) {
    signal_groups(sup, signal_number);
    if (!sup->stopping) {
        sup->stopping = true;
        sup->kill_deadline = monotonic_seconds() + KILL_GRACE_SECONDS;
    }
}

void supervisor_fail(struct supervisor *sup, int exit_code) {
    if (sup->first_failure < 0)
        sup->first_failure = exit_code;
    stop_children(sup, SIGTERM);
}

static int count_running(const struct supervisor *sup) {
    int running = 0;
    for (int i = 0; i < sup->n_children; i++)
        running += sup->children[i].running;
    return running;
}

static void report_failure(const struct supervisor *sup, const struct child *child,
                           bool abandoned) {
    if (child->killed_by != 0)
        fprintf(stderr, LAUNCHER_NAME ": rank %d killed by signal %d (%s)", child->rank,
                child->killed_by, strsignal(child->killed_by));
    else
        fprintf(stderr, LAUNCHER_NAME ": rank %d exited with status %d", child->rank,
                child->exit_code);
    if (abandoned)
        fprintf(stderr, " without calling symcoll_finalize");
    if (count_running(sup) > 0) {
        fprintf(stderr, " while ranks");
        for (int i = 0; i < sup->n_children; i++)
            if (sup->children[i].running)
                fprintf(stderr, " %d", sup->children[i].rank);
        fprintf(stderr, " still run");
    }
    fputc('\n', stderr);
}

/* A child that initialized symcoll and ended without finalize while others still run has
   left them waiting for it: a failure even with exit status 0. */
static int failure_of(const struct supervisor *sup, const struct child *child, bool *abandoned) {
    *abandoned = child->initialized && !child->finalized && count_running(sup) > 0;
    if (exit_code_is_failure(child->exit_code))
        return child->exit_code;
    return *abandoned ? EXIT_FAILURE : 0;
}

/* WNOWAIT: once reaped, a child's pid and so its group id may be taken by an unrelated process
   group, which signal_groups would then hit; a zombie keeps both reserved. */
static bool child_has_ended(const struct child *child, siginfo_t *info) {
    info->si_pid = 0;
    return waitid(P_PID, (id_t)child->pid, info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info->si_pid == child->pid;
}

static void notice_ended_children(struct supervisor *sup) {
    /* What a child reported before it ended is in the pipe by now. */
    rank_status_pump(sup->status, sup->children, sup->n_children);
    for (int i = 0; i < sup->n_children; i++) {
        struct child *child = &sup->children[i];
        siginfo_t info;
        if (!child->running || !child_has_ended(child, &info))
            continue;
        child->running = false;
        child->killed_by = signal_that_ended(&info);
        child->exit_code = exit_code_of(&info);
        bool abandoned;
        int failure = failure_of(sup, child, &abandoned);
        if (failure == 0)
            continue;
        bool news = !sup->stopping; /* once stopping, the launcher caused the failures */
        if (news)
            report_failure(sup, child, abandoned);
        if (sup->first_failure < 0)
            sup->first_failure = failure;
        if (news && !sup->keep_going && count_running(sup) > 0) {
            fprintf(stderr, LAUNCHER_NAME ": stopping the other ranks\n");
            stop_children(sup, SIGTERM);
        }
    }
}

/* Only once their groups will not be signalled again; every child has ended by then. */
static void reap_children(const struct supervisor *sup) {
    for (int i = 0; i < sup->n_children; i++) {
        siginfo_t info;
        while (waitid(P_PID, (id_t)sup->children[i].pid, &info, WEXITED) != 0 && errno == EINTR) {
        }
    }
}

static void forward_signals(struct supervisor *sup) {
    unsigned char signals[64];
    size_t n_signals;
    while ((n_signals = signals_take(sup->signal_fd, signals, sizeof signals)) > 0)
        for (size_t i = 0; i < n_signals; i++)
            if (signals[i] == SIGINT || signals[i] == SIGTERM)
                stop_children(sup, signals[i]);
}

static void report_timeout(const struct supervisor *sup) {
    fprintf(stderr,
            LAUNCHER_NAME ": timed out after %g s; ranks still running:", sup->timeout_seconds);
    for (int i = 0; i < sup->n_children; i++)
        if (sup->children[i].running)
            fprintf(stderr, " %d", sup->children[i].rank);
    fprintf(stderr, "\n");
}

/* Once stopping, the run ends anyway, and its status is the cause's, not a timeout's. */
static bool run_deadline_pending(const struct supervisor *sup) {
    return sup->run_deadline != 0 && !sup->stopping;
}

static void enforce_deadlines(struct supervisor *sup) {
    double now = monotonic_seconds();
    if (run_deadline_pending(sup) && now >= sup->run_deadline) {
        sup->timed_out = true;
        report_timeout(sup);
        stop_children(sup, SIGTERM);
    }
    if (sup->stopping && !sup->killed && now >= sup->kill_deadline) {
        sup->killed = true;
        signal_groups(sup, SIGKILL);
    }
}

/* Milliseconds until the next deadline, -1 for none. */
static int poll_timeout_ms(const struct supervisor *sup) {
    double next = INFINITY;
    if (run_deadline_pending(sup))
        next = sup->run_deadline;
    if (sup->stopping && !sup->killed && sup->kill_deadline < next)
        next = sup->kill_deadline;
    if (isinf(next))
        return -1;
    double wait_ms = ceil((next - monotonic_seconds()) * 1e3);
    return wait_ms < 0 ? 0 : wait_ms > 60e3 ? 60000 : (int)wait_ms;
}

static size_t gather_poll_fds(struct supervisor *sup) {
    size_t n_fds = 0;
    sup->poll_fds[n_fds++] = (struct pollfd){.fd = sup->signal_fd, .events = POLLIN};
    sup->poll_fds[n_fds++] = (struct pollfd){.fd = sup->status->read_fd, .events = POLLIN};
    for (int i = 0; i < sup->n_children; i++) {
        struct tagged_stream *pair[] = {&sup->children[i].out, &sup->children[i].err};
        for (int j = 0; j < 2; j++)
            if (pair[j]->fd >= 0) {
                sup->poll_streams[n_fds] = pair[j];
                sup->poll_fds[n_fds++] = (struct pollfd){.fd = pair[j]->fd, .events = POLLIN};
            }
    }
    return n_fds;
}

/* A child's own children may hold its pipes open after it ended: take what is there, then
   stop listening. */
static void drain_outputs(struct supervisor *sup) {
    for (int i = 0; i < sup->n_children; i++) {
        struct tagged_stream *pair[] = {&sup->children[i].out, &sup->children[i].err};
        for (int j = 0; j < 2; j++) {
            while (pair[j]->fd >= 0 && tagged_stream_pump(pair[j])) {
            }
            tagged_stream_close(pair[j]);
        }
    }
}

static int run_exit_code(const struct supervisor *sup) {
    if (sup->timed_out)
        return EXIT_TIMED_OUT;
    if (sup->first_failure >= 0)
        return sup->first_failure;
    for (int i = 0; i < sup->n_children; i++)
        if (sup->children[i].exit_code != EXIT_SKIPPED)
            return 0;
    return sup->n_children > 0 ? EXIT_SKIPPED : 0;
}

int supervisor_run(struct supervisor *sup) {
    for (;;) {
        notice_ended_children(sup);
        if (count_running(sup) == 0)
            break;
        enforce_deadlines(sup);
        size_t n_fds = gather_poll_fds(sup);
        if (poll(sup->poll_fds, n_fds, poll_timeout_ms(sup)) < 0 && errno != EINTR) {
            fprintf(stderr, LAUNCHER_NAME ": poll: %s\n", strerror(errno));
            supervisor_fail(sup, EXIT_FAILURE);
            continue;
        }
        if (sup->poll_fds[0].revents != 0)
            forward_signals(sup);
        if (sup->poll_fds[1].revents != 0)
            rank_status_pump(sup->status, sup->children, sup->n_children);
        for (size_t i = 2; i < n_fds; i++)
            if (sup->poll_fds[i].revents != 0)
                tagged_stream_pump(sup->poll_streams[i]);
    }
    /* The run is over: nothing a rank left behind may outlive it. */
    signal_groups(sup, SIGKILL);
    reap_children(sup);
    drain_outputs(sup);
    return run_exit_code(sup);
}
