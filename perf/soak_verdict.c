#include "soak_verdict.h"

#include <string.h>

#include "stats.h"

size_t perf_soak_count(uint64_t scale_bits, uint64_t offset_bits, size_t max_count) {
    size_t scale = (size_t)1 << (scale_bits % PERF_SOAK_COUNT_SCALES);
    return 1 + (scale - 1 + offset_bits % scale) % max_count;
}

double perf_soak_slowdown(const perf_soak_result_t *r) {
    int half = r->probes / 2;
    if (half == 0)
        return 1.0;
    double earlier[PERF_SOAK_MAX_PROBES], later[PERF_SOAK_MAX_PROBES];
    memcpy(earlier, r->probe_us, half * sizeof *earlier);
    memcpy(later, r->probe_us + r->probes - half, half * sizeof *later);
    return perf_median(later, half) / perf_median(earlier, half);
}

bool perf_soak_leaks_checked(const perf_soak_result_t *r) {
    return r->rounds >= PERF_SOAK_WARMUP_ROUNDS;
}

bool perf_soak_passed(const perf_soak_result_t *r) {
    bool leaked = perf_soak_leaks_checked(r) &&
                  (r->fds_after != r->fds_before || r->free_after != r->free_before);
    return r->wrong == 0 && !leaked && perf_soak_slowdown(r) <= PERF_SOAK_SLOWDOWN_LIMIT;
}
