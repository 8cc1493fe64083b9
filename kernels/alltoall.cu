/* alltoall: block j of member i's src into block i of member j's dst (LL, push or
 * pull). */
#include "coll_kernel.cuh"
#include "symcoll/detail/coll_move.cuh"
#include "kernel_load.h"

static __global__ void COLL_LAUNCH_BOUNDS alltoall_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_ALLTOALL_LL)
        symcoll_coll_move_ll(coll_kernel_group(), a, SYMCOLL_FLOW_EXCHANGE);
    else
        symcoll_coll_move_bw(coll_kernel_group(), a, SYMCOLL_FLOW_EXCHANGE,
                             a.algo == SYMCOLL_ALLTOALL_PUSH);
}

extern "C" cudaError_t symcoll_alltoall_launch(const symcoll_coll_args_t *args, int blocks,
                                               int threads, cudaStream_t stream) {
    return coll_launch(alltoall_kernel, args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_alltoall_kernels_load(void) {
    return symcoll_kernel_load((const void *)alltoall_kernel);
}
