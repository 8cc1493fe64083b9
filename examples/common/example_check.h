/* What the examples share: a failed call prints itself and its reason and ends the program
 * (exit 77, "skipped", when the machine has no GPU), a heap sized to the program and symmetric
 * memory that must exist, the data of the all-reduce checks, and the gather that ends the
 * examples about starting symcoll.
 * Each PE's element i is (pe + 1) * ((i + round) % 13), so the sum over n PEs is
 * n (n + 1) / 2 * ((i + round) % 13): exact in float32. */
#ifndef SYMCOLL_EXAMPLE_CHECK_H
#define SYMCOLL_EXAMPLE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "symcoll.h"

#define EXAMPLE_SKIPPED 77

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_SYMCOLL(call)                                                                        \
    do {                                                                                           \
        symcoll_status_t st_ = (call);                                                             \
        if (st_ != SYMCOLL_SUCCESS) {                                                              \
            fprintf(stderr, "%s: %s\n", #call, symcoll_last_error());                              \
            exit(st_ == SYMCOLL_ERROR_NO_GPU ? EXAMPLE_SKIPPED : 1);                               \
        }                                                                                          \
    } while (0)

/* This program's name, for the lines that a test log shows beside other programs' lines. */
static inline const char *example_program(void) {
    static char name[64];
    if (!name[0]) {
        FILE *comm = fopen("/proc/self/comm", "r");
        if (!comm || !fgets(name, sizeof name, comm))
            snprintf(name, sizeof name, "example");
        if (comm)
            fclose(comm);
        name[strcspn(name, "\n")] = '\0';
    }
    return name;
}

/* symcoll_init(attr), ending the program with 77 when there is no GPU. */
static inline void example_init(const symcoll_init_attr_t *attr) {
    symcoll_status_t st = symcoll_init(attr);
    if (st == SYMCOLL_ERROR_NO_GPU) {
        printf("%s: skipped: %s\n", example_program(), symcoll_last_error());
        exit(EXAMPLE_SKIPPED);
    }
    CHECK_SYMCOLL(st);
}

/* example_init with a symmetric heap of bytes (plus room for the library's own areas) per PE. */
static inline void example_init_heap(size_t bytes) {
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.heap_size = bytes + ((size_t)64 << 20);
    example_init(&attr);
}

/* Symmetric memory of bytes, or exit with the reason. */
static inline void *example_symmetric(size_t bytes) {
    void *p = symcoll_calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "symcoll_calloc of %zu bytes: %s\n", bytes, symcoll_last_error());
        exit(1);
    }
    return p;
}

static inline float example_value(int pe, size_t i, int round) {
    return (float)(pe + 1) * (float)((i + (size_t)round) % 13);
}

static inline void example_fill(float *host, size_t count, int pe, int round) {
    for (size_t i = 0; i < count; i++)
        host[i] = example_value(pe, i, round);
}

/* Elements of an all-reduce (sum) result that differ from the expected sum. */
static inline size_t example_count_wrong(const float *host, size_t count, int n_pes, int round) {
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += host[i] != (float)(n_pes * (n_pes + 1) / 2) * example_value(0, i, round);
    return wrong;
}

/* The examples about starting symcoll end with this: every PE contributes its PE number and
 * fcollect (NCCL's ncclAllGather) gathers them on stream. True when every PE sees 0 .. n-1. */
static inline int example_gather_pe_numbers(cudaStream_t stream) {
    int n_pes = symcoll_n_pes(), me = symcoll_my_pe();
    int *mine = (int *)symcoll_malloc(sizeof(int));
    int *all = (int *)symcoll_malloc((size_t)n_pes * sizeof(int));
    int *host = (int *)malloc((size_t)n_pes * sizeof(int));
    if (!mine || !all || !host) {
        fprintf(stderr, "allocation: %s\n", symcoll_last_error());
        exit(1);
    }
    CHECK_CUDA(cudaMemcpyAsync(mine, &me, sizeof me, cudaMemcpyHostToDevice, stream));
    CHECK_SYMCOLL(
        symcoll_fcollect_on_stream(SYMCOLL_TEAM_WORLD, all, mine, 1, SYMCOLL_INT32, stream));
    CHECK_CUDA(
        cudaMemcpyAsync(host, all, (size_t)n_pes * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    int ok = 1;
    for (int p = 0; p < n_pes; p++)
        ok = ok && host[p] == p;
    free(host);
    symcoll_free(all);
    symcoll_free(mine);
    return ok;
}

#endif
