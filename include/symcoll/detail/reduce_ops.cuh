/* Internal, not API: reduction datatypes and ops: accumulator types (float32 for the 16-bit
 * floats), integer arithmetic that wraps, and lane-wise accumulation over packed words. */
#ifndef SYMCOLL_DETAIL_REDUCE_OPS_CUH
#define SYMCOLL_DETAIL_REDUCE_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string.h>
#include <type_traits>
#include "symcoll_device.cuh"

/* Member functions (SYMCOLL_DEV carries a storage class). */
#define SYMCOLL_COLL_MEMBER __device__ __forceinline__

template <typename T> struct symcoll_coll_num {
    typedef T acc;
    static SYMCOLL_COLL_MEMBER acc widen(T x) {
        return x;
    }
    static SYMCOLL_COLL_MEMBER T narrow(acc x) {
        return x;
    }
};
template <> struct symcoll_coll_num<__half> {
    typedef float acc;
    static SYMCOLL_COLL_MEMBER acc widen(__half x) {
        return __half2float(x);
    }
    static SYMCOLL_COLL_MEMBER __half narrow(acc x) {
        return __float2half_rn(x);
    }
};
template <> struct symcoll_coll_num<__nv_bfloat16> {
    typedef float acc;
    static SYMCOLL_COLL_MEMBER acc widen(__nv_bfloat16 x) {
        return __bfloat162float(x);
    }
    static SYMCOLL_COLL_MEMBER __nv_bfloat16 narrow(acc x) {
        return __float2bfloat16_rn(x);
    }
};

/* The type integer sums and products are computed in: unsigned, so that they wrap. */
template <typename A, bool = std::is_integral<A>::value> struct symcoll_coll_wrapping {
    typedef A type;
};
template <typename A> struct symcoll_coll_wrapping<A, true> {
    typedef typename std::make_unsigned<A>::type type;
};

struct symcoll_coll_sum {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        typedef typename symcoll_coll_wrapping<A>::type W;
        return (A)((W)x + (W)y);
    }
};
struct symcoll_coll_prod {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        typedef typename symcoll_coll_wrapping<A>::type W;
        return (A)((W)x * (W)y);
    }
};
/* CUDA's canonical NaN: every PE gets the same bits, whatever order it combines in. */
template <typename A> SYMCOLL_COLL_MEMBER A symcoll_coll_nan();
template <> SYMCOLL_COLL_MEMBER float symcoll_coll_nan<float>() {
    return __int_as_float(0x7fffffff);
}
template <> SYMCOLL_COLL_MEMBER double symcoll_coll_nan<double>() {
    return __longlong_as_double(0x7fffffffffffffffll);
}

/* Floating-point min and max propagate NaN (any NaN in, NaN out) and order -0 below +0, as
 * IEEE 754-2019's minimum and maximum and torch.minimum/maximum do; the result does not depend
 * on the order of the operands. */
struct symcoll_coll_min {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        if constexpr (std::is_floating_point<A>::value) {
            if (x != x || y != y)
                return symcoll_coll_nan<A>();
            if (x == y)
                return signbit(x) ? x : y;
        }
        return y < x ? y : x;
    }
};
struct symcoll_coll_max {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        if constexpr (std::is_floating_point<A>::value) {
            if (x != x || y != y)
                return symcoll_coll_nan<A>();
            if (x == y)
                return signbit(x) ? y : x;
        }
        return x < y ? y : x;
    }
};
struct symcoll_coll_and {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        return x & y;
    }
};
struct symcoll_coll_or {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        return x | y;
    }
};
struct symcoll_coll_xor {
    template <typename A> static SYMCOLL_COLL_MEMBER A apply(A x, A y) {
        return x ^ y;
    }
};

/* Accumulators for the LANES elements of type T packed in a word W (8 or 16 bytes), combined
 * in the order the words arrive. */
template <typename T, typename Op, typename W> struct symcoll_coll_lanes {
    static const int LANES = sizeof(W) / sizeof(T);
    typename symcoll_coll_num<T>::acc v[LANES];

    SYMCOLL_COLL_MEMBER void add(const W &word, bool first) {
        T x[LANES];
        memcpy(x, &word, sizeof x);
#pragma unroll
        for (int l = 0; l < LANES; l++)
            v[l] = first ? symcoll_coll_num<T>::widen(x[l])
                         : Op::apply(v[l], symcoll_coll_num<T>::widen(x[l]));
    }
    SYMCOLL_COLL_MEMBER W result() const {
        T x[LANES];
#pragma unroll
        for (int l = 0; l < LANES; l++)
            x[l] = symcoll_coll_num<T>::narrow(v[l]);
        W word;
        memcpy(&word, x, sizeof word);
        return word;
    }
};

#endif
