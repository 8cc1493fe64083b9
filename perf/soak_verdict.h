/* What --soak decides without the GPU, so that it can be tested on the CPU: the counts it
 * draws and its verdict from what the run measured. */
#ifndef SYMCOLL_PERF_SOAK_VERDICT_H
#define SYMCOLL_PERF_SOAK_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rounds before the leak baseline: graphs and pools exist by then. */
#define PERF_SOAK_WARMUP_ROUNDS 50
/* The probe is timed at the start and at each of the windows the run reaches. */
#define PERF_SOAK_WINDOWS 10
#define PERF_SOAK_MAX_PROBES (PERF_SOAK_WINDOWS + 1)
/* perf_soak_slowdown may be at most this. */
#define PERF_SOAK_SLOWDOWN_LIMIT 1.25

/* Counts span 2^0 .. 2^(PERF_SOAK_COUNT_SCALES - 1) elements before they are cut to a buffer. */
#define PERF_SOAK_COUNT_SCALES 23

/* A count log-uniform from one element: the scale 2^(scale_bits % PERF_SOAK_COUNT_SCALES) plus
 * offset_bits below it, wrapped into 1 .. max_count (max_count > 0). */
size_t perf_soak_count(uint64_t scale_bits, uint64_t offset_bits, size_t max_count);

typedef struct {
    long long rounds, wrong;
    int fds_before, fds_after;      /* open file descriptors after the warm-up rounds, at the end */
    size_t free_before, free_after; /* free device memory, likewise */
    int probes;                     /* timings in probe_us, in the order taken (2 or more) */
    double probe_us[PERF_SOAK_MAX_PROBES];
} perf_soak_result_t;

/* The medians of the earlier and the later half of the probes (the middle one of an odd count
 * left out; with one probe, its timing for both; with none, 0 for both). One slow timing of
 * PEs sharing a GPU (another client's time slice) moves neither. The price: a slowdown shows only
 * once it covers most of the later half, so a steady one must grow by about 45% from the first
 * probe to the last to pass the limit, and one that sets in within the first or the last fifth of
 * the run is not seen. */
void perf_soak_probe_medians(const perf_soak_result_t *r, double *earlier_us, double *later_us);
/* The later median over the earlier one (1 without probes). */
double perf_soak_slowdown(const perf_soak_result_t *r);

/* Whether the leaks were measured: a run that ends within the warm-up rounds has no baseline. */
bool perf_soak_leaks_checked(const perf_soak_result_t *r);
/* Whether the run passed: no wrong element, no slowdown beyond the limit, and no leak where
 * leaks were measured. */
bool perf_soak_passed(const perf_soak_result_t *r);

#ifdef __cplusplus
}
#endif
#endif
