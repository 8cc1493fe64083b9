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

/* A request to a PE of another node through the proxy's ring, as the device API posts it; the
 * stream goes on once the proxy's count `await` reaches it (a put's source staged, a get's data
 * here). No host function: one would hold the driver while the proxy thread needs it. */
static __global__ void proxy_request_kernel(symcoll_device_t h, int kind, int pe,
                                            uint64_t remote_offset, const void *local, size_t bytes,
                                            const uint64_t *sig, uint64_t value,
                                            symcoll_signal_op_t op, int await,
                                            symcoll_collective_t collective) {
    uint64_t ticket =
        symcoll_dev_proxy_post(h, kind, pe, remote_offset, local, bytes, sig, value, op);
    if (ticket)
        symcoll_dev_wait(h, h.proxy_ring.progress + await, SYMCOLL_CMP_GE, ticket, collective, pe);
}

static __global__ void proxy_quiet_kernel(symcoll_device_t h, symcoll_collective_t collective) {
    symcoll_dev_wait(h, h.proxy_ring.progress + SYMCOLL_PROXY_RING_COMPLETE, SYMCOLL_CMP_GE,
                     symcoll_dev_load_relaxed((const uint64_t *)h.proxy_ring.reserved), collective,
                     -1);
}

extern "C" cudaError_t symcoll_proxy_request_launch(symcoll_device_t h, int kind, int pe,
                                                    uint64_t remote_offset, const void *local,
                                                    size_t bytes, const uint64_t *sig,
                                                    uint64_t value, symcoll_signal_op_t op,
                                                    symcoll_collective_t collective,
                                                    cudaStream_t stream) {
    int await =
        kind == SYMCOLL_PROXY_RING_PUT ? SYMCOLL_PROXY_RING_STAGED : SYMCOLL_PROXY_RING_COMPLETE;
    void *params[] = {&h,   &kind,  &pe, &remote_offset, &local,     &bytes,
                      &sig, &value, &op, &await,         &collective};
    return cudaLaunchKernel((const void *)proxy_request_kernel, dim3(1), dim3(1), params, 0,
                            stream);
}

extern "C" cudaError_t symcoll_proxy_quiet_launch(symcoll_device_t h,
                                                  symcoll_collective_t collective,
                                                  cudaStream_t stream) {
    void *params[] = {&h, &collective};
    return cudaLaunchKernel((const void *)proxy_quiet_kernel, dim3(1), dim3(1), params, 0, stream);
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
    if (err == cudaSuccess)
        err = symcoll_kernel_load((const void *)proxy_request_kernel);
    if (err == cudaSuccess)
        err = symcoll_kernel_load((const void *)proxy_quiet_kernel);
    return err != cudaSuccess ? err : symcoll_kernel_load((const void *)signal_wait_kernel);
}
