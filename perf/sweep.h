/* The sweep: every requested (mode, collective, type, reduction op, size), timed, checked,
 * compared with NCCL, reported by world PE 0. */
#ifndef SYMCOLL_PERF_SWEEP_H
#define SYMCOLL_PERF_SWEEP_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the sweep after symcoll_init. Returns -1 when it failed part way (reported on stderr;
 * the PEs may be out of step), else the exit status: 0, 1 (wrong results on this PE, or the
 * plot failed), 2 (arguments that do not fit the team). */
int perf_sweep(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
