/* symcoll-perf --op dev_reduce, dev_broadcast, dev_fcollect, dev_alltoall: the collectives of
 * symcoll_device_coll.cuh inside kernels, beside the same calls launched from the host. */
#ifndef SYMCOLL_PERF_DEV_COLL_H
#define SYMCOLL_PERF_DEV_COLL_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs args->dev_colls on WORLD: the latency table (warp and block scope, -b to
 * dev_latency_max_bytes, beside the in-kernel barrier), then the bandwidth table (grid scope,
 * -b to -e). Each row: -w warm-up and --timings timed kernels of -n calls, then a CUDA graph of
 * -n host calls replayed alike, each side checked after its timings on one call of fresh
 * data; us per call of the slowest PE. Writes the CSV rows. 0; 1 on wrong results; 2 for a
 * root out of range; -1 after reporting a failure (a call that returned false included). */
int perf_dev_coll(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
