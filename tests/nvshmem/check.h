/* The harness of the NVSHMEM programs in this folder: CUDA checks and the verdict line. The
 * programs themselves use only <nvshmem.h> and <nvshmemx.h>, as NVSHMEM programs do. */
#ifndef NVSHMEM_TEST_CHECK_H
#define NVSHMEM_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <nvshmem.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The GPU of this PE: its number on the node, wrapped where the node's PEs outnumber its GPUs
 * (several share one under MPS). */
static inline void set_device_of_node_pe(void) {
    int devices = 0;
    CHECK_CUDA(cudaGetDeviceCount(&devices));
    CHECK_CUDA(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) % devices));
}

/* Prints one line per PE and returns the exit status: 0 when nothing was wrong. */
static inline int report(const char *program, int pe, long wrong) {
    printf("%s: PE %d %s (%ld wrong)\n", program, pe, wrong ? "FAILED" : "PASSED", wrong);
    return wrong ? 1 : 0;
}

/* For the programs that start with nvshmemx_init_attr, which returns symcoll's status: exit
 * 77 (skipped) without a GPU, 1 on any other failure. */
static inline void exit_on_init_failure(int status) {
    if (status != 0)
        exit(status == SYMCOLL_ERROR_NO_GPU ? 77 : 1);
}

#endif
