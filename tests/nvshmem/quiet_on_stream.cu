/* nvshmemx_quiet_on_stream(s) orders s after this PE's host _nbi puts, which run on the
 * calling thread's default stream: each round puts 128 MiB into the next PE, quiets s, and
 * then a barrier and the next PE's check of every word run on s. The first rounds run on the
 * stream; the last ones capture the quiet, the barrier and the check into a graph after the
 * put, and launch it. The put waits behind a kernel of about a millisecond, so without the
 * quiet's wait the check runs before it lands. */
#include <stdint.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define WORDS ((size_t)32 << 20)

__device__ uint32_t word_of(int pe, int round, size_t i) {
    return (uint32_t)(i * 2654435761u) ^ (uint32_t)(pe * 7919 + round * 104729 + 1);
}

/* Holds the stream for about a millisecond: the put that follows is still in flight when the
 * quiet is called, as a large put over a link would be. */
__global__ void hold(void) {
    long long start = clock64();
    while (clock64() - start < 2000000)
        ;
}

__global__ void fill(uint32_t *p, int pe, int round) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < WORDS;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = word_of(pe, round, i);
}

/* From the last word down: the copy writes it last, so a check that runs early sees it. */
__global__ void count_wrong(const uint32_t *p, int from, int round, unsigned long long *wrong) {
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < WORDS;
         j += (size_t)gridDim.x * blockDim.x) {
        size_t i = WORDS - 1 - j;
        if (p[i] != word_of(from, round, i))
            atomicAdd(wrong, 1ull);
    }
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    uint32_t *dst = (uint32_t *)nvshmem_malloc(WORDS * 4), *src = NULL;
    unsigned long long *wrong = NULL;
    cudaStream_t s;
    CHECK_CUDA(cudaMalloc((void **)&src, WORDS * 4));
    CHECK_CUDA(cudaMalloc((void **)&wrong, sizeof *wrong));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof *wrong));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (!dst) {
        fprintf(stderr, "quiet_on_stream: nvshmem_malloc of %zu bytes failed\n", WORDS * 4);
        return 1;
    }
    const int rounds = 6;
    for (int round = 0; round < rounds; round++) {
        int graph = round >= rounds / 2;
        fill<<<256, 256, 0, cudaStreamPerThread>>>(src, me, round);
        CHECK_CUDA(cudaGetLastError());
        nvshmem_barrier_all(); /* every check of the round before is done with dst */
        hold<<<1, 1, 0, cudaStreamPerThread>>>();
        CHECK_CUDA(cudaGetLastError());
        nvshmem_putmem_nbi(dst, src, WORDS * 4, next);
        cudaGraph_t g = NULL;
        cudaGraphExec_t exec = NULL;
        if (graph)
            CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        nvshmemx_quiet_on_stream(s);
        nvshmemx_barrier_all_on_stream(s);
        count_wrong<<<256, 256, 0, s>>>(dst, prev, round, wrong);
        CHECK_CUDA(cudaGetLastError());
        if (graph) {
            CHECK_CUDA(cudaStreamEndCapture(s, &g));
            CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
            CHECK_CUDA(cudaGraphLaunch(exec, s));
        }
        CHECK_CUDA(cudaStreamSynchronize(s));
        if (graph) {
            CHECK_CUDA(cudaGraphExecDestroy(exec));
            CHECK_CUDA(cudaGraphDestroy(g));
        }
        nvshmem_quiet();
    }
    unsigned long long bad = 0;
    CHECK_CUDA(cudaMemcpy(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(src));
    CHECK_CUDA(cudaFree(wrong));
    nvshmem_free(dst);
    nvshmem_finalize();
    return report("quiet_on_stream", me, (long)bad);
}
