/* The all-reduce of allreduce_stream captured once into a CUDA graph and replayed: symcoll's
 * stream calls never synchronize the host or allocate, so they can be captured like kernels.
 * Each replay works on whatever the symmetric buffers hold at that time.
 *
 *   symcoll-run -n 2 ./graph_capture */
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "symcoll.h"

#define COUNT ((size_t)1 << 16)
#define REPLAYS 5

int main(void) {
    example_init(NULL);
    int me = symcoll_my_pe(), n_pes = symcoll_n_pes();
    /* One symmetric allocation holds both buffers; pinned host memory keeps the copies
     * asynchronous. */
    size_t bytes = COUNT * sizeof(float);
    float *src = (float *)symcoll_malloc(2 * bytes);
    if (src == NULL) {
        fprintf(stderr, "symcoll_malloc: %s\n", symcoll_last_error());
        return 1;
    }
    float *dst = src + COUNT, *host;
    CHECK_CUDA(cudaMallocHost((void **)&host, bytes));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    /* Capture: the call is recorded, not run. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, dst, src, COUNT, SYMCOLL_FLOAT32,
                                           SYMCOLL_SUM, stream));
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

    /* Replay: new data each round, the same graph. */
    size_t wrong = 0;
    for (int round = 0; round < REPLAYS; round++) {
        example_fill(host, COUNT, me, round);
        CHECK_CUDA(cudaMemcpyAsync(src, host, bytes, cudaMemcpyHostToDevice, stream));
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        CHECK_CUDA(cudaMemcpyAsync(host, dst, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        wrong += example_count_wrong(host, COUNT, n_pes, round);
    }
    printf("PE %d of %d: %d replays of a captured all-reduce of %zu floats: %s (%zu wrong)\n", me,
           n_pes, REPLAYS, COUNT, wrong ? "WRONG" : "correct", wrong);

    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFreeHost(host));
    symcoll_free(src);
    CHECK_SYMCOLL(symcoll_finalize());
    return wrong ? 1 : 0;
}
