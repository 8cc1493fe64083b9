#include "dev_coll_kernels.h"

#include "symcoll_device_coll.cuh"

/* The collectives at scope S, one member each, named as in PERF_DEV_COLLS. */
template <perf_dev_scope_t S> struct scope_calls;
#define SCOPE_CALLS(ID, scope, threads)                                                            \
    template <> struct scope_calls<PERF_DEV_SCOPE_##ID> {                                          \
        static __device__ bool reduce(const perf_dev_call_t &c) {                                  \
            return symcoll_dev_reduce_##scope<float, SYMCOLL_SUM>(c.h, c.dst, c.src, c.count);     \
        }                                                                                          \
        static __device__ bool broadcast(const perf_dev_call_t &c) {                               \
            return symcoll_dev_broadcast_##scope(c.h, c.dst, c.src, c.count, c.root);              \
        }                                                                                          \
        static __device__ bool fcollect(const perf_dev_call_t &c) {                                \
            return symcoll_dev_fcollect_##scope(c.h, c.dst, c.src, c.count);                       \
        }                                                                                          \
        static __device__ bool alltoall(const perf_dev_call_t &c) {                                \
            return symcoll_dev_alltoall_##scope(c.h, c.dst, c.src, c.count);                       \
        }                                                                                          \
    };
PERF_DEV_SCOPES(SCOPE_CALLS)
#undef SCOPE_CALLS

/* One call of collective C at scope S. */
template <perf_dev_scope_t S, perf_dev_coll_t C>
static __device__ bool one_call(const perf_dev_call_t &c) {
#define CALL_CASE(ID, name)                                                                        \
    case PERF_DEV_COLL_##ID:                                                                       \
        return scope_calls<S>::name(c);
    switch (C) {
        PERF_DEV_COLLS(CALL_CASE)
    default:
        return false;
    }
#undef CALL_CASE
}

/* iters calls of collective C at scope S. Two blocks fit one SM (64 registers at 512 threads):
 * the grid's blocks wait for the other PEs' blocks, which may share their SMs where PEs share a
 * GPU (with one block per SM, 2 PEs under MPS timed out). */
template <perf_dev_scope_t S, perf_dev_coll_t C>
static __global__ void __launch_bounds__(SYMCOLL_TUNING_MAX_THREADS, 2)
    call_loop(perf_dev_call_t c, int iters) {
    for (int i = 0; i < iters; i++) {
        if (!one_call<S, C>(c)) {
            if (threadIdx.x == 0)
                atomicExch(c.failed, 1);
            return;
        }
    }
}

/* The kernel of collective coll at scope S. */
template <perf_dev_scope_t S> static const void *kernel_at(perf_dev_coll_t coll) {
#define KERNEL_OF(ID, name) (const void *)call_loop<S, PERF_DEV_COLL_##ID>,
    static const void *const kernels[PERF_DEV_NUM_COLLS] = {PERF_DEV_COLLS(KERNEL_OF)};
#undef KERNEL_OF
    return kernels[coll];
}

extern "C" cudaError_t perf_dev_coll_launch(perf_dev_coll_t coll, perf_dev_scope_t scope,
                                            const perf_dev_call_t *call, int blocks, int iters,
                                            cudaStream_t stream) {
    const void *kernel = NULL;
    int threads = 0;
#define SCOPE_CASE(ID, scope, scope_threads)                                                       \
    case PERF_DEV_SCOPE_##ID:                                                                      \
        kernel = kernel_at<PERF_DEV_SCOPE_##ID>(coll);                                             \
        threads = scope_threads;                                                                   \
        break;
    switch (scope) {
        PERF_DEV_SCOPES(SCOPE_CASE)
    default:
        return cudaErrorInvalidValue;
    }
#undef SCOPE_CASE
    perf_dev_call_t c = *call;
    void *args[] = {&c, &iters};
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), args, 0, stream);
}
