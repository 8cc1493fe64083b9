/* Reporting a failed CUDA or symcoll call in the tool: one line on stderr naming the PE. */
#ifndef SYMCOLL_PERF_FAIL_H
#define SYMCOLL_PERF_FAIL_H

#include <cuda_runtime_api.h>
#include "symcoll.h"

/* Each returns 0 on success, else prints "symcoll-perf: PE p: what: reason" and returns -1. */
int perf_cuda_check(cudaError_t err, const char *what);
int perf_symcoll_check(symcoll_status_t status, const char *what);
/* Prints "symcoll-perf: PE p: " and the message; returns -1. */
int perf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define PERF_CUDA(call)                                                                            \
    do {                                                                                           \
        if (perf_cuda_check((call), #call) != 0)                                                   \
            return -1;                                                                             \
    } while (0)
#define PERF_SYMCOLL(call)                                                                         \
    do {                                                                                           \
        if (perf_symcoll_check((call), #call) != 0)                                                \
            return -1;                                                                             \
    } while (0)

#endif
