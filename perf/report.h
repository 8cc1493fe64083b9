/* Result rows: the nccl-tests-style table on stdout and the CSV file. */
#ifndef SYMCOLL_PERF_REPORT_H
#define SYMCOLL_PERF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *op;    /* a collective name, or "launch" for the empty-kernel floor */
    const char *mode;  /* "stream" or "graph" */
    size_t bytes;      /* nccl-tests convention */
    size_t count;      /* count of the API call */
    const char *type;  /* datatype name, "none" for launch and barrier */
    const char *redop; /* reduction op name, "none" when the op does not reduce */
    int root;          /* -1 when the op has no root */
    int npes;
    const char *algorithm; /* tuning's choice */
    int blocks, threads;   /* its grid; 0 when there is none */
    double time_us;
    bool has_bandwidth; /* false for launch and barrier */
    double algbw_gbps, busbw_gbps;
    long long wrong;    /* -1: not checked */
    double nccl_us;     /* < 0: not measured, or n/a (the CSV field stays empty) */
    double nccl_sym_us; /* < 0: not measured, or n/a */
    bool nccl_na;       /* NCCL cannot run this row (perf_nccl_uncapturable_line says why) */
} perf_row_t;

/* The NCCL columns of a table: none, NCCL's times, or "n/a" in each when the job's PEs share a
 * GPU (NCCL refuses a communicator with two ranks on one GPU). */
typedef enum { PERF_NCCL_OFF, PERF_NCCL_ON, PERF_NCCL_NA } perf_nccl_columns_t;

/* The comment line above a table whose NCCL columns are n/a: "# nccl: n/a: PEs share a GPU". */
void perf_nccl_na_line(FILE *out);
/* The comment line above a graph-mode table with op, whose NCCL counterpart waits on the host
 * (perf_op_nccl_syncs_host): "# nccl: n/a for alltoallv: cannot be captured (host sync: ...)". */
void perf_nccl_uncapturable_line(FILE *out, const char *op);
/* What a column of width shows for NCCL: "n/a" when nccl is PERF_NCCL_NA, else the value with
 * decimals, or "-" when absent. */
void perf_nccl_number(FILE *out, perf_nccl_columns_t nccl, int width, int decimals, bool present,
                      double value);

/* Our time over the better NCCL time, or a negative value when NCCL was not measured. */
double perf_row_ratio(const perf_row_t *row);

void perf_csv_header(FILE *out);
/* Creates the CSV file path with its header line; NULL when it cannot be created. */
FILE *perf_csv_create(const char *path);
void perf_csv_row(FILE *out, const perf_row_t *row);

/* Column headings for the rows of one mode, with the NCCL columns unless nccl is OFF. */
void perf_table_header(FILE *out, const char *mode, perf_nccl_columns_t nccl);
void perf_table_row(FILE *out, const perf_row_t *row, perf_nccl_columns_t nccl);

/* The first-call table: each collective's first call in the process (cold) beside the median
 * of later single calls timed alike (warm). */
void perf_first_call_header(FILE *out);
void perf_first_call_row(FILE *out, const char *op, size_t bytes, const char *type, double cold_us,
                         double warm_us);

/* One implementation's figure in --op dev_barrier or dev_pingpong: us per sync or per one-way
 * trip, of the slowest PE; the median and the fastest over the timed kernels. */
typedef struct {
    double us, min_us; /* us < 0: not measured */
    long long wrong;   /* -1: not checked */
} perf_dev_time_t;

typedef struct {
    const char *op;   /* "dev_barrier" or "dev_pingpong" */
    const char *kind; /* the memory order, or the put */
    size_t bytes;     /* payload per trip; 0 for barriers */
    int iters;        /* syncs or round trips per kernel */
    int npes;
    perf_dev_time_t symcoll, nccl;
} perf_dev_row_t;

/* Column headings of the in-kernel table (units: what one figure is, e.g. "us per sync"); its
 * NCCL columns are always there (nccl ON or NA). */
void perf_dev_table_header(FILE *out, const char *units, perf_nccl_columns_t nccl);
void perf_dev_table_row(FILE *out, const perf_dev_row_t *row, perf_nccl_columns_t nccl);
/* A CSV row of mode kind, count iters and algorithm "symcoll" (with NCCL's figure in
 * nccl_time_us), then one of algorithm "nccl-lsa" when NCCL was measured; time_us is the
 * median. */
void perf_dev_csv_rows(FILE *out, const perf_dev_row_t *row);

/* One row of --op dev_<collective>: a float32 call inside a kernel beside the same call
 * launched from the host, us per call of the slowest PE (the device's median and fastest over
 * the timed kernels, the host's median over the timed graph replays). */
typedef struct {
    perf_op_t op;      /* the collective (its name prefixed dev_), or PERF_OP_BARRIER */
    const char *scope; /* "warp", "block" or "grid" */
    size_t count;      /* elements of the call; 0 for the barrier */
    int root;          /* broadcast's */
    int npes;
    perf_dev_time_t device, host;
} perf_dev_coll_row_t;

/* "# nccl: n/a: NCCL 2.28's device API has no in-kernel allreduce, ...": why the table's NCCL
 * column reads n/a, naming NCCL's collective for each selected one. */
void perf_dev_coll_nccl_line(FILE *out, const bool selected[PERF_DEV_NUM_COLLS]);
/* Column headings of the in-kernel collectives' tables. */
void perf_dev_coll_table_header(FILE *out);
/* The row: size (nccl-tests convention), count, the device's median and min, the host's
 * median, device over host, each one's busbw (none for the barrier), each one's #wrong, and
 * n/a for NCCL. */
void perf_dev_coll_table_row(FILE *out, const perf_dev_coll_row_t *row);
/* Two CSV rows of mode scope: algorithm "device", then "host-graph". */
void perf_dev_coll_csv_rows(FILE *out, const perf_dev_coll_row_t *row);

#ifdef __cplusplus
}
#endif
#endif
