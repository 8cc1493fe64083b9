/* The local step of a reduction across nodes: each node's partial result of this PE's shard, one
 * in its own memory and the others as received from the other nodes, combined in node order, so
 * that every node computes the same bits. One kernel per valid (type, op) pair. */
#include "arch_check.cuh"
#include "kernel_load.h"
#include "nodes_combine_launch.h"
#include "type_op_table.cuh"

#define COMBINE_THREADS 512
#define COMBINE_MAX_BLOCKS 1024

template <typename T, typename Op> static __global__ void combine_kernel(symcoll_combine_args_t a) {
    typedef symcoll_coll_num<T> num;
    T *out = (T *)a.out;
    const T *own = (const T *)a.own;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < a.count;
         i += (size_t)gridDim.x * blockDim.x) {
        typename num::acc acc = 0;
        for (int k = 0; k < a.inputs; k++) {
            const T *in = k == a.own_index ? own : (const T *)(a.slots + (size_t)k * a.slot_stride);
            acc = k == 0 ? num::widen(in[i]) : Op::apply(acc, num::widen(in[i]));
        }
        out[i] = num::narrow(acc);
    }
}

typedef void (*combine_kernel_t)(symcoll_combine_args_t);

static const combine_kernel_t combine_kernels[SYMCOLL_NUM_DATATYPES][SYMCOLL_NUM_OPS] =
    SYMCOLL_TYPE_OP_TABLE(combine_kernel);

extern "C" cudaError_t symcoll_combine_launch(const symcoll_combine_args_t *args,
                                              symcoll_datatype_t type, symcoll_op_t op,
                                              cudaStream_t stream) {
    if ((unsigned)type >= SYMCOLL_NUM_DATATYPES || (unsigned)op >= SYMCOLL_NUM_OPS ||
        !combine_kernels[type][op] || args->inputs < 1)
        return cudaErrorInvalidValue;
    if (args->count == 0)
        return cudaSuccess;
    size_t blocks = (args->count + COMBINE_THREADS - 1) / COMBINE_THREADS;
    if (blocks > COMBINE_MAX_BLOCKS)
        blocks = COMBINE_MAX_BLOCKS;
    void *params[] = {(void *)args};
    return cudaLaunchKernel((const void *)combine_kernels[type][op], dim3((unsigned)blocks),
                            dim3(COMBINE_THREADS), params, 0, stream);
}

extern "C" cudaError_t symcoll_nodes_combine_kernels_load(void) {
    return symcoll_type_op_table_load(combine_kernels);
}
