/* symcoll-perf command line: nccl-tests-style flags plus symcoll's own. */
#ifndef SYMCOLL_PERF_ARGS_H
#define SYMCOLL_PERF_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PERF_MODE_STREAM = 1, PERF_MODE_GRAPH = 2 }; /* bits of perf_args_t.modes */

/* The in-kernel synchronization measurements, each run alone instead of the sweep. */
typedef enum {
    PERF_DEV_NONE = 0,
    PERF_DEV_BARRIER = 1,  /* --op dev_barrier: barriers in a loop inside one kernel */
    PERF_DEV_PINGPONG = 2, /* --op dev_pingpong: put_signal and signal wait between PE 0 and 1 */
    PERF_DEV_COLL = 3      /* --op dev_reduce,...: collectives inside kernels (dev_colls) */
} perf_dev_op_t;

/* -n/--iters of --op dev_barrier and dev_pingpong when not given: syncs per kernel. */
#define PERF_DEV_DEFAULT_ITERS 20000
/* -n/--iters of --op dev_<collective> when not given: calls per kernel and per CUDA graph. */
#define PERF_DEV_COLL_DEFAULT_ITERS 200
/* --op dev_<collective> without -e: the warp and block tables' largest size (the grid
 * table's is -e's default, 128 MiB). */
#define PERF_DEV_LATENCY_MAX_BYTES ((size_t)64 << 10)

/* How the PEs' times combine into the reported one (nccl-tests -a). */
typedef enum {
    PERF_AVERAGE_PE0 = 0,
    PERF_AVERAGE_MEAN = 1,
    PERF_AVERAGE_MIN = 2,
    PERF_AVERAGE_MAX = 3
} perf_average_t;

#define PERF_MAX_SIZES 4096

/* --op moe's hidden sizes when -b, -e, -f and -i are not given: 1 KiB to 16 KiB by factor 2
 * (16 KiB: a hidden size of 8192 bf16, about DeepSeek-V3's 7168). */
#define PERF_MOE_MIN_HIDDEN ((size_t)1 << 10)
#define PERF_MOE_MAX_HIDDEN ((size_t)16 << 10)
#define PERF_MOE_HIDDEN_FACTOR 2

typedef struct {
    size_t min_bytes, max_bytes;
    size_t step_factor; /* > 1: each size is the last times this */
    size_t step_bytes;  /* step_factor <= 1: each size is the last plus this */
    int iters;          /* calls per timing; with dev_op, syncs per kernel */
    int warmup;         /* calls before the timings; with dev_op, kernels */
    int timings;        /* timings per case; the median is reported */
    bool check;
    bool ops[PERF_NUM_OPS];
    bool halo;            /* --op halo: the halo exchange sweep instead of the collectives */
    bool moe;             /* --op moe: dispatch + combine of tokens; the sizes are hidden bytes */
    int tokens;           /* --op moe: tokens per PE */
    int experts;          /* --op moe: experts per PE */
    int topk;             /* --op moe: distinct experts per token */
    int align;            /* --op moe: major_align in tokens */
    perf_dev_op_t dev_op; /* not PERF_DEV_NONE: that measurement instead of the collectives */
    bool dev_colls[PERF_DEV_NUM_COLLS]; /* dev_op PERF_DEV_COLL: the in-kernel collectives */
    size_t dev_latency_max_bytes;       /* dev_op PERF_DEV_COLL: the warp and block tables' largest
                                           size (-e, at most PERF_DEV_LATENCY_MAX_BYTES); max_bytes is
                                           the grid table's */
    bool types[SYMCOLL_NUM_DATATYPES];
    bool redops[SYMCOLL_NUM_OPS];
    int root;
    double skew;     /* alltoallv's counts or moe's routing: 0 uniform, else the Zipf exponent */
    int graph_calls; /* calls captured per CUDA graph in graph mode */
    unsigned modes;  /* PERF_MODE_* bits */
    perf_average_t average;
    symcoll_team_t team;
    bool team_peers; /* --team peers: team is made after init (perf_team_peers) */
    bool compare_nccl;
    const char *csv_path;
    const char *plot_path;
    const char *baseline_path; /* --baseline: the saved CSV to compare the sweep against */
    bool help;
    bool topology;             /* print the topology matrix after init and exit */
    bool explain;              /* print the tuning choices without running anything */
    const char *topology_file; /* --explain: the topology to explain for */
    int npes;                  /* --explain without a topology file: team size */
    int nodes;             /* --explain without a topology file: npes split into this many nodes of
                              contiguous ranks (NET between them, NVLink inside) */
    int sm_share;          /* --explain: the SMs grids are sized to; 0: tuning's default */
    int soak_seconds;      /* > 0: run the soak instead of the sweep */
    bool tune;             /* time every algorithm and grid, write a tuning file */
    const char *tune_path; /* --tune's file; NULL: stdout */
} perf_args_t;

/* The defaults: every collective, 8 B to 128 MiB by factor 8, float32, sum, checked, stream
 * mode, 20 calls per timing, 5 warm-up calls, 7 timings, mean over PEs, team world; for
 * --op moe 4096 tokens per PE, 8 experts per PE, top-2, align 1. */
void perf_args_default(perf_args_t *args);

/* Parses argv[1..argc) into *args (which starts from perf_args_default). Returns 0, or -1
 * with a one-line reason naming the flag and its value in err. */
int perf_args_parse(int argc, char *const argv[], perf_args_t *args, char *err, size_t err_len);

/* The requested sizes, smallest first; returns how many (at most max). */
size_t perf_size_list(const perf_args_t *args, size_t *sizes, size_t max);

/* Bytes of each buffer a run needs for sizes[0 .. n_sizes): the largest size, and at least
 * what NCCL's one-float barrier needs. */
size_t perf_buffer_bytes(const size_t *sizes, size_t n_sizes);

/* The call of op with the first selected type and, for reduce, the first selected reduction
 * op that applies to it; count 0. False when no selected type has one. */
bool perf_args_first_call(const perf_args_t *args, perf_op_t op, perf_call_t *call);

/* Whether the broadcast root fits a team of npes PEs (or broadcast, or dev_broadcast in an
 * in-kernel run, is not selected); when not, the reporter says so on stderr. */
bool perf_args_root_fits(const perf_args_t *args, int npes, bool reporter);

void perf_args_usage(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
