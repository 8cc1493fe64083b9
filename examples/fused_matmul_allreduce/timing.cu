/* A variant's time per step: each step between two events on the stream, after a warm-up that
 * also lines the PEs up (every step waits for the team); the median resists a PE's hiccup. */
#include <stdlib.h>
#include "fused_matmul.h"

#define MM_WARMUP 3

static int by_value(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* The median of m->niter runs of step, or of graph's replay when graph is not NULL. */
static float median_ms(const mm_t *m, mm_step_t step, cudaGraphExec_t graph) {
    int count = m->niter;
    cudaEvent_t *events = (cudaEvent_t *)malloc((count + 1) * sizeof *events);
    float *ms = (float *)malloc(count * sizeof *ms);
    if (!events || !ms) {
        fprintf(stderr, "PE %d: malloc for %d timings failed\n", m->me, count);
        exit(1);
    }
    for (int i = 0; i <= count; i++)
        CHECK_CUDA(cudaEventCreate(&events[i]));
    for (int i = 0; i < MM_WARMUP + count; i++) {
        if (i >= MM_WARMUP)
            CHECK_CUDA(cudaEventRecord(events[i - MM_WARMUP], m->stream));
        if (graph)
            CHECK_CUDA(cudaGraphLaunch(graph, m->stream));
        else
            step(m);
    }
    CHECK_CUDA(cudaEventRecord(events[count], m->stream));
    CHECK_CUDA(cudaEventSynchronize(events[count]));
    for (int i = 0; i < count; i++)
        CHECK_CUDA(cudaEventElapsedTime(&ms[i], events[i], events[i + 1]));
    qsort(ms, count, sizeof *ms, by_value);
    float median = count % 2 ? ms[count / 2] : (ms[count / 2 - 1] + ms[count / 2]) / 2;
    for (int i = 0; i <= count; i++)
        CHECK_CUDA(cudaEventDestroy(events[i]));
    free(events);
    free(ms);
    return median;
}

void mm_time(const mm_t *m, mm_step_t step, float *eager_ms, float *graph_ms) {
    *eager_ms = median_ms(m, step, NULL);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(m->stream, cudaStreamCaptureModeThreadLocal));
    step(m);
    CHECK_CUDA(cudaStreamEndCapture(m->stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    *graph_ms = median_ms(m, NULL, exec);
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
}
