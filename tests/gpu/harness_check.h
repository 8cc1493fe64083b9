// The experiment harnesses under tests/device: a CUDA call that fails ends the program with
// the call and the reason (they run once on the GPU machine; nothing to recover).
#ifndef SYMCOLL_HARNESS_CHECK_H
#define SYMCOLL_HARNESS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e) {                                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e));                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
