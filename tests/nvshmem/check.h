/* The harness of the NVSHMEM programs in this folder: CUDA checks and the verdict line. The
 * programs themselves use only <nvshmem.h> and <nvshmemx.h>, as NVSHMEM programs do. */
#ifndef NVSHMEM_TEST_CHECK_H
#define NVSHMEM_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Prints one line per PE and returns the exit status: 0 when nothing was wrong. */
static inline int report(const char *program, int pe, long wrong) {
    printf("%s: PE %d %s (%ld wrong)\n", program, pe, wrong ? "FAILED" : "PASSED", wrong);
    return wrong ? 1 : 0;
}

#endif
