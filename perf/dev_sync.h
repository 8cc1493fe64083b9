/* symcoll-perf --op dev_barrier and dev_pingpong: synchronization inside one kernel through
 * symcoll's device API, beside NCCL's device API measured in the same run. */
#ifndef SYMCOLL_PERF_DEV_SYNC_H
#define SYMCOLL_PERF_DEV_SYNC_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs args->dev_op: -w warm-up kernels, then --timings kernels of -n syncs (or round trips)
 * each, the PEs meeting in a barrier before each; prints us per sync (or per one-way trip)
 * of the slowest PE, median and min, and writes the CSV rows. 0; 1 on wrong data or too few
 * PEs; -1 after reporting a failure (a timed-out wait included). */
int perf_dev_sync(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
