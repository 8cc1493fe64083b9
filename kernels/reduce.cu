/* reduce and reduce_scatter: one kernel per valid (type, op) pair, which runs the reduction
 * algorithms of include/symcoll/detail/coll_reduce.cuh for either collective
 * (args.collective). */
#include "coll_kernel.cuh"
#include "kernel_load.h"
#include "symcoll/detail/coll_reduce.cuh"

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

#define REDUCE_COMMON_OPS(T)                                                                       \
    reduce_kernel<T, symcoll_coll_sum>, reduce_kernel<T, symcoll_coll_prod>,                       \
        reduce_kernel<T, symcoll_coll_min>, reduce_kernel<T, symcoll_coll_max>
#define REDUCE_INTEGER_OPS(T)                                                                      \
    {                                                                                              \
        REDUCE_COMMON_OPS(T), reduce_kernel<T, symcoll_coll_and>,                                  \
            reduce_kernel<T, symcoll_coll_or>, reduce_kernel<T, symcoll_coll_xor>                  \
    }
#define REDUCE_FLOAT_OPS(T)                                                                        \
    { REDUCE_COMMON_OPS(T), NULL, NULL, NULL }

static_assert(SYMCOLL_INT8 == 0 && SYMCOLL_UINT8 == 1 && SYMCOLL_INT32 == 2 &&
                  SYMCOLL_UINT32 == 3 && SYMCOLL_INT64 == 4 && SYMCOLL_UINT64 == 5 &&
                  SYMCOLL_FLOAT16 == 6 && SYMCOLL_BFLOAT16 == 7 && SYMCOLL_FLOAT32 == 8 &&
                  SYMCOLL_FLOAT64 == 9,
              "reduce_kernels rows follow symcoll_datatype_t");
static_assert(SYMCOLL_SUM == 0 && SYMCOLL_PROD == 1 && SYMCOLL_MIN == 2 && SYMCOLL_MAX == 3 &&
                  SYMCOLL_AND == 4 && SYMCOLL_OR == 5 && SYMCOLL_XOR == 6,
              "reduce_kernels columns follow symcoll_op_t");

/* NULL where the op is not defined for the type (bitwise ops on floats). */
static const coll_kernel_t reduce_kernels[SYMCOLL_NUM_DATATYPES][SYMCOLL_NUM_OPS] = {
    REDUCE_INTEGER_OPS(int8_t),   REDUCE_INTEGER_OPS(uint8_t),     REDUCE_INTEGER_OPS(int32_t),
    REDUCE_INTEGER_OPS(uint32_t), REDUCE_INTEGER_OPS(int64_t),     REDUCE_INTEGER_OPS(uint64_t),
    REDUCE_FLOAT_OPS(__half),     REDUCE_FLOAT_OPS(__nv_bfloat16), REDUCE_FLOAT_OPS(float),
    REDUCE_FLOAT_OPS(double)};

extern "C" cudaError_t symcoll_reduce_launch(const symcoll_coll_args_t *args,
                                             symcoll_datatype_t type, symcoll_op_t op, int blocks,
                                             int threads, cudaStream_t stream) {
    if ((unsigned)type >= SYMCOLL_NUM_DATATYPES || (unsigned)op >= SYMCOLL_NUM_OPS ||
        !reduce_kernels[type][op])
        return cudaErrorInvalidValue;
    return coll_launch(reduce_kernels[type][op], args, blocks, threads, stream);
}

extern "C" cudaError_t symcoll_reduce_kernels_load(void) {
    for (int type = 0; type < SYMCOLL_NUM_DATATYPES; type++)
        for (int op = 0; op < SYMCOLL_NUM_OPS; op++) {
            cudaError_t err = reduce_kernels[type][op]
                                  ? symcoll_kernel_load((const void *)reduce_kernels[type][op])
                                  : cudaSuccess;
            if (err != cudaSuccess)
                return err;
        }
    return cudaSuccess;
}

/* reduce_scatter runs the reduce kernels, which symcoll_reduce_kernels_load loads. */
extern "C" cudaError_t symcoll_reduce_scatter_kernels_load(void) {
    return cudaSuccess;
}
