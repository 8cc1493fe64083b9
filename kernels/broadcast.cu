/* broadcast: the root's src into every member's dst (LL, pull from the root, or push
 * from the root). */
#include "coll_kernel.cuh"
#include "symcoll/detail/coll_move.cuh"
#include "kernel_load.h"

static __global__ void COLL_LAUNCH_BOUNDS broadcast_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_BROADCAST_LL)
        symcoll_coll_move_ll(coll_kernel_group(), a, SYMCOLL_FLOW_ONE_TO_ALL);
    else
        symcoll_coll_move_bw(coll_kernel_group(), a, SYMCOLL_FLOW_ONE_TO_ALL,
                             a.algo == SYMCOLL_BROADCAST_PUSH);
}

extern "C" cudaError_t symcoll_broadcast_launch(const symcoll_coll_args_t *args, int blocks,
                                                int threads, cudaStream_t stream) {
    return coll_launch(broadcast_kernel, args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_broadcast_kernels_load(void) {
    return symcoll_kernel_load((const void *)broadcast_kernel);
}
