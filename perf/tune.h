/* --tune: every algorithm and grid of each collective timed at each size in graph mode, the
 * fastest written as a tuning file for SYMCOLL_TUNING_FILE. */
#ifndef SYMCOLL_PERF_TUNE_H
#define SYMCOLL_PERF_TUNE_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the tuning after symcoll_init; world PE 0 prints the choices and writes the file.
 * Returns -1 when it failed part way (reported on stderr; the PEs may be out of step), else
 * the exit status: 0, or 2 for a root outside the team. */
int perf_tune(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
