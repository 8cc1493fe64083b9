/* Kernels of the host-side RMA calls (src/rma.c). */
#include "arch_check.cuh"
#include "kernel_load.h"
#include "rma_launch.h"
#include "symcoll_device.cuh"

#define PUT_SIGNAL_THREADS 512
#define PRESTAGE_THREADS 512

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

/* The arrivals reach total in the GPU's word or in its host-mapped mirror (NULL: none), where
 * the proxy stores the sums it applies with no copy of its own before them. */
static __device__ bool arrivals_reach(const uint64_t *arrivals, const uint64_t *mirror,
                                      uint64_t total) {
    return symcoll_dev_load_acquire(arrivals) >= total ||
           (mirror && symcoll_dev_load_acquire(mirror) >= total);
}

static __global__ void arrivals_wait_kernel(symcoll_device_t h, const uint64_t *arrivals,
                                            const uint64_t *mirror, uint64_t *awaited,
                                            uint64_t expected, symcoll_collective_t collective) {
    uint64_t total = *awaited += expected, start = 0;
    for (uint32_t polls = 1; !arrivals_reach(arrivals, mirror, total); polls++)
        if ((polls & 1023) == 0 && symcoll_dev_wait_expired(h, &start, collective, -1, total))
            return;
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

/* A put to a PE of another node whose source this block copies into the pre-staging slots of
 * its entries (SYMCOLL_PROXY_RING_PUT_PRESTAGED), a piece per entry: the stream goes on once the
 * copy is posted, without waiting for the proxy. An entry's slot is free once the entry that used
 * it before is complete; the waits time out naming collective (the team is then broken). */
static __global__ void proxy_prestaged_put_kernel(symcoll_device_t h, char *prestage, int pe,
                                                  uint64_t remote_offset, const char *src,
                                                  size_t bytes, const uint64_t *sig, uint64_t value,
                                                  symcoll_signal_op_t op,
                                                  symcoll_collective_t collective) {
    __shared__ uint64_t ticket;
    size_t done = 0;
    do {
        size_t len = bytes - done < SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES
                         ? bytes - done
                         : SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES;
        if (threadIdx.x == 0) {
            uint64_t t = symcoll_dev_proxy_reserve(h, pe, collective);
            uint64_t reused =
                t > SYMCOLL_PROXY_PRESTAGE_SLOTS ? t - SYMCOLL_PROXY_PRESTAGE_SLOTS : 0;
            if (t && len &&
                !symcoll_dev_wait(h, h.proxy_ring.progress + SYMCOLL_PROXY_RING_COMPLETE,
                                  SYMCOLL_CMP_GE, reused, collective, pe)) {
                /* The entry is ours: an empty put keeps the proxy's ring moving past it. */
                symcoll_dev_proxy_fill(h, t, SYMCOLL_PROXY_RING_PUT_PRESTAGED, pe, 0, 0, 0,
                                       (const uint64_t *)0, 0, op);
                t = 0;
            }
            ticket = t;
        }
        __syncthreads();
        uint64_t t = ticket;
        if (!t)
            return;
        uint64_t slot = (t - 1) % SYMCOLL_PROXY_PRESTAGE_SLOTS * SYMCOLL_PROXY_PRESTAGE_SLOT_BYTES;
        symcoll_dev_copy_wide(prestage + slot, src + done, len, threadIdx.x, blockDim.x);
        /* Each thread orders its own stores before the barrier, rather than leaning on thread
         * 0's fence to be cumulative over the others' stores through it. */
        symcoll_dev_fence_sys();
        __syncthreads();
        done += len;
        if (threadIdx.x == 0)
            symcoll_dev_proxy_fill(h, t, SYMCOLL_PROXY_RING_PUT_PRESTAGED, pe,
                                   remote_offset + done - len, slot, len,
                                   done == bytes ? sig : (const uint64_t *)0, value, op);
    } while (done < bytes);
}

static __global__ void proxy_quiet_kernel(symcoll_device_t h, symcoll_collective_t collective) {
    symcoll_dev_wait(h, h.proxy_ring.progress + SYMCOLL_PROXY_RING_COMPLETE, SYMCOLL_CMP_GE,
                     symcoll_dev_load_relaxed((const uint64_t *)h.proxy_ring.reserved), collective,
                     -1);
}

extern "C" cudaError_t
symcoll_proxy_request_launch(symcoll_device_t h, char *prestage, int kind, int pe,
                             uint64_t remote_offset, const void *local, size_t bytes,
                             const uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                             symcoll_collective_t collective, cudaStream_t stream) {
    if (kind == SYMCOLL_PROXY_RING_PUT && prestage && bytes <= SYMCOLL_PROXY_PRESTAGE_MAX) {
        void *params[] = {&h,   &prestage, &pe, &remote_offset, &local, &bytes,
                          &sig, &value,    &op, &collective};
        return cudaLaunchKernel((const void *)proxy_prestaged_put_kernel, dim3(1),
                                dim3(bytes ? PRESTAGE_THREADS : 1), params, 0, stream);
    }
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
                                                    const uint64_t *mirror, uint64_t *awaited,
                                                    uint64_t expected,
                                                    symcoll_collective_t collective,
                                                    cudaStream_t stream) {
    void *params[] = {&h, &arrivals, &mirror, &awaited, &expected, &collective};
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
        err = symcoll_kernel_load((const void *)proxy_prestaged_put_kernel);
    if (err == cudaSuccess)
        err = symcoll_kernel_load((const void *)proxy_quiet_kernel);
    return err != cudaSuccess ? err : symcoll_kernel_load((const void *)signal_wait_kernel);
}
