#include "soak_verdict.h"

#include <string.h>

#include "stats.h"

size_t perf_soak_count(uint64_t scale_bits, uint64_t offset_bits, size_t max_count) {
    size_t scale = (size_t)1 << (scale_bits % PERF_SOAK_COUNT_SCALES);
    return 1 + (scale - 1 + offset_bits % scale) % max_count;
}

void perf_soak_probe_medians(const perf_soak_result_t *r, double *earlier_us, double *later_us) {
    int n = r->probes < PERF_SOAK_MAX_PROBES ? r->probes : PERF_SOAK_MAX_PROBES;
    if (n < 2) {
        *earlier_us = *later_us = n == 1 ? r->probe_us[0] : 0;
        return;
    }
    int half = n / 2;
    double earlier[PERF_SOAK_MAX_PROBES / 2], later[PERF_SOAK_MAX_PROBES / 2];
    memcpy(earlier, r->probe_us, (size_t)half * sizeof *earlier);
    memcpy(later, r->probe_us + n - half, (size_t)half * sizeof *later);
    *earlier_us = perf_median(earlier, half);
    *later_us = perf_median(later, half);
}

double perf_soak_slowdown(const perf_soak_result_t *r) {
    double earlier, later;
    perf_soak_probe_medians(r, &earlier, &later);
    return earlier > 0 ? later / earlier : 1.0;
}

bool perf_soak_leaks_checked(const perf_soak_result_t *r) {
    return r->rounds >= PERF_SOAK_WARMUP_ROUNDS;
}

bool perf_soak_passed(const perf_soak_result_t *r) {
    bool leaked = perf_soak_leaks_checked(r) &&
                  (r->fds_after != r->fds_before || r->free_after != r->free_before);
    return r->wrong == 0 && !leaked && perf_soak_slowdown(r) <= PERF_SOAK_SLOWDOWN_LIMIT;
}
