/* Launch function of kernels/barrier.cu, called by collectives/barrier.c. */
#ifndef SYMCOLL_BARRIER_LAUNCH_H
#define SYMCOLL_BARRIER_LAUNCH_H

#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One single-block kernel: a team barrier on sync slot 0, including quiet. */
cudaError_t symcoll_barrier_launch(symcoll_device_t h, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
