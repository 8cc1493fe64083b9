#include "soak_verdict.h"

bool perf_soak_leaks_checked(const perf_soak_result_t *r) {
    return r->rounds >= PERF_SOAK_WARMUP_ROUNDS;
}

bool perf_soak_passed(const perf_soak_result_t *r) {
    bool leaked = perf_soak_leaks_checked(r) &&
                  (r->fds_after != r->fds_before || r->free_after != r->free_before);
    return r->wrong == 0 && !leaked &&
           r->last_probe_us / r->first_probe_us <= PERF_SOAK_SLOWDOWN_LIMIT;
}
