/* reduce: every member's dst = op over the members' src, combined in team PE order, so that
 * every PE gets the same bits. One kernel per valid (type, op) pair, which also runs
 * reduce_scatter (args.collective): there member m's dst is the reduction of block m of every
 * member's src, args.bytes the block.
 * ll: every PE sends its src (reduce_scatter: block m to member m) to every peer's scratch
 * and reduces what it receives.
 * one_shot: every PE loads every member's src (reduce_scatter: their block of this PE) and
 * writes its own dst.
 * two_shot (reduce only): member c reduces chunk c of each block's part and stores it into
 * every member's dst (in place is safe: chunk c of any src is only read by member c, before
 * it stores). */
#include "coll_ll.cuh"
#include "kernel_load.h"
#include "reduce_ops.cuh"

/* Units each thread holds in registers between its loads and its stores. */
#define REDUCE_STAGE 4

/* Member m's part of src in a reduction: all of it for reduce, block m for reduce_scatter. */
SYMCOLL_DEV const char *reduce_src_of(const symcoll_coll_args_t &a, int m) {
    return a.collective == SYMCOLL_COLL_REDUCE_SCATTER ? a.src + (size_t)m * a.bytes : a.src;
}

template <typename T, typename Op> SYMCOLL_DEV void reduce_ll(const symcoll_coll_args_t &a) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe;
    const char *mine = reduce_src_of(a, me);
    uint64_t epoch = coll_ll_epoch(h);
    for (size_t round = 0, rounds = coll_ll_rounds(a.bytes); round < rounds; round++) {
        size_t offset, len;
        if (!coll_ll_round(h, a.bytes, round, true, a.collective, &epoch, &offset, &len))
            return;
        for (int step = 1; step < h.team_size; step++) {
            int m = coll_member_after(h, step);
            coll_ll_send(h, m, epoch, reduce_src_of(a, m) + offset, len);
        }
        bool ok = true;
        for (size_t w = threadIdx.x; ok && w * 8 < len; w += blockDim.x) {
            coll_lanes<T, Op, uint64_t> acc;
            for (int m = 0; ok && m < h.team_size; m++) {
                uint64_t word = 0;
                if (m == me)
                    word = coll_load_word(mine + offset + 8 * w, len - 8 * w);
                else
                    ok = coll_ll_recv_word(h, m, epoch, w, &word, a.collective);
                acc.add(word, m == 0);
            }
            if (ok)
                coll_store_word(a.dst + offset + 8 * w, acc.result(), len - 8 * w);
        }
        if (!coll_ll_ack(h, epoch, ok))
            return;
    }
    coll_ll_finish(h, epoch);
}

/* The message as units, each reduced by one thread: single elements up to src's first 16-byte
 * boundary, 16-byte vectors, then single elements again; all single when dst and src are not
 * aligned alike. */
typedef struct {
    size_t head, vectors, total;
} reduce_units_t;

template <typename T>
SYMCOLL_DEV reduce_units_t reduce_units(const char *src, const char *dst, size_t bytes) {
    size_t count = bytes / sizeof(T), head = count, vectors = 0;
    if ((((uintptr_t)src ^ (uintptr_t)dst) & 15) == 0) {
        size_t to_boundary = (16 - (uintptr_t)src % 16) % 16 / sizeof(T);
        head = to_boundary < count ? to_boundary : count;
        vectors = (count - head) * sizeof(T) / 16;
    }
    return {head, vectors, count - vectors * (16 / sizeof(T)) + vectors};
}

/* Byte offset of unit i in the message; *vector says whether it is a 16-byte vector. */
template <typename T>
SYMCOLL_DEV size_t reduce_unit_offset(const reduce_units_t &u, size_t i, bool *vector) {
    *vector = i >= u.head && i < u.head + u.vectors;
    if (*vector)
        return u.head * sizeof(T) + (i - u.head) * 16;
    return i < u.head ? i * sizeof(T) : (i - u.vectors) * sizeof(T) + u.vectors * 16;
}

template <typename T> SYMCOLL_DEV uint4 reduce_load(const char *p, bool vector) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (vector) {
        v = *(const uint4 *)p;
    } else {
        T x = *(const T *)p;
        memcpy(&v, &x, sizeof x);
    }
    return v;
}

template <typename T> SYMCOLL_DEV void reduce_store(char *p, const uint4 &v, bool vector) {
    if (vector) {
        *(uint4 *)p = v;
    } else {
        T x;
        memcpy(&x, &v, sizeof x);
        *(T *)p = x;
    }
}

