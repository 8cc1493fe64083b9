/* fcollect: every member's src into block <member> of every member's dst (LL, push or
 * pull). */
#include "coll_kernel.cuh"
#include "symcoll/detail/coll_move.cuh"
#include "kernel_load.h"

static __global__ void COLL_LAUNCH_BOUNDS fcollect_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_FCOLLECT_LL)
        symcoll_coll_move_ll(coll_kernel_group(), a, SYMCOLL_FLOW_GATHER);
    else
        symcoll_coll_move_bw(coll_kernel_group(), a, SYMCOLL_FLOW_GATHER,
                             a.algo == SYMCOLL_FCOLLECT_PUSH);
}

extern "C" cudaError_t symcoll_fcollect_launch(const symcoll_coll_args_t *args, int blocks,
                                               int threads, cudaStream_t stream) {
    return coll_launch(fcollect_kernel, args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_fcollect_kernels_load(void) {
    return symcoll_kernel_load((const void *)fcollect_kernel);
}
