/* The seeded random numbers of symcoll-perf's drawn workloads (alltoallv's counts, --op moe's
 * routing): the same on every PE and in every run, so that each PE can draw what the others
 * send and runs compare. */
#ifndef SYMCOLL_PERF_RANDOM_H
#define SYMCOLL_PERF_RANDOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64's step: the next state's output for state x. */
uint64_t perf_mix64(uint64_t x);

/* A Fisher-Yates permutation of 0 .. n-1 into perm, drawn from *state (advanced). */
void perf_permutation(int *perm, int n, uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
