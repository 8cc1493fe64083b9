/* The kernels of --op dev_barrier and dev_pingpong over symcoll's device API
 * (perf/dev_sync_kernels.cu). */
#ifndef SYMCOLL_PERF_DEV_SYNC_KERNELS_H
#define SYMCOLL_PERF_DEV_SYNC_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One block of 128 threads calls symcoll_dev_barrier (or _relaxed) iters times. A failed
 * wait ends the kernel; symcoll_team_status then reports the timeout. */
cudaError_t perf_dev_barrier_launch(symcoll_device_t h, int iters, bool relaxed,
                                    cudaStream_t stream);

/* The ping-pong's buffers: data and sig symmetric (zeroed once, then only ever raised), src
 * local, each of bytes (a multiple of 8); wrong counts rounds whose data was not the round's
 * value. */
typedef struct {
    uint64_t *data, *sig, *src;
    size_t bytes;
    unsigned long long *wrong;
} perf_pingpong_t;

/* iters rounds between WORLD PE 0 and 1 (other PEs return at once), round i carrying the
 * value base + i: PE 0 sends then waits, PE 1 waits then answers. bytes 8: thread 0 of a
 * warp does a put_signal; more: a put_signal_block of 128 threads whose first and last words carry
 * the value. */
cudaError_t perf_dev_pingpong_launch(symcoll_device_t h, const perf_pingpong_t *p, uint64_t base,
                                     int iters, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
