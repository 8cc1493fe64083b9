/* Timing with device events: warm-up, then the median of repeated timings of back-to-back
 * calls, the PEs meeting in a barrier before each timing. In graph mode the calls are
 * captured into a CUDA graph once and the timings replay it. */
#ifndef SYMCOLL_PERF_TIMING_H
#define SYMCOLL_PERF_TIMING_H

#include <cuda_runtime_api.h>
#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one call on stream; 0, or -1 after reporting the failure. */
typedef int (*perf_enqueue_fn)(void *ctx, cudaStream_t stream);

typedef struct {
    symcoll_team_t team; /* whose PEs meet before each timing */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int iters, warmup, timings;
    int graph_calls; /* calls per graph; 0: stream mode (set by perf_bench_begin) */
    perf_enqueue_fn enqueue;
    void *ctx;
    cudaGraphExec_t graph;
    double *samples; /* timings */
} perf_bench_t;

int perf_bench_init(perf_bench_t *b, const perf_args_t *args, symcoll_team_t team,
                    cudaStream_t stream);
/* 0, or -1 after reporting a failed release. */
int perf_bench_fini(perf_bench_t *b);

/* Starts a case: the call to time, and graph_calls per graph (0: stream mode, no graph).
 * In graph mode this captures and instantiates the graph. */
int perf_bench_begin(perf_bench_t *b, int graph_calls, perf_enqueue_fn enqueue, void *ctx);
/* Enqueues one unit of the case: one call, or one replay of the graph. */
int perf_bench_run_once(perf_bench_t *b);
/* Warm-up and timings; *us_per_call is the median time of one call, on this PE. */
int perf_bench_measure(perf_bench_t *b, double *us_per_call);
void perf_bench_end(perf_bench_t *b);

/* One call timed on the host clock, from just before its enqueue to the end of a stream
 * sync, in *us. A program's first call shows its cost only this way: loading a kernel at its
 * first launch delays the enqueue itself, before the GPU sees any work. */
int perf_time_one_call(perf_enqueue_fn enqueue, void *ctx, cudaStream_t stream, double *us);

#ifdef __cplusplus
}
#endif
#endif
