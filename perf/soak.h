/* symcoll-perf --soak SECONDS: mixed traffic for a long run, every result checked, with leak
 * and slowdown checks. */
#ifndef SYMCOLL_PERF_SOAK_H
#define SYMCOLL_PERF_SOAK_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over WORLD. 0 when every result was right, nothing leaked and nothing slowed
 * down; 1 otherwise; -1 when a call failed (reported on stderr). */
int perf_soak(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
