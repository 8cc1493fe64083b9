#include "launcher.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where each kind of descriptor sits in poll_fds; the streams that want input follow. */
enum { SIGNAL_SLOT, STATUS_SLOT, FIRST_OUTPUT_SLOT, FIRST_STREAM_SLOT = FIRST_OUTPUT_SLOT + 2 };

double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Lines reach a file whole only through one queue. */
static bool stderr_is_stdout(void) {
    struct stat out, err;
    return fstat(STDOUT_FILENO, &out) == 0 && fstat(STDERR_FILENO, &err) == 0 &&
           out.st_dev == err.st_dev && out.st_ino == err.st_ino;
}

bool supervisor_init(struct supervisor *sup, struct child *children, int max_children,
                     int signal_fd, double timeout_seconds, struct rank_status *status,
                     bool keep_going) {
    size_t max_fds = FIRST_STREAM_SLOT + 2 * (size_t)max_children;
    *sup = (struct supervisor){
        .children = children,
        .signal_fd = signal_fd,
        .timeout_seconds = timeout_seconds,
        .run_deadline = timeout_seconds > 0 ? monotonic_seconds() + timeout_seconds : 0,
        .first_failure = -1,
        .keep_going = keep_going,
        .status = status,
        .outputs = calloc(2, sizeof *sup->outputs),
        .poll_fds = calloc(max_fds, sizeof *sup->poll_fds),
        .poll_streams = calloc(max_fds, sizeof *sup->poll_streams),
    };
    if (sup->outputs == NULL || sup->poll_fds == NULL || sup->poll_streams == NULL) {
        supervisor_destroy(sup);
        return false;
    }
    output_queue_init(&sup->outputs[0], STDOUT_FILENO);
    output_queue_init(&sup->outputs[1], STDERR_FILENO);
    sup->tag.out = &sup->outputs[0];
    sup->tag.err = stderr_is_stdout() ? &sup->outputs[0] : &sup->outputs[1];
    return true;
}

void supervisor_destroy(struct supervisor *sup) {
    free(sup->outputs);
    free(sup->poll_fds);
    free(sup->poll_streams);
    sup->outputs = NULL;
    sup->poll_fds = NULL;
    sup->poll_streams = NULL;
}

/* Each child leads its own process group, so this reaches what it started too, also after the
   child itself ended (a wrapper script's background job); a group already empty is ESRCH. The
   ids are still the children's groups: an ended child stays unreaped until reap_children. */
