// Makes this PE late on a stream: a kernel that holds the stream for a while, so that the
// peers' kernels of the next call run first and read whatever is in their buffers.
#ifndef SYMCOLL_TESTS_STREAM_DELAY_CUH
#define SYMCOLL_TESTS_STREAM_DELAY_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include "symcoll_device.cuh"

static __global__ void stream_delay_kernel(uint64_t ns) {
    uint64_t start = symcoll_dev_now_ns();
    while (symcoll_dev_now_ns() - start < ns)
        __nanosleep(10000);
}

inline cudaError_t delay_stream(cudaStream_t s, uint64_t ns) {
    stream_delay_kernel<<<1, 1, 0, s>>>(ns);
    return cudaGetLastError();
}

#endif
