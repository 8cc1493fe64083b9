// The device collectives' test kernels (device_coll_test.cu): the scopes, one call's arguments,
// and the kernels of reduce and reduce_scatter, whose (type, op) instances are spread over
// device_coll_reduce_*.cu so that they compile in parallel.
#ifndef SYMCOLL_TESTS_DEVICE_COLL_TESTING_CUH
#define SYMCOLL_TESTS_DEVICE_COLL_TESTING_CUH

#include "symcoll_device_coll.cuh"

namespace device_coll_testing {

enum Scope { WARP, BLOCK, GRID };
const char *const kScopeNames[] = {"warp", "block", "grid"};
const Scope kScopes[] = {WARP, BLOCK, GRID};

// How each scope is launched (plainly, as a user would): warp: the second warp of a 48-thread
// block, a partial warp of 16 threads; block: one block of 96 threads; grid: kGridBlocks blocks of
// 128.
constexpr int kGridBlocks = 4;

struct Launch {
    int blocks, threads;
};
inline Launch launch_of(Scope scope) {
    return scope == WARP    ? Launch{1, 48}
           : scope == BLOCK ? Launch{1, 96}
                            : Launch{kGridBlocks, 128};
}

// Whether this thread takes part in a call of the scope.
__device__ inline bool calls(Scope scope) {
    return scope != WARP || threadIdx.x / 32 == 1;
}

#define AT_SCOPE(scope, fn, ...)                                                                   \
    ((scope) == WARP    ? fn##_warp(__VA_ARGS__)                                                   \
     : (scope) == BLOCK ? fn##_block(__VA_ARGS__)                                                  \
                        : fn##_grid(__VA_ARGS__))
#define AT_SCOPE_OP(scope, fn, ...)                                                                \
    ((scope) == WARP    ? fn##_warp<T, OP>(__VA_ARGS__)                                            \
     : (scope) == BLOCK ? fn##_block<T, OP>(__VA_ARGS__)                                           \
                        : fn##_grid<T, OP>(__VA_ARGS__))

struct Call {
    symcoll_device_t h;
    symcoll_collective_t coll;
    Scope scope;
    void *dst;
    const void *src;
    size_t count;
    int root;
    int *failed; // set when a call returns false
};

// reduce and reduce_scatter of T with OP.
template <typename T, symcoll_op_t OP> __global__ void reduce_call(Call c) {
    if (!calls(c.scope))
        return;
    T *dst = (T *)c.dst;
    const T *src = (const T *)c.src;
    bool ok = c.coll == SYMCOLL_COLL_REDUCE
                  ? AT_SCOPE_OP(c.scope, symcoll_dev_reduce, c.h, dst, src, c.count)
                  : AT_SCOPE_OP(c.scope, symcoll_dev_reduce_scatter, c.h, dst, src, c.count);
    if (!ok)
        atomicExch(c.failed, 1);
}

// The reduce_call kernel of T and op: declared here for every datatype, defined for T by
// DEVICE_COLL_REDUCE_KERNELS(T) in the file that instantiates T's kernels.
template <typename T> const void *reduce_kernel(symcoll_op_t op);
#define DEVICE_COLL_DECLARE_REDUCE_KERNEL(T)                                                       \
    template <> const void *reduce_kernel<T>(symcoll_op_t op);
DEVICE_COLL_DECLARE_REDUCE_KERNEL(int8_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(uint8_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(int32_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(uint32_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(int64_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(uint64_t)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(__half)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(__nv_bfloat16)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(float)
DEVICE_COLL_DECLARE_REDUCE_KERNEL(double)
#undef DEVICE_COLL_DECLARE_REDUCE_KERNEL

// The body of reduce_kernel<T>, a template so that the bitwise ops of a floating-point T are
// discarded, never instantiated.
template <typename T> const void *reduce_kernel_of(symcoll_op_t op) {
    switch (op) {
    case SYMCOLL_PROD:
        return (const void *)reduce_call<T, SYMCOLL_PROD>;
    case SYMCOLL_MIN:
        return (const void *)reduce_call<T, SYMCOLL_MIN>;
    case SYMCOLL_MAX:
        return (const void *)reduce_call<T, SYMCOLL_MAX>;
    default:
        break;
    }
    if constexpr (std::is_integral<T>::value) {
        if (op == SYMCOLL_AND)
            return (const void *)reduce_call<T, SYMCOLL_AND>;
        if (op == SYMCOLL_OR)
            return (const void *)reduce_call<T, SYMCOLL_OR>;
        if (op == SYMCOLL_XOR)
            return (const void *)reduce_call<T, SYMCOLL_XOR>;
    }
    return (const void *)reduce_call<T, SYMCOLL_SUM>;
}

#define DEVICE_COLL_REDUCE_KERNELS(T)                                                              \
    template <> const void *reduce_kernel<T>(symcoll_op_t op) {                                    \
        return reduce_kernel_of<T>(op);                                                            \
    }

} // namespace device_coll_testing

#endif
