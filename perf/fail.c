#include "fail.h"

#include <stdarg.h>
#include <stdio.h>

int perf_cuda_check(cudaError_t err, const char *what) {
    if (err == cudaSuccess) {
        return 0;
    }
    fprintf(stderr, "symcoll-perf: PE %d: %s: %s\n", symcoll_my_pe(), what,
            cudaGetErrorString(err));
    return -1;
}

int perf_symcoll_check(symcoll_status_t status, const char *what) {
    if (status == SYMCOLL_SUCCESS) {
        return 0;
    }
    fprintf(stderr, "symcoll-perf: PE %d: %s: %s: %s\n", symcoll_my_pe(), what,
            symcoll_status_string(status), symcoll_last_error());
    return -1;
}

int perf_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "symcoll-perf: PE %d: ", symcoll_my_pe());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}
