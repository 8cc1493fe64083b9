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
#include "symcoll_launch_protocol.h"

#define LAUNCHER_NAME "symcoll-run"
#define EXIT_SKIPPED 77
#define EXIT_TIMED_OUT 124
#define EXIT_USAGE 2
#define KILL_GRACE_SECONDS 3.0
/* symcoll's limit: one reachability bit per PE. */
#define MAX_PES SYMCOLL_MAX_PES

/* 128 id bytes as lowercase hex. */
#define UNIQUEID_HEX_LEN 256
/* "symcoll-run." pid "." 16 hex digits, within symcoll's SYMCOLL_BOOTSTRAP_SOCKET limit. */
#define SOCKET_NAME_MAX 64

/* How the PEs exchange at init: NCCL (a unique id this process makes) needs a GPU per PE; the
   socket bootstrap (PE 0 relays on an abstract Unix socket) also serves PEs sharing a GPU. */
enum launch_bootstrap { BOOTSTRAP_AUTO, BOOTSTRAP_NCCL, BOOTSTRAP_SOCKET };

struct launch_options {
    int n_pes;                       /* 0: one per local GPU */
    enum launch_bootstrap bootstrap; /* AUTO: the socket when PEs outnumber the local GPUs */
    bool tag_output;
    bool keep_going;        /* a failed PE does not stop the others */
    double timeout_seconds; /* 0: none */
    int nodes;              /* 0: one node; else the ranks form this many simulated nodes */
    char **program_argv;    /* the program and its arguments, NULL-terminated */
};

enum parse_result { PARSE_RUN, PARSE_HELP, PARSE_INVALID };

enum parse_result parse_options(int argc, char **argv, struct launch_options *options);
void print_usage(FILE *out);

/* Number of GPUs this process sees: 1 without GPU or driver, -1 on any other CUDA error
   (saying why unless quiet). */
int count_local_gpus(bool quiet);

/* Writes a fresh NCCL unique id as UNIQUEID_HEX_LEN hex chars plus NUL into hex. The NCCL
   bootstrap root listener it starts lives in this process. Returns false if NCCL cannot make
   one. */
bool create_uniqueid_hex(char *hex);

/* A socket name no other run on this host uses, for SYMCOLL_BOOTSTRAP_SOCKET. */
void create_socket_name(char name[SOCKET_NAME_MAX]);

struct child_env {
    char **vars;    /* NULL-terminated, for exec */
    char *own_vars; /* the SYMCOLL_ launch variables, which vars points into */
};

struct rank_status;

/* How the ranks find each other: one of the two is set (none: each runs alone). */
struct child_bootstrap {
    const char *uniqueid_hex; /* SYMCOLL_UNIQUEID */
    const char *socket_name;  /* SYMCOLL_BOOTSTRAP_SOCKET */
};

/* The launcher's environment minus inherited launch variables, plus this rank's (and its
   simulated node's, node >= 0), its bootstrap's, and the status pipe's write end with its
   inode. Returns false when out of memory. */
bool child_env_create(struct child_env *env, int rank, int size, int node,
                      const struct child_bootstrap *bootstrap, const struct rank_status *status);
/* The simulated node of rank among size ranks in nodes nodes: contiguous blocks of ranks, as
   many as possible equal; -1 without --nodes. */
int rank_node(int rank, int size, int nodes);
void child_env_destroy(struct child_env *env);

#define TAG_PREFIX_MAX 16
#define TAG_LINE_MAX 16384
/* Room for a few of the longest tagged lines. */
#define OUTPUT_QUEUE_BYTES (4 * (TAG_PREFIX_MAX + TAG_LINE_MAX + 1))

/* Tagged lines on their way to one of the launcher's outputs. That descriptor is shared with
   other processes (the caller's terminal or pipe), so it stays blocking: the supervisor writes
   only once poll says it takes more, and then at most PIPE_BUF bytes, which a pipe takes without
   blocking. A full output so holds up the ranks' lines, never the supervisor. */
struct output_queue {
    int fd;
    bool broken; /* a write failed: what comes is dropped, so that the ranks still run */
    size_t start, len;
    char buf[OUTPUT_QUEUE_BYTES];
};

void output_queue_init(struct output_queue *queue, int fd);
bool output_queue_pending(const struct output_queue *queue);
/* Writes once; returns whether the output took anything. */
bool output_queue_write(struct output_queue *queue);

/* Where the ranks' tagged lines go. */
struct tag_outputs {
    struct output_queue *out;
    struct output_queue *err; /* out itself where stderr is the file stdout is (2>&1), so that
                                 lines reach it whole */
};

/* One child output stream relayed line by line with a "[rank] " prefix. */
struct tagged_stream {
    int fd;            /* read end of the child's pipe, non-blocking; -1 once closed */
    size_t read_limit; /* bytes it may still read */
    struct output_queue *queue;
    bool blocked; /* a whole line waits for room in the queue */
    char prefix[TAG_PREFIX_MAX];
    size_t prefix_len;
    size_t start, len; /* what was read and not yet queued, in pending */
    char pending[TAG_LINE_MAX];
};

void tagged_stream_init(struct tagged_stream *stream, int fd, struct output_queue *queue, int rank);
/* Whether to read: the pipe is open, no line waits for the queue, and there is room. */
bool tagged_stream_wants_input(const struct tagged_stream *stream);
/* Reads once; on EOF, error or the read limit closes, and what is left becomes the last line. */
void tagged_stream_pump(struct tagged_stream *stream);
/* Moves whole lines into the queue while it has room. A line longer than TAG_LINE_MAX goes in
   tagged pieces, so memory stays bounded. */
void tagged_stream_queue_lines(struct tagged_stream *stream);
/* Limits reading to what the pipe holds now. */
void tagged_stream_read_only_what_is_there(struct tagged_stream *stream);

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
   stderr on pipes relayed into tag unless it is NULL; of the launcher's other descriptors it
   inherits only status_fd. Returns false after saying why. */
bool spawn_child(struct child *child, char **argv, char **envp, int status_fd,
                 const struct tag_outputs *tag);

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

struct rank_status {
    int read_fd, write_fd;
    unsigned long long inode; /* of the pipe, so that the ranks can tell it from another fd */
    char line[SYMCOLL_LAUNCH_RECORD_MAX]; /* the record being read */
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
    bool reaped;       /* the children's group ids may name other groups now: signal none */
    int first_failure; /* exit code of the first failed child; -1: none */
    bool keep_going;   /* a failed child does not stop the others */
    struct rank_status *status;
    struct output_queue *outputs; /* the launcher's stdout and stderr */
    struct tag_outputs tag;
    size_t first_relayed; /* the stream that queues its lines first, in turn, so all get room */
    struct pollfd *poll_fds;
    struct tagged_stream **poll_streams; /* the stream behind each poll_fds entry of a stream */
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
