#include "dev_sync_kernels.h"

#include "symcoll_device.cuh"

template <bool Relaxed> static __global__ void barrier_loop(symcoll_device_t h, int iters) {
    for (int i = 0; i < iters; i++)
        if (!(Relaxed ? symcoll_dev_barrier_relaxed(h) : symcoll_dev_barrier(h)))
            return;
}

extern "C" cudaError_t perf_dev_barrier_launch(symcoll_device_t h, int iters, bool relaxed,
                                               cudaStream_t stream) {
    if (relaxed)
        barrier_loop<true><<<1, 128, 0, stream>>>(h, iters);
    else
        barrier_loop<false><<<1, 128, 0, stream>>>(h, iters);
    return cudaGetLastError();
}

template <bool Block>
static __device__ void send(const symcoll_device_t &h, const perf_pingpong_t &p, uint64_t v,
                            int peer) {
    if (!Block) {
        symcoll_dev_put_signal(h, p.data, &v, 8, p.sig, v, SYMCOLL_SIGNAL_SET, peer);
        return;
    }
    if (threadIdx.x == 0)
        p.src[0] = p.src[p.bytes / 8 - 1] = v;
    __syncthreads();
    symcoll_dev_put_signal_block(h, p.data, p.src, p.bytes, p.sig, v, SYMCOLL_SIGNAL_SET, peer);
}

/* False in every thread once the wait has timed out. */
template <bool Block>
static __device__ bool receive(const symcoll_device_t &h, const perf_pingpong_t &p, uint64_t v) {
    bool ok = true;
    if (threadIdx.x == 0) {
        ok = symcoll_dev_signal_wait_until(h, p.sig, SYMCOLL_CMP_GE, v);
        const volatile uint64_t *d = p.data;
        if (ok && (d[0] != v || d[p.bytes / 8 - 1] != v))
            atomicAdd(p.wrong, 1ull);
    }
    /* the block's next put reads the data only after the signal arrived */
    return Block ? !__syncthreads_or(!ok) : ok;
}

template <bool Block>
static __global__ void pingpong_loop(symcoll_device_t h, perf_pingpong_t p, uint64_t base,
                                     int iters) {
    if (h.my_pe > 1 || (!Block && threadIdx.x != 0))
        return;
    int peer = 1 - h.my_pe;
    for (int i = 1; i <= iters; i++) {
        uint64_t v = base + (uint64_t)i;
        if (h.my_pe == 0)
            send<Block>(h, p, v, peer);
        if (!receive<Block>(h, p, v))
            return;
        if (h.my_pe == 1)
            send<Block>(h, p, v, peer);
    }
}

extern "C" cudaError_t perf_dev_pingpong_launch(symcoll_device_t h, const perf_pingpong_t *p,
                                                uint64_t base, int iters, cudaStream_t stream) {
    if (p->bytes > 8)
        pingpong_loop<true><<<1, 128, 0, stream>>>(h, *p, base, iters);
    else
        pingpong_loop<false><<<1, 32, 0, stream>>>(h, *p, base, iters);
    return cudaGetLastError();
}
