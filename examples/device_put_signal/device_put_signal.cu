/* A kernel of your own that talks to other GPUs through the header-only device API: each PE
 * writes a block of data into its right neighbour's symmetric buffer and raises a signal
 * there, then waits for the signal of its left neighbour and checks what arrived. No
 * relocatable device code (-rdc) is needed:
 *
 *   nvcc -std=c++17 -arch=sm_90 -I<prefix>/include -Iexamples/common \
 *        examples/device_put_signal/device_put_signal.cu -o device_put_signal \
 *        -L<prefix>/lib -lsymcoll -Xlinker -rpath,<prefix>/lib
 *   symcoll-run -n 2 ./device_put_signal */
#include <stdio.h>
#include <stdlib.h>
#include "example_check.h"
#include "symcoll.h"
#include "symcoll_device.cuh"

#define COUNT 4096
#define THREADS 256

static __device__ int value_of(int pe, int i) {
    return pe * 1000003 + i;
}

/* One block. scratch: this GPU's memory for the outgoing data; inbox and signal: symmetric. */
static __global__ void ring_kernel(symcoll_device_t h, int *scratch, int *inbox, uint64_t *signal,
                                   int *wrong) {
    int right = (h.my_pe + 1) % h.n_pes, left = (h.my_pe + h.n_pes - 1) % h.n_pes;
    for (int i = threadIdx.x; i < COUNT; i += blockDim.x)
        scratch[i] = value_of(h.my_pe, i);
    __syncthreads();
    /* Every thread of the block copies; then one signal that releases the whole block's data. */
    symcoll_dev_put_signal_block(h, inbox, scratch, COUNT * sizeof(int), signal, 1,
                                 SYMCOLL_SIGNAL_SET, right);
    __shared__ bool arrived;
    if (threadIdx.x == 0)
        arrived = symcoll_dev_signal_wait_until(h, signal, SYMCOLL_CMP_EQ, 1);
    __syncthreads();
    if (!arrived)
        return; /* timed out: the host learns it from symcoll_team_status */
    for (int i = threadIdx.x; i < COUNT; i += blockDim.x)
        if (inbox[i] != value_of(left, i))
            atomicAdd(wrong, 1);
}

int main(void) {
    example_init(NULL);
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    if (h.team_size == 0) {
        fprintf(stderr, "symcoll_device_handle: %s\n", symcoll_last_error());
        return 1;
    }
    int *inbox = (int *)symcoll_malloc(COUNT * sizeof(int));
    uint64_t *signal = (uint64_t *)symcoll_calloc(1, sizeof(uint64_t)); /* zero on every PE */
    if (!inbox || !signal) {
        fprintf(stderr, "symcoll_malloc: %s\n", symcoll_last_error());
        return 1;
    }
    int *scratch, *wrong, host_wrong = 0;
    CHECK_CUDA(cudaMalloc(&scratch, COUNT * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    ring_kernel<<<1, THREADS, 0, stream>>>(h, scratch, inbox, signal, wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_SYMCOLL(symcoll_team_status(SYMCOLL_TEAM_WORLD)); /* TIMEOUT if a wait expired */
    CHECK_CUDA(cudaMemcpy(&host_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    printf("PE %d of %d: %d ints from PE %d by put_signal: %s (%d wrong)\n", h.my_pe, h.n_pes,
           COUNT, (h.my_pe + h.n_pes - 1) % h.n_pes, host_wrong ? "WRONG" : "correct", host_wrong);

    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFree(wrong));
    CHECK_CUDA(cudaFree(scratch));
    symcoll_free(signal);
    symcoll_free(inbox);
    CHECK_SYMCOLL(symcoll_finalize());
    return host_wrong ? 1 : 0;
}
