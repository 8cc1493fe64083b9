/* --baseline: a sweep's CSV against a saved one from the same machine, point by point. */
#ifndef SYMCOLL_PERF_BASELINE_H
#define SYMCOLL_PERF_BASELINE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One timed point of a CSV written by perf_csv_row; the key is (op, bytes, type, redop, mode,
 * npes): a sweep on another number of PEs is another machine. */
typedef struct {
    char op[32], type[32], redop[32], mode[32];
    size_t bytes;
    int npes;
    double time_us;
} perf_point_t;

typedef struct {
    perf_point_t *points;
    size_t n;
} perf_points_t;

/* Reads the stream and graph rows of a symcoll-perf CSV (first-call rows are left out: a cold
 * call is not a steady-state point). Returns 0, or -1 with a reason naming path and line in
 * err. Free with perf_points_free. */
int perf_points_load(FILE *in, const char *path, perf_points_t *out, char *err, size_t err_len);
void perf_points_free(perf_points_t *points);

typedef struct {
    size_t compared;    /* points in both */
    size_t regressions; /* of those, slower than the baseline by more than the threshold */
    size_t missing;     /* baseline points the sweep did not run */
    size_t new_points;  /* sweep points the baseline lacks */
} perf_baseline_result_t;

/* Prints the regressions (current > baseline * (1 + threshold)) and the unmatched points of
 * both sides to out, and returns the counts. */
perf_baseline_result_t perf_baseline_compare(const perf_points_t *baseline,
                                             const perf_points_t *current, double threshold,
                                             FILE *out);

/* The threshold of --baseline: 5 %. */
#define PERF_BASELINE_THRESHOLD 0.05

#ifdef __cplusplus
}
#endif
#endif
