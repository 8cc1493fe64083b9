/* symcoll-run: the single-node launcher. Shared types of its parts. */
#ifndef SYMCOLL_LAUNCHER_H
#define SYMCOLL_LAUNCHER_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "symcoll.h"

#define LAUNCHER_NAME "symcoll-run"
#define EXIT_SKIPPED 77
#define EXIT_TIMED_OUT 124
#define EXIT_USAGE 2
#define KILL_GRACE_SECONDS 3.0
/* symcoll's limit: one reachability bit per PE. */
#define MAX_PES SYMCOLL_MAX_PES

/* 128 id bytes as lowercase hex. */
#define UNIQUEID_HEX_LEN 256

struct launch_options {
    int n_pes; /* 0: one per local GPU */
    bool tag_output;
    bool keep_going;        /* a failed PE does not stop the others */
    double timeout_seconds; /* 0: none */
    char **program_argv;    /* the program and its arguments, NULL-terminated */
};

enum parse_result { PARSE_RUN, PARSE_HELP, PARSE_INVALID };

enum parse_result parse_options(int argc, char **argv, struct launch_options *options);
void print_usage(FILE *out);

/* Number of GPUs this process sees: 1 without GPU or driver, -1 (after saying why) on any
   other CUDA error. */
int count_local_gpus(void);

/* Writes a fresh NCCL unique id as UNIQUEID_HEX_LEN hex chars plus NUL into hex. The NCCL
   bootstrap root listener it starts lives in this process. Returns false if NCCL cannot make
   one. */
bool create_uniqueid_hex(char *hex);

struct child_env {
    char **vars;    /* NULL-terminated, for exec */
    char *own_vars; /* the SYMCOLL_ launch variables, which vars points into */
};

struct rank_status;

/* The launcher's environment minus inherited launch variables, plus this rank's and the
   status pipe's write end with its inode. uniqueid_hex may be NULL. Returns false when out of
   memory. */
bool child_env_create(struct child_env *env, int rank, int size, const char *uniqueid_hex,
                      const struct rank_status *status);
void child_env_destroy(struct child_env *env);

#define TAG_PREFIX_MAX 16
#define TAG_LINE_MAX 16384

/* One child output stream relayed line by line with a "[rank] " prefix. */
struct tagged_stream {
    int fd;     /* read end of the child's pipe; -1 once closed */
    int out_fd; /* where tagged lines go */
    size_t prefix_len;
    size_t line_len;
    char buf[TAG_PREFIX_MAX + TAG_LINE_MAX + 1]; /* prefix, pending line, room for '\n' */
};

void tagged_stream_init(struct tagged_stream *stream, int fd, int out_fd, int rank);
/* Reads once (the fd is non-blocking); on EOF or error flushes a partial line and closes.
   Returns whether it got data. */
bool tagged_stream_pump(struct tagged_stream *stream);
void tagged_stream_close(struct tagged_stream *stream);

struct child {
    int rank;
    pid_t pid;     /* also its process group, which outlives it while its descendants run */
    bool running;  /* has not ended; once it has, it stays unreaped while its group is signalled */
    int killed_by; /* the signal that ended it; 0: it exited */
    int exit_code; /* exit status, or 128 + signal */
    bool initialized, finalized; /* as its symcoll library reported (rank_status) */
    struct tagged_stream out;
    struct tagged_stream err;
};

/* Starts argv[0] for child->rank in its own process group, stdin on /dev/null, stdout and
   stderr on pipes when tag_output; of the launcher's other descriptors it inherits only
   status_fd. Returns false after saying why. */
bool spawn_child(struct child *child, char **argv, char **envp, int status_fd, bool tag_output);

/* Catches SIGCHLD, SIGINT and SIGTERM through a self-pipe, ignores SIGPIPE. Returns the pipe's
   read end, or -1 after saying why. */
int signals_install(void);
/* Signals that arrived since the last call, in order, one per byte; returns the count. */
size_t signals_take(int fd, unsigned char *signals, size_t capacity);
void signals_block(sigset_t *old_mask);
void signals_unblock(const sigset_t *old_mask);
/* In a forked child before exec: the dispositions and mask the launcher started with. */
void signals_reset_in_child(const sigset_t *old_mask);

/* Of waitid's report on an ended child. */
int signal_that_ended(const siginfo_t *info);
int exit_code_of(const siginfo_t *info);
bool exit_code_is_failure(int exit_code);

#define LAUNCHER_FD_VARIABLE "SYMCOLL_LAUNCHER_FD"
#define LAUNCHER_FD_INODE_VARIABLE "SYMCOLL_LAUNCHER_FD_INODE"

struct rank_status {
    int read_fd, write_fd;
    unsigned long long inode; /* of the pipe, so that the ranks can tell it from another fd */
    char line[64];            /* the line being read */
    size_t line_len;
};

/* The pipe on which the ranks report init and finalize. Returns false after saying why. */
bool rank_status_open(struct rank_status *status);
void rank_status_close(struct rank_status *status);
/* Reads what has arrived and marks the children it names. */
void rank_status_pump(struct rank_status *status, struct child *children, int n_children);

struct supervisor {
    struct child *children;
    int n_children; /* started so far */
    int signal_fd;
    double timeout_seconds; /* 0: none */
    double run_deadline;    /* monotonic seconds; 0: none */
    bool timed_out;
    bool stopping;        /* the children were told to stop */
    double kill_deadline; /* when stopping: SIGKILL the stragglers then */
    bool killed;
    int first_failure; /* exit code of the first failed child; -1: none */
    bool keep_going;   /* a failed child does not stop the others */
    struct rank_status *status;
    struct pollfd *poll_fds;
    struct tagged_stream **poll_streams; /* the stream behind each poll_fds entry but the first */
};

/* Returns false when out of memory. */
bool supervisor_init(struct supervisor *sup, struct child *children, int max_children,
                     int signal_fd, double timeout_seconds, struct rank_status *status,
                     bool keep_going);
void supervisor_destroy(struct supervisor *sup);
/* Stops every child's process group (SIGTERM, SIGKILL after a grace) and records exit_code as the
   failure if none came first. */
void supervisor_fail(struct supervisor *sup, int exit_code);
/* Relays output and forwards signals until every started child is reaped, then kills what is
   left in their process groups; returns the launcher's exit status. */
int supervisor_run(struct supervisor *sup);

double monotonic_seconds(void);

#endif
