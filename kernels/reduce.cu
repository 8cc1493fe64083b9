/* reduce and reduce_scatter: one kernel per valid (type, op) pair, which runs the reduction
 * algorithms of include/symcoll/detail/coll_reduce.cuh for either collective
 * (args.collective). */
#include "coll_kernel.cuh"
#include "kernel_load.h"
#include "symcoll/detail/coll_reduce.cuh"
#include "type_op_table.cuh"

static_assert((int)SYMCOLL_REDUCE_SCATTER_LL == (int)SYMCOLL_REDUCE_LL &&
                  (int)SYMCOLL_REDUCE_SCATTER_ONE_SHOT == (int)SYMCOLL_REDUCE_ONE_SHOT,
              "reduce_scatter's algorithms are reduce's, by index");

template <typename T, typename Op>
static __global__ void COLL_LAUNCH_BOUNDS reduce_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_REDUCE_LL)
        symcoll_coll_reduce_ll<T, Op>(coll_kernel_group(), a);
    else
        symcoll_coll_reduce_bw<T, Op>(coll_kernel_group(), a,
                                      a.collective == SYMCOLL_COLL_REDUCE &&
                                          a.algo == SYMCOLL_REDUCE_TWO_SHOT);
}

/* NULL where the op is not defined for the type (bitwise ops on floats). */
static const coll_kernel_t reduce_kernels[SYMCOLL_NUM_DATATYPES][SYMCOLL_NUM_OPS] =
    SYMCOLL_TYPE_OP_TABLE(reduce_kernel);

extern "C" cudaError_t symcoll_reduce_launch(const symcoll_coll_args_t *args,
                                             symcoll_datatype_t type, symcoll_op_t op, int blocks,
                                             int threads, cudaStream_t stream) {
    if ((unsigned)type >= SYMCOLL_NUM_DATATYPES || (unsigned)op >= SYMCOLL_NUM_OPS ||
        !reduce_kernels[type][op])
        return cudaErrorInvalidValue;
    return coll_launch(reduce_kernels[type][op], args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_reduce_kernels_load(void) {
    return symcoll_type_op_table_load(reduce_kernels);
}

/* reduce_scatter runs the reduce kernels, which symcoll_reduce_kernels_load loads. */
extern "C" cudaError_t symcoll_reduce_scatter_kernels_load(void) {
    return cudaSuccess;
}
