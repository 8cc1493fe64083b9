/* --tune without the GPU: the grids worth timing for a collective, the measured times turned
 * into tuning-table rows, and those rows as a tuning file (SYMCOLL_TUNING_FILE's format,
 * docs/design.md). */
#ifndef SYMCOLL_PERF_TUNE_ROWS_H
#define SYMCOLL_PERF_TUNE_ROWS_H

#include <stdio.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Within this fraction of the fastest time a grid counts as fastest, so that timing noise does
 * not split the rows. */
#define PERF_TUNE_TOLERANCE 0.02

/* One choice a row can hold: an algorithm (one of perf_op_info's algorithm names) with the most
 * blocks and the block size, as a tuning-table row gives them. */
typedef struct {
    const char *algo;
    int blocks, threads;
} perf_tune_candidate_t;

/* Every algorithm of op with blocks 1, 2, 4, ... up to its limit
 * (symcoll_algorithm_grid_limits) and sm_count, plus sm_count itself when it is under the
 * limit, and threads 128, 256 and 512 up to its limit (a one-warp algorithm: 1 x 32). Per
 * algorithm the widest grids come first, so that a tie goes to the grid that scales with the
 * message. Returns how many there are; writes at most max. */
size_t perf_tune_candidates(perf_op_t op, int sm_count, perf_tune_candidate_t *out, size_t max);

/* A row of a tuning file: the first row that fits a call (collective, the team's slowest link,
 * team size <= max_team_size, bytes <= max_bytes) gives its algorithm and grid. */
typedef struct {
    symcoll_collective_t collective;
    const char *link; /* as symcoll_explain names it: "nvlink", "pcie-p2p", ... */
    int max_team_size;
    size_t max_bytes; /* SIZE_MAX: any */
    const char *algo;
    int blocks, threads;
} perf_tune_row_t;

/* The times of one collective: times[s * n_candidates + c] is candidate c's time at sizes[s]
 * (the slowest PE's, microseconds), negative where it was not timed. */
typedef struct {
    symcoll_collective_t collective;
    const char *link; /* the team's slowest link, as symcoll_explain names it */
    int team_size;
    const size_t *sizes; /* strictly ascending, in the nccl-tests convention of the tuning query */
    size_t n_sizes;
    const perf_tune_candidate_t *candidates;
    size_t n_candidates;
    const double *times;
} perf_tune_times_t;

/* Merges the sizes into as few rows as possible, each holding one candidate that is within
 * tolerance of the fastest at every size it covers (the one with the least total time there);
 * a row's max_bytes is its largest size, the last row's any. Writes the candidate chosen for
 * each size to picks[n_sizes] and the rows to rows (room for n_sizes). Returns the number of
 * rows, 0 when there are no sizes, a size has no time or the sizes are not strictly ascending. */
size_t perf_tune_rows(const perf_tune_times_t *t, double tolerance, size_t *picks,
                      perf_tune_row_t *rows);

/* The tuning file: the version line, the signature (the job's PEs and slowest link, as
 * symcoll_explain names it), then the rows, one per line. */
void perf_tune_write(FILE *out, int n_pes, const char *link, const perf_tune_row_t *rows,
                     size_t n_rows);

#ifdef __cplusplus
}
#endif
#endif