/* one_shot and two_shot: block b owns part b of the units on every PE, between the entry and
 * the exit sync of block slot b. */
template <typename T, typename Op>
SYMCOLL_DEV void reduce_bw(const symcoll_coll_args_t &a, bool two_shot) {
    const symcoll_device_t &h = a.h;
    const char *mine = reduce_src_of(a, h.team_my_pe); /* what every member reduces, here */
    reduce_units_t units = reduce_units<T>(mine, a.dst, a.bytes);
    size_t begin, end;
    coll_share(units.total, gridDim.x, blockIdx.x, 1, &begin, &end);
    if (two_shot) {
        size_t first, last;
        coll_share(end - begin, h.team_size, h.team_my_pe, 1, &first, &last);
        end = begin + last;
        begin += first;
    }
    /* One-shot in place overwrites src that peers still load: the stores of each stage wait
     * until every member has loaded it. Not so for reduce_scatter, where only this PE loads
     * its own block of src. */
    const bool stage_sync =
        !two_shot && a.collective == SYMCOLL_COLL_REDUCE && a.src == a.dst && h.team_size > 1;
    if (!symcoll_dev_sync_slot(h, blockIdx.x, a.collective))
        return;
    for (size_t base = begin; base < end; base += REDUCE_STAGE * blockDim.x) {
        coll_lanes<T, Op, uint4> acc[REDUCE_STAGE];
        size_t offset[REDUCE_STAGE];
        bool vector[REDUCE_STAGE], valid[REDUCE_STAGE];
#pragma unroll
        for (int k = 0; k < REDUCE_STAGE; k++) {
            size_t i = base + k * blockDim.x + threadIdx.x;
            valid[k] = i < end;
            offset[k] = reduce_unit_offset<T>(units, i, &vector[k]);
        }
        for (int m = 0; m < h.team_size; m++) {
            const char *src = coll_member_ptr(h, mine, m);
            uint4 x[REDUCE_STAGE];
#pragma unroll
            for (int k = 0; k < REDUCE_STAGE; k++)
                if (valid[k])
                    x[k] = reduce_load<T>(src + offset[k], vector[k]);
#pragma unroll
            for (int k = 0; k < REDUCE_STAGE; k++)
                if (valid[k])
                    acc[k].add(x[k], m == 0);
        }
        if (stage_sync && !symcoll_dev_sync_slot(h, blockIdx.x, a.collective))
            return;
        /* one_shot: this PE's dst; two_shot: every member's, starting at one that depends on
         * the block. */
        for (int step = 0; step < (two_shot ? h.team_size : 1); step++) {
            int member = two_shot ? coll_member_after(h, step + blockIdx.x) : h.team_my_pe;
            char *dst = coll_member_ptr(h, a.dst, member);
#pragma unroll
            for (int k = 0; k < REDUCE_STAGE; k++)
                if (valid[k])
                    reduce_store<T>(dst + offset[k], acc[k].result(), vector[k]);
        }
    }
    symcoll_dev_sync_slot_final(h, blockIdx.x, a.collective);
}

static_assert((int)SYMCOLL_REDUCE_SCATTER_LL == (int)SYMCOLL_REDUCE_LL &&
                  (int)SYMCOLL_REDUCE_SCATTER_ONE_SHOT == (int)SYMCOLL_REDUCE_ONE_SHOT,
              "reduce_scatter's algorithms are reduce's, by index");

template <typename T, typename Op>
static __global__ void COLL_LAUNCH_BOUNDS reduce_kernel(symcoll_coll_args_t a) {
    if (a.algo == SYMCOLL_REDUCE_LL)
        reduce_ll<T, Op>(a);
    else
        reduce_bw<T, Op>(a,
                         a.collective == SYMCOLL_COLL_REDUCE && a.algo == SYMCOLL_REDUCE_TWO_SHOT);
}

#define REDUCE_COMMON_OPS(T)                                                                       \
    reduce_kernel<T, coll_sum>, reduce_kernel<T, coll_prod>, reduce_kernel<T, coll_min>,           \
        reduce_kernel<T, coll_max>
#define REDUCE_INTEGER_OPS(T)                                                                      \
    {                                                                                              \
        REDUCE_COMMON_OPS(T), reduce_kernel<T, coll_and>, reduce_kernel<T, coll_or>,               \
            reduce_kernel<T, coll_xor>                                                             \
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
