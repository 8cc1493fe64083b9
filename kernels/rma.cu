/* Kernels of the host-side RMA calls (src/rma.c). */
#include "arch_check.cuh"
#include "kernel_load.h"
#include "rma_launch.h"
#include "symcoll_device.cuh"

#define PUT_SIGNAL_THREADS 512

static __global__ void put_signal_kernel(void *peer_dst, const void *src, size_t bytes,
                                         uint64_t *peer_sig, uint64_t value,
                                         symcoll_signal_op_t op) {
    symcoll_dev_copy(peer_dst, src, bytes, threadIdx.x, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0)
        symcoll_dev_signal_update(peer_sig, value, op);
}

static __global__ void signal_wait_kernel(symcoll_device_t h, const uint64_t *sig,
                                          symcoll_cmp_t cmp, uint64_t value) {
    symcoll_dev_wait(h, sig, cmp, value, SYMCOLL_COLL_SIGNAL_WAIT, -1);
}

static __global__ void arrivals_wait_kernel(symcoll_device_t h, const uint64_t *arrivals,
                                            uint64_t *awaited, uint64_t expected,
                                            symcoll_collective_t collective) {
    uint64_t total = *awaited += expected;
    symcoll_dev_wait(h, arrivals, SYMCOLL_CMP_GE, total, collective, -1);
}

extern "C" cudaError_t symcoll_put_signal_launch(void *peer_dst, const void *src, size_t bytes,
                                                 uint64_t *peer_sig, uint64_t value,
                                                 symcoll_signal_op_t op, cudaStream_t stream) {
    int threads = bytes == 0 ? 1 : PUT_SIGNAL_THREADS;
    void *params[] = {&peer_dst, &src, &bytes, &peer_sig, &value, &op};
    return cudaLaunchKernel((const void *)put_signal_kernel, dim3(1), dim3(threads), params, 0,
                            stream);
}

extern "C" cudaError_t symcoll_signal_wait_launch(symcoll_device_t h, const uint64_t *sig,
                                                  symcoll_cmp_t cmp, uint64_t value,
                                                  cudaStream_t stream) {
    void *params[] = {&h, &sig, &cmp, &value};
    return cudaLaunchKernel((const void *)signal_wait_kernel, dim3(1), dim3(1), params, 0, stream);
}

extern "C" cudaError_t symcoll_arrivals_wait_launch(symcoll_device_t h, const uint64_t *arrivals,
                                                    uint64_t *awaited, uint64_t expected,
                                                    symcoll_collective_t collective,
                                                    cudaStream_t stream) {
    void *params[] = {&h, &arrivals, &awaited, &expected, &collective};
    return cudaLaunchKernel((const void *)arrivals_wait_kernel, dim3(1), dim3(1), params, 0,
                            stream);
}

extern "C" cudaError_t symcoll_rma_kernels_load(void) {
    cudaError_t err = symcoll_kernel_load((const void *)put_signal_kernel);
    if (err == cudaSuccess)
        err = symcoll_kernel_load((const void *)arrivals_wait_kernel);
    return err != cudaSuccess ? err : symcoll_kernel_load((const void *)signal_wait_kernel);
}
