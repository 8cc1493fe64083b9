/* alltoall: block j of member i's src into block i of member j's dst (LL, push or
 * pull). */
#include "coll_move.cuh"
#include "kernel_load.h"

static __global__ void COLL_LAUNCH_BOUNDS alltoall_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_ALLTOALL_LL)
        coll_move_ll(a, SYMCOLL_COLL_ALLTOALL);
    else
        coll_move_bw(a, SYMCOLL_COLL_ALLTOALL, a.algo == SYMCOLL_ALLTOALL_PUSH);
}

extern "C" cudaError_t symcoll_alltoall_launch(const symcoll_coll_args_t *args, int blocks,
                                               int threads, cudaStream_t stream) {
    return coll_launch(alltoall_kernel, args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_alltoall_kernels_load(void) {
    return symcoll_kernel_load((const void *)alltoall_kernel);
}
