#include "nccl_dev_kernels.h"

#include <stdlib.h>
#include <string.h>

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 28, 0)
#error "symcoll-perf needs NCCL 2.28 or newer (the device API)"
#endif
#include <nccl_device.h>

struct perf_nccl_dev {
    ncclComm_t comm;
    ncclDevComm dev;
};

extern "C" ncclResult_t perf_nccl_dev_create(ncclComm_t comm, perf_nccl_dev_t **out) {
    perf_nccl_dev_t *d = (perf_nccl_dev_t *)calloc(1, sizeof *d);
    if (d == NULL)
        return ncclSystemError;
#ifdef NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER /* later NCCL versions stamp size and version */
    ncclDevCommRequirements reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
    ncclDevCommRequirements reqs;
    memset(&reqs, 0, sizeof reqs);
#endif
    reqs.lsaBarrierCount = 1;
    ncclResult_t rc = ncclDevCommCreate(comm, &reqs, &d->dev);
    if (rc != ncclSuccess) {
        free(d);
        return rc;
    }
    d->comm = comm;
    *out = d;
    return ncclSuccess;
}

extern "C" ncclResult_t perf_nccl_dev_destroy(perf_nccl_dev_t *d) {
    ncclResult_t rc = ncclDevCommDestroy(d->comm, &d->dev);
    free(d);
    return rc;
}

template <bool Relaxed> static __global__ void barrier_loop(ncclDevComm dev, int iters) {
    ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), dev, ncclTeamTagLsa(), blockIdx.x);
    for (int i = 0; i < iters; i++)
        bar.sync(ncclCoopCta(), Relaxed ? cuda::memory_order_relaxed : cuda::memory_order_acq_rel);
}

extern "C" cudaError_t perf_nccl_dev_barrier_launch(const perf_nccl_dev_t *d, int iters,
                                                    bool relaxed, cudaStream_t stream) {
    if (relaxed)
        barrier_loop<true><<<1, 128, 0, stream>>>(d->dev, iters);
    else
        barrier_loop<false><<<1, 128, 0, stream>>>(d->dev, iters);
    return cudaGetLastError();
}

static __device__ uint64_t global_ns(void) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Acquire loads until *flag >= v; the clock is read once per 1024 loads. False on timeout. */
static __device__ bool wait_flag(uint64_t *flag, uint64_t v, uint64_t timeout_ns) {
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system> f(*flag);
    uint64_t start = 0;
    for (unsigned spin = 1; f.load(cuda::memory_order_acquire) < v; spin++) {
        if (spin % 1024 != 0 || timeout_ns == 0)
            continue;
        uint64_t now = global_ns();
        if (start == 0)
            start = now;
        else if (now - start > timeout_ns)
            return false;
    }
    return true;
}

/* The value into the peer's data, then into its flag with a release store. */
static __device__ void send(volatile uint64_t *peer_data, uint64_t *peer_flag, uint64_t v) {
    *peer_data = v;
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*peer_flag)
        .store(v, cuda::memory_order_release);
}

static __global__ void pingpong_loop(ncclWindow_t win, int rank, uint64_t base, int iters,
                                     uint64_t timeout_ns, unsigned long long *counters) {
    if (rank > 1 || threadIdx.x != 0)
        return;
    int peer = 1 - rank;
    uint64_t *data = (uint64_t *)ncclGetLocalPointer(win, PERF_NCCL_PINGPONG_DATA);
    uint64_t *flag = (uint64_t *)ncclGetLocalPointer(win, PERF_NCCL_PINGPONG_FLAG);
    volatile uint64_t *peer_data =
        (volatile uint64_t *)ncclGetPeerPointer(win, PERF_NCCL_PINGPONG_DATA, peer);
    uint64_t *peer_flag = (uint64_t *)ncclGetPeerPointer(win, PERF_NCCL_PINGPONG_FLAG, peer);
    for (int i = 1; i <= iters; i++) {
        uint64_t v = base + (uint64_t)i;
        if (rank == 0)
            send(peer_data, peer_flag, v);
        if (!wait_flag(flag, v, timeout_ns)) {
            counters[1] = 1;
            return;
        }
        if (*(volatile uint64_t *)data != v)
            counters[0]++;
        if (rank == 1)
            send(peer_data, peer_flag, v);
    }
}

extern "C" cudaError_t perf_nccl_dev_pingpong_launch(ncclWindow_t win, int rank, uint64_t base,
                                                     int iters, uint64_t timeout_ns,
                                                     unsigned long long *counters,
                                                     cudaStream_t stream) {
    pingpong_loop<<<1, 32, 0, stream>>>(win, rank, base, iters, timeout_ns, counters);
    return cudaGetLastError();
}
