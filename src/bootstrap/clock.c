/* The bootstraps' deadlines: a monotonic clock, which no change of the wall clock moves. */
#include <time.h>
#include "bootstrap.h"

uint64_t symcoll_bootstrap_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