static void signal_groups(struct supervisor *sup, int signal_number) {
    for (int i = 0; i < sup->n_children && !sup->reaped; i++)
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
    int running = count_running(sup);
    if (running > 0) {
        fprintf(stderr, running == 1 ? " while rank" : " while ranks");
        for (int i = 0; i < sup->n_children; i++)
            if (sup->children[i].running)
                fprintf(stderr, " %d", sup->children[i].rank);
        fprintf(stderr, running == 1 ? " still runs" : " still run");
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
static void reap_children(struct supervisor *sup) {
    sup->reaped = true;
    for (int i = 0; i < sup->n_children; i++) {
        siginfo_t info;
        while (waitid(P_PID, (id_t)sup->children[i].pid, &info, WEXITED) != 0 && errno == EINTR) {
        }
    }
}

/* Returns whether SIGINT or SIGTERM came. */
static bool forward_signals(struct supervisor *sup) {
    unsigned char signals[64];
    size_t n_signals;
    bool stop = false;
    while ((n_signals = signals_take(sup->signal_fd, signals, sizeof signals)) > 0)
        for (size_t i = 0; i < n_signals; i++)
            if (signals[i] == SIGINT || signals[i] == SIGTERM) {
                stop = true;
                stop_children(sup, signals[i]);
            }
    return stop;
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

/* For poll: -1 for an infinite time. */
static int ms_until(double when) {
    if (isinf(when))
        return -1;
    double wait_ms = ceil((when - monotonic_seconds()) * 1e3);
    return wait_ms < 0 ? 0 : wait_ms > 60e3 ? 60000 : (int)wait_ms;
}

/* Milliseconds until the next deadline, -1 for none. */
static int poll_timeout_ms(const struct supervisor *sup) {
    double next = INFINITY;
    if (run_deadline_pending(sup))
        next = sup->run_deadline;
    if (sup->stopping && !sup->killed && sup->kill_deadline < next)
        next = sup->kill_deadline;
    return ms_until(next);
}

static size_t count_streams(const struct supervisor *sup) {
    return 2 * (size_t)sup->n_children;
}

static struct tagged_stream *stream_at(struct supervisor *sup, size_t index) {
    struct child *child = &sup->children[index / 2];
    return index % 2 == 0 ? &child->out : &child->err;
}

/* In turn, so that one busy rank cannot keep the others' lines out of a slow output. */
static void relay_lines(struct supervisor *sup) {
    size_t n_streams = count_streams(sup);
    for (size_t i = 0; i < n_streams; i++)
        tagged_stream_queue_lines(stream_at(sup, (sup->first_relayed + i) % n_streams));
    if (n_streams > 0)
        sup->first_relayed = (sup->first_relayed + 1) % n_streams;
}

/* Returns whether any output has lines to write; poll skips the others' negative fds. */
static bool gather_output_fds(struct supervisor *sup) {
    bool pending = false;
    for (int i = 0; i < 2; i++) {
        const struct output_queue *output = &sup->outputs[i];
        bool has_lines = output_queue_pending(output);
        sup->poll_fds[FIRST_OUTPUT_SLOT + i] =
            (struct pollfd){.fd = has_lines ? output->fd : -1, .events = POLLOUT};
        pending |= has_lines;
    }
    return pending;
}

/* Returns whether an output took anything. */
static bool write_ready_outputs(struct supervisor *sup) {
    bool wrote = false;
    for (int i = 0; i < 2; i++)
        if (sup->poll_fds[FIRST_OUTPUT_SLOT + i].revents != 0)
            wrote |= output_queue_write(&sup->outputs[i]);
    return wrote;
}

static size_t gather_poll_fds(struct supervisor *sup) {
    sup->poll_fds[SIGNAL_SLOT] = (struct pollfd){.fd = sup->signal_fd, .events = POLLIN};
    sup->poll_fds[STATUS_SLOT] = (struct pollfd){.fd = sup->status->read_fd, .events = POLLIN};
    gather_output_fds(sup);
    size_t n_fds = FIRST_STREAM_SLOT;
    for (size_t i = 0; i < count_streams(sup); i++) {
        struct tagged_stream *stream = stream_at(sup, i);
        if (tagged_stream_wants_input(stream)) {
            sup->poll_streams[n_fds] = stream;
            sup->poll_fds[n_fds++] = (struct pollfd){.fd = stream->fd, .events = POLLIN};
        }
    }
    return n_fds;
}

/* Returns whether a stream still reads. */
static bool pump_streams_that_want_input(struct supervisor *sup) {
    bool reading = false;
    for (size_t i = 0; i < count_streams(sup); i++) {
        struct tagged_stream *stream = stream_at(sup, i);
        if (tagged_stream_wants_input(stream)) {
            tagged_stream_pump(stream);
            reading = true;
        }
    }
    return reading;
}

/* When to stop waiting for the outputs to take the rest. After a run that ended by itself, as
   for any program that writes into a slow pipe, there is no end but --timeout's deadline (and
   SIGINT or SIGTERM): a pager may take its time. After a stopped run, an output that takes
   nothing for a grace has nobody reading it. */
static double drain_deadline(const struct supervisor *sup) {
    if (sup->stopping)
        return monotonic_seconds() + KILL_GRACE_SECONDS;
    return sup->run_deadline != 0 ? sup->run_deadline : INFINITY;
}

/* The run is over. A child's own children may hold its pipes open after it ended: take what
   they hold now, then stop listening. What the outputs have not taken by drain_deadline is
   lost rather than the launcher hung. */
static void drain_outputs(struct supervisor *sup) {
    for (size_t i = 0; i < count_streams(sup); i++)
        tagged_stream_read_only_what_is_there(stream_at(sup, i));
    sup->poll_fds[SIGNAL_SLOT] = (struct pollfd){.fd = sup->signal_fd, .events = POLLIN};
    sup->poll_fds[STATUS_SLOT] = (struct pollfd){.fd = -1};
    double give_up = drain_deadline(sup);
    for (;;) {
        bool reading = pump_streams_that_want_input(sup);
        relay_lines(sup);
        if (!gather_output_fds(sup)) {
            if (!reading)
                return;
            continue;
        }
        int wait_ms = ms_until(give_up);
        if (wait_ms == 0)
            return;
        if (poll(sup->poll_fds, FIRST_STREAM_SLOT, wait_ms) < 0) {
            if (errno != EINTR)
                return;
            continue;
        }
        if (sup->poll_fds[SIGNAL_SLOT].revents != 0 && forward_signals(sup))
            return;
        if (write_ready_outputs(sup))
            give_up = drain_deadline(sup);
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
        relay_lines(sup);
        size_t n_fds = gather_poll_fds(sup);
        if (poll(sup->poll_fds, n_fds, poll_timeout_ms(sup)) < 0) {
            if (errno != EINTR) {
                fprintf(stderr, LAUNCHER_NAME ": poll: %s\n", strerror(errno));
                supervisor_fail(sup, EXIT_FAILURE);
            }
            continue;
        }
        if (sup->poll_fds[SIGNAL_SLOT].revents != 0)
            forward_signals(sup);
        if (sup->poll_fds[STATUS_SLOT].revents != 0)
            rank_status_pump(sup->status, sup->children, sup->n_children);
        write_ready_outputs(sup);
        for (size_t i = FIRST_STREAM_SLOT; i < n_fds; i++)
            if (sup->poll_fds[i].revents != 0)
                tagged_stream_pump(sup->poll_streams[i]);
    }
    /* The run is over: nothing a rank left behind may outlive it. */
    signal_groups(sup, SIGKILL);
    reap_children(sup);
    drain_outputs(sup);
    return run_exit_code(sup);
}
