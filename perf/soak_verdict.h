/* --soak's verdict from what the run measured, apart from the GPU work so that it can be
 * tested on the CPU. */
#ifndef SYMCOLL_PERF_SOAK_VERDICT_H
#define SYMCOLL_PERF_SOAK_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rounds before the leak baseline: graphs and pools exist by then. */
#define PERF_SOAK_WARMUP_ROUNDS 50
/* The last probe over the first may be at most this. */
#define PERF_SOAK_SLOWDOWN_LIMIT 1.25

typedef struct {
    long long rounds, wrong;
    int fds_before, fds_after;      /* open file descriptors after the warm-up rounds, at the end */
    size_t free_before, free_after; /* free device memory, likewise */
    double first_probe_us, last_probe_us;
} perf_soak_result_t;

/* Whether the leaks were measured: a run that ends within the warm-up rounds has no baseline. */
bool perf_soak_leaks_checked(const perf_soak_result_t *r);
/* Whether the run passed: no wrong element, no slowdown beyond the limit, and no leak where
 * leaks were measured. */
bool perf_soak_passed(const perf_soak_result_t *r);

#ifdef __cplusplus
}
#endif
#endif
