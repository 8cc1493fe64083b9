/* The basic use: start symcoll, allocate symmetric buffers, all-reduce on your own stream,
 * check the result. Every PE runs this program on its own GPU:
 *
 *   symcoll-run -n 2 ./allreduce_stream
 *
 * symcoll_reduce_on_stream is the all-reduce (NCCL's ncclAllReduce): every PE gets the sum.
 * The call only enqueues one kernel on the stream, like a kernel launch of your own; the
 * result is there once the stream reaches it. */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "symcoll.h"

#define COUNT ((size_t)1 << 20)

int main(void) {
    example_init(NULL); /* finds the other PEs from symcoll-run's environment */
    int me = symcoll_my_pe(), n_pes = symcoll_n_pes();

    /* Collective allocations: every PE asks for the same sizes in the same order. */
    size_t bytes = COUNT * sizeof(float);
    float *src = (float *)symcoll_malloc(bytes);
    float *dst = (float *)symcoll_malloc(bytes);
    float *host = (float *)malloc(bytes);
    if (!src || !dst || !host) {
        fprintf(stderr, "allocation of %zu bytes: %s\n", bytes, symcoll_last_error());
        return 1;
    }
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    example_fill(host, COUNT, me, 0);
    CHECK_CUDA(cudaMemcpyAsync(src, host, bytes, cudaMemcpyHostToDevice, stream));
    CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, dst, src, COUNT, SYMCOLL_FLOAT32,
                                           SYMCOLL_SUM, stream));
    CHECK_CUDA(cudaMemcpyAsync(host, dst, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    size_t wrong = example_count_wrong(host, COUNT, n_pes, 0);
    printf("PE %d of %d: all-reduce of %zu floats: %s (%zu wrong)\n", me, n_pes, COUNT,
           wrong ? "WRONG" : "correct", wrong);

    CHECK_CUDA(cudaStreamDestroy(stream));
    free(host);
    symcoll_free(dst);
    symcoll_free(src);
    CHECK_SYMCOLL(symcoll_finalize());
    return wrong ? 1 : 0;
}
