/* NCCL's device API beside ours for --op dev_barrier and dev_pingpong
 * (perf/nccl_dev_kernels.cu keeps NCCL's C++ device headers to itself). */
#ifndef SYMCOLL_PERF_NCCL_DEV_KERNELS_H
#define SYMCOLL_PERF_NCCL_DEV_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library version from which ncclDevCommCreate and the LSA barrier exist. */
#define PERF_NCCL_DEV_MIN_VERSION 22800

/* A device communicator of comm with one LSA barrier. */
typedef struct perf_nccl_dev perf_nccl_dev_t;

/* Collective over comm's ranks. */
ncclResult_t perf_nccl_dev_create(ncclComm_t comm, perf_nccl_dev_t **out);
ncclResult_t perf_nccl_dev_destroy(perf_nccl_dev_t *dev);

/* One block of 128 threads (ncclCoopCta) calls ncclLsaBarrierSession::sync iters times,
 * acq_rel or relaxed. */
cudaError_t perf_nccl_dev_barrier_launch(const perf_nccl_dev_t *dev, int iters, bool relaxed,
                                         cudaStream_t stream);

/* Offsets in the ping-pong's window (zeroed once; the flag only ever rises). */
#define PERF_NCCL_PINGPONG_DATA 0
#define PERF_NCCL_PINGPONG_FLAG 128
#define PERF_NCCL_PINGPONG_BYTES 4096

/* The ping-pong of perf_dev_pingpong_launch through a symmetric NCCL window: thread 0 of a
 * warp stores the 8-byte value into the peer's data, then the value into its flag with a
 * release store, and waits with acquire loads. counters[0] counts wrong data, counters[1]
 * is set when a wait gave up after timeout_ns (0: never). */
cudaError_t perf_nccl_dev_pingpong_launch(ncclWindow_t win, int rank, uint64_t base, int iters,
                                          uint64_t timeout_ns, unsigned long long *counters,
                                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
