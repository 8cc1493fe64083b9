#include "timing.h"

#include <stdlib.h>
#include <time.h>

#include "exchange.h"
#include "fail.h"
#include "stats.h"

int perf_bench_init(perf_bench_t *b, const perf_args_t *args, symcoll_team_t team,
                    cudaStream_t stream) {
    *b = (perf_bench_t){.team = team,
                        .stream = stream,
                        .iters = args->iters,
                        .warmup = args->warmup,
                        .timings = args->timings};
    b->samples = malloc(sizeof(double) * (size_t)args->timings);
    if (b->samples == NULL) {
        return perf_fail("out of host memory");
    }
    PERF_CUDA(cudaEventCreate(&b->start));
    PERF_CUDA(cudaEventCreate(&b->stop));
    return 0;
}

int perf_bench_fini(perf_bench_t *b) {
    int rc = perf_cuda_check(cudaEventDestroy(b->start), "cudaEventDestroy");
    rc |= perf_cuda_check(cudaEventDestroy(b->stop), "cudaEventDestroy");
    free(b->samples);
    return rc;
}

static int capture_graph(perf_bench_t *b) {
    PERF_CUDA(cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeThreadLocal));
    int rc = 0;
    for (int i = 0; i < b->graph_calls && rc == 0; i++) {
        rc = b->enqueue(b->ctx, b->stream);
    }
    cudaGraph_t graph = NULL;
    cudaError_t err = cudaStreamEndCapture(b->stream, &graph);
    if (rc == 0 && perf_cuda_check(err, "cudaStreamEndCapture") == 0) {
        rc = perf_cuda_check(cudaGraphInstantiate(&b->graph, graph, 0), "cudaGraphInstantiate");
    }
    if (graph != NULL) {
        cudaGraphDestroy(graph);
    }
    return rc != 0 ? -1 : 0;
}

int perf_bench_begin(perf_bench_t *b, int graph_calls, perf_enqueue_fn enqueue, void *ctx) {
    b->graph_calls = graph_calls;
    b->enqueue = enqueue;
    b->ctx = ctx;
    b->graph = NULL;
    return graph_calls > 0 ? capture_graph(b) : 0;
}

int perf_bench_run_once(perf_bench_t *b) {
    if (b->graph != NULL) {
        PERF_CUDA(cudaGraphLaunch(b->graph, b->stream));
        return 0;
    }
    return b->enqueue(b->ctx, b->stream);
}

static int run_units(perf_bench_t *b, int units) {
    for (int u = 0; u < units; u++) {
        if (perf_bench_run_once(b) != 0) {
            return -1;
        }
    }
    return 0;
}

int perf_bench_measure(perf_bench_t *b, double *us_per_call) {
    int calls_per_unit = b->graph != NULL ? b->graph_calls : 1;
    int units = (b->iters + calls_per_unit - 1) / calls_per_unit;
    int warmup_units = (b->warmup + calls_per_unit - 1) / calls_per_unit;
    if (b->graph != NULL && warmup_units == 0) {
        warmup_units = 1; /* the first replay uploads the graph */
    }
    if (run_units(b, warmup_units) != 0) {
        return -1;
    }
    for (int t = 0; t < b->timings; t++) {
        if (perf_sync_pes(b->team, b->stream) != 0) {
            return -1;
        }
        PERF_CUDA(cudaEventRecord(b->start, b->stream));
        if (run_units(b, units) != 0) {
            return -1;
        }
        PERF_CUDA(cudaEventRecord(b->stop, b->stream));
        PERF_CUDA(cudaEventSynchronize(b->stop));
        float ms;
        PERF_CUDA(cudaEventElapsedTime(&ms, b->start, b->stop));
        b->samples[t] = 1e3 * ms / ((double)units * calls_per_unit);
    }
    *us_per_call = perf_median(b->samples, b->timings);
    return 0;
}

void perf_bench_end(perf_bench_t *b) {
    if (b->graph != NULL) {
        cudaGraphExecDestroy(b->graph);
        b->graph = NULL;
    }
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int perf_time_one_call(perf_enqueue_fn enqueue, void *ctx, cudaStream_t stream, double *us) {
    double start = now_us();
    if (enqueue(ctx, stream) != 0) {
        return -1;
    }
    PERF_CUDA(cudaStreamSynchronize(stream));
    *us = now_us() - start;
    return 0;
}
