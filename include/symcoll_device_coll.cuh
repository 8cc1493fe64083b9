/* symcoll device collectives: barrier, broadcast, reduce (every PE gets the result),
 * reduce_scatter, fcollect and alltoall inside user kernels, at warp, block and grid scope,
 * and tile building blocks for fused kernels (below).
 * Header-only, no relocatable device code, C++17. They run the same device functions as the
 * host-launched collectives (include/symcoll/detail): there is one copy of each algorithm.
 *
 *   symcoll_dev_<collective>_<scope>(h, ...)   scope: warp, block or grid
 *
 * h is the team's handle (symcoll_device_handle, by value); dst and src are symmetric
 * addresses of this PE; every team PE makes the same calls in the same order, with the same
 * count (and root), and a call returns once this PE's dst holds the result, for every thread of
 * the scope. As for the host calls, broadcast and reduce may run in place (dst == src), and
 * reduce_scatter with dst block my_pe of src; the dst and src of fcollect and alltoall must
 * not overlap. Counts are elements:
 *   broadcast       count elements of root's src (root a team PE) into every dst
 *   reduce          count elements of every src, reduced with OP into every dst
 *   reduce_scatter  dst: count elements, the reduction of block my_pe (count elements) of
 *                   every src
 *   fcollect        src: count elements; dst: team size blocks of count, in team PE order
 *   alltoall        src and dst: team size blocks of count; block j of src goes to block
 *                   my_pe of PE j's dst
 * T is any type of the host API (int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t,
 * __half, __nv_bfloat16, float, double) and OP any symcoll_op_t that the host API allows
 * for it (bitwise ops on integers only). Results are bit-identical to the host calls'.
 *
 * Scopes, and who may call at once:
 *   warp   every thread of one warp calls (a partial last warp of a block included); LL
 *          packets through the team's scratch, sized for latency: a few microseconds up to
 *          a few KiB per PE, 8 KiB per peer a round beyond.
 *   block  every thread of one block calls; the same algorithm with the block's threads.
 *   grid   every thread of every block of the kernel calls. At most SYMCOLL_MAX_BLOCKS
 *          blocks, all resident at once, as for any grid whose blocks wait (symcoll_device.cuh:
 *          where PEs share a GPU, at most symcoll_gpu_sharing()'s sm_share blocks, two of
 *          which fit one SM). A plain launch will do: the blocks meet on a word of the team's
 *          area, not through a cooperative launch (which under MPS kept the kernels of PEs
 *          sharing a GPU from running side by side). Blocks split the data and move it
 *          straight to or from peer memory at 16-byte accesses: the bandwidth algorithms of
 *          the host calls. One grid-scope call of a team at a time per PE, and the same
 *          number of blocks on every PE (their slots and shares of the data must match).
 *   Per team and PE, at most one warp or block is inside a warp- or block-scope collective
 *   or device barrier at a time (they share the team's slot 0 and its barrier slot), and
 *   no host-launched collective of the team runs concurrently with the kernel: order them
 *   on one stream. Calls by different warps or blocks of one kernel must be ordered by the
 *   caller (__syncthreads, or a grid-scope call between them).
 *
 * Each call returns false (in every thread of its scope) when a wait timed out or found the
 * team already broken (a wait looks at the team's record only once it has polled a while:
 * symcoll_dev_team_broken asks at once), or at once when a member of the team is not
 * load/store reachable (a team across nodes); the caller must then leave the kernel, and the host
 * reports SYMCOLL_ERROR_TIMEOUT for the team, naming the collective and the missing PE. */
#ifndef SYMCOLL_DEVICE_COLL_CUH
#define SYMCOLL_DEVICE_COLL_CUH

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "symcoll_device_coll.cuh needs C++17 (nvcc -std=c++17, the default since CUDA 12)"
#endif

#include "symcoll/detail/coll_move.cuh"
#include "symcoll/detail/coll_reduce.cuh"

/* ---- the scopes as groups ---- */

/* The calling block as part of a grid-scope call: part (linear block index) of the grid. */
SYMCOLL_DEV symcoll_dev_group_t symcoll_dev_grid_group(void) {
    unsigned part = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned parts = gridDim.x * gridDim.y * gridDim.z;
    return {symcoll_dev_block_rank(), symcoll_dev_block_size(), part, parts, part, false, true};
}

/* The op OP as the algorithms' accumulator functor; void where OP is not defined for T. */
template <typename T, symcoll_op_t OP> struct symcoll_dev_op { typedef void type; };
template <typename T> struct symcoll_dev_op<T, SYMCOLL_SUM> { typedef symcoll_coll_sum type; };
template <typename T> struct symcoll_dev_op<T, SYMCOLL_PROD> { typedef symcoll_coll_prod type; };
template <typename T> struct symcoll_dev_op<T, SYMCOLL_MIN> { typedef symcoll_coll_min type; };
template <typename T> struct symcoll_dev_op<T, SYMCOLL_MAX> { typedef symcoll_coll_max type; };
template <typename T, bool = std::is_integral<T>::value> struct symcoll_dev_bitwise {
    typedef void and_op, or_op, xor_op;
};
template <typename T> struct symcoll_dev_bitwise<T, true> {
    typedef symcoll_coll_and and_op;
    typedef symcoll_coll_or or_op;
    typedef symcoll_coll_xor xor_op;
};
template <typename T> struct symcoll_dev_op<T, SYMCOLL_AND> {
    typedef typename symcoll_dev_bitwise<T>::and_op type;
};
template <typename T> struct symcoll_dev_op<T, SYMCOLL_OR> {
    typedef typename symcoll_dev_bitwise<T>::or_op type;
};
template <typename T> struct symcoll_dev_op<T, SYMCOLL_XOR> {
    typedef typename symcoll_dev_bitwise<T>::xor_op type;
};

template <typename T> struct symcoll_dev_type {
    static const bool valid = std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                              std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                              std::is_same<T, int64_t>::value || std::is_same<T, uint64_t>::value ||
                              std::is_same<T, __half>::value ||
                              std::is_same<T, __nv_bfloat16>::value ||
                              std::is_same<T, float>::value || std::is_same<T, double>::value;
};
#define SYMCOLL_DEV_CHECK_TYPE(T)                                                                  \
    static_assert(symcoll_dev_type<T>::valid, "T must be a datatype of the host API")
#define SYMCOLL_DEV_CHECK_OP(T, OP)                                                                \
    static_assert(!std::is_void<typename symcoll_dev_op<T, OP>::type>::value,                      \
                  "OP is not defined for T (bitwise ops take integer types)")

/* ---- one call, any scope ---- */

/* The arguments of one call, as the host kernels get them. */
SYMCOLL_DEV symcoll_coll_args_t symcoll_dev_coll_args(const symcoll_device_t &h, void *dst,
                                                      const void *src, size_t bytes, int root,
                                                      int collective) {
    symcoll_coll_args_t a;
    a.h = h;
    a.dst = (char *)dst;
    a.src = (const char *)src;
    a.bytes = bytes;
    a.root = root;
    a.algo = 0;
    a.collective = collective;
    return a;
}

/* The grid word (this PE's own, in the team's area): arrivals in bits 0-23, bit 24 set by a
 * block that arrives failing, bit 25 the verdict of the last generation (some block failed),
 * the generation from bit 32. */
#define SYMCOLL_DEV_GRID_ARRIVALS 0xffffffull
#define SYMCOLL_DEV_GRID_FAILING (1ull << 24)
#define SYMCOLL_DEV_GRID_FAILED (1ull << 25)

/* The blocks of this PE's kernel meet (a grid sync) and agree on ok: true in every thread of
 * every block when every block came with ok. Each block's thread 0 adds an arrival (a failing
 * block first sets the failing bit); the last to arrive writes the next generation with the
 * verdict, which the others wait for: no other write reaches the word until every block has
 * seen that one. What a block wrote before is visible to every block after (device-scope
 * fences on both sides). The verdict travels in the word so that no block reads the
 * host-mapped timeout record on the way (each such read crosses PCIe: one per warp of 128
 * blocks made a call take 2 ms). The grid's blocks must all be resident, as for any grid whose
 * blocks wait; no cooperative launch is needed (under MPS, cooperative kernels of PEs that
 * share a GPU did not run side by side). False in the whole block on timeout. */
SYMCOLL_DEV bool symcoll_dev_grid_sync(const symcoll_device_t &h, const symcoll_dev_group_t &g,
                                       int collective, bool ok) {
    unsigned long long *word =
        (unsigned long long *)(h.team_sync + SYMCOLL_SYNC_GRID_OFF(h.team_size));
    ok = __syncthreads_and(ok);
    if (g.lane == 0) {
        __threadfence();
        if (!ok)
            atomicOr(word, SYMCOLL_DEV_GRID_FAILING);
        uint64_t old = atomicAdd(word, 1ull);
        if ((old & SYMCOLL_DEV_GRID_ARRIVALS) + 1 == g.parts) {
            ok = ok && !(old & SYMCOLL_DEV_GRID_FAILING);
            atomicExch(word, ((old >> 32) + 1) << 32 | (ok ? 0 : SYMCOLL_DEV_GRID_FAILED));
        } else {
            uint64_t start = 0, now;
            for (uint32_t polls = 1; (now = *(volatile uint64_t *)word) >> 32 == old >> 32; polls++)
                if ((polls & 1023) == 0 &&
                    symcoll_dev_wait_expired(h, &start, collective, -1, old >> 32)) {
                    now = SYMCOLL_DEV_GRID_FAILED;
                    break;
                }
            ok = ok && !(now & SYMCOLL_DEV_GRID_FAILED);
        }
        __threadfence();
    }
    return __syncthreads_and(g.lane != 0 || ok);
}

/* Whether every member of the team is load/store reachable: a team across nodes is refused
 * (false) rather than faulting on a peer that is not mapped. */
SYMCOLL_DEV bool symcoll_dev_team_mapped(const symcoll_device_t &h) {
    for (int i = 0; i < h.team_size; i++)
        if (!symcoll_dev_reachable(h, symcoll_dev_team_to_world(h, i)))
            return false;
    return true;
}

/* Before the algorithm: every thread of the scope has written its src and is done reading
 * the previous call's results; a call refuses a team with a member it cannot reach and a grid
 * past the synchronization slots. */
SYMCOLL_DEV bool symcoll_dev_coll_enter(const symcoll_device_t &h, const symcoll_dev_group_t &g,
                                        int collective) {
    if (!symcoll_dev_team_mapped(h))
        return false;
    if (g.parts == 1) {
        symcoll_dev_group_sync(g);
        return true;
    }
    return g.parts <= SYMCOLL_MAX_BLOCKS && symcoll_dev_grid_sync(h, g, collective, true);
}

/* After the algorithm: the whole group is done, and the LL epoch that lane 0 recorded last is
 * visible to every thread of the block, whichever group of it calls next; after a grid call,
 * every block's part is in dst before any thread reads it, and the call is false in every
 * block when any block's wait failed (the team's record is then set). */
SYMCOLL_DEV bool symcoll_dev_coll_leave(const symcoll_device_t &h, const symcoll_dev_group_t &g,
                                        int collective, bool ok) {
    if (g.parts == 1) {
        symcoll_dev_group_sync(g);
        return ok;
    }
    return symcoll_dev_grid_sync(h, g, collective, ok);
}

/* broadcast, fcollect and alltoall: LL for one group, otherwise push (pull for a broadcast,
 * which spreads the root's reads over the readers). */
SYMCOLL_DEV bool symcoll_dev_coll_move(const symcoll_dev_group_t &g, const symcoll_coll_args_t &a,
                                       symcoll_flow_t flow) {
    if (!symcoll_dev_coll_enter(a.h, g, a.collective))
        return false;
    bool ok = g.parts == 1 ? symcoll_coll_move_ll(g, a, flow)
                           : symcoll_coll_move_bw(g, a, flow, flow != SYMCOLL_FLOW_ONE_TO_ALL);
    return symcoll_dev_coll_leave(a.h, g, a.collective, ok);
}

/* Grid-scope reduces at and beyond this many bytes run two_shot (each member reduces a share
 * and stores it everywhere), below it one_shot. */
#define SYMCOLL_DEV_TWO_SHOT_BYTES (256 * 1024)

template <typename T, symcoll_op_t OP>
SYMCOLL_DEV bool symcoll_dev_coll_reduce(const symcoll_dev_group_t &g,
                                         const symcoll_coll_args_t &a) {
    typedef typename symcoll_dev_op<T, OP>::type Op;
    if (!symcoll_dev_coll_enter(a.h, g, a.collective))
        return false;
    bool two_shot = a.collective == SYMCOLL_COLL_REDUCE && a.h.team_size > 1 &&
                    a.bytes >= SYMCOLL_DEV_TWO_SHOT_BYTES;
    bool ok = g.parts == 1 ? symcoll_coll_reduce_ll<T, Op>(g, a)
                           : symcoll_coll_reduce_bw<T, Op>(g, a, two_shot);
    return symcoll_dev_coll_leave(a.h, g, a.collective, ok);
}

/* ---- the collectives at each scope ---- */

#define SYMCOLL_DEV_SCOPES(X) X(warp) X(block) X(grid)

#define SYMCOLL_DEV_SCOPED(scope)                                                                  \
    template <typename T>                                                                          \
    SYMCOLL_DEV bool symcoll_dev_broadcast_##scope(const symcoll_device_t &h, T *dst,              \
                                                   const T *src, size_t count, int root) {         \
        SYMCOLL_DEV_CHECK_TYPE(T);                                                                 \
        if (root < 0 || root >= h.team_size)                                                       \
            return false;                                                                          \
        return symcoll_dev_coll_move(                                                              \
            symcoll_dev_##scope##_group(),                                                         \
            symcoll_dev_coll_args(h, dst, src, count * sizeof(T), root, SYMCOLL_COLL_BROADCAST),   \
            SYMCOLL_FLOW_ONE_TO_ALL);                                                              \
    }                                                                                              \
    template <typename T>                                                                          \
    SYMCOLL_DEV bool symcoll_dev_fcollect_##scope(const symcoll_device_t &h, T *dst, const T *src, \
                                                  size_t count) {                                  \
        SYMCOLL_DEV_CHECK_TYPE(T);                                                                 \
        return symcoll_dev_coll_move(                                                              \
            symcoll_dev_##scope##_group(),                                                         \
            symcoll_dev_coll_args(h, dst, src, count * sizeof(T), 0, SYMCOLL_COLL_FCOLLECT),       \
            SYMCOLL_FLOW_GATHER);                                                                  \
    }                                                                                              \
    template <typename T>                                                                          \
    SYMCOLL_DEV bool symcoll_dev_alltoall_##scope(const symcoll_device_t &h, T *dst, const T *src, \
                                                  size_t count) {                                  \
        SYMCOLL_DEV_CHECK_TYPE(T);                                                                 \
        return symcoll_dev_coll_move(                                                              \
            symcoll_dev_##scope##_group(),                                                         \
            symcoll_dev_coll_args(h, dst, src, count * sizeof(T), 0, SYMCOLL_COLL_ALLTOALL),       \
            SYMCOLL_FLOW_EXCHANGE);                                                                \
    }                                                                                              \
    template <typename T, symcoll_op_t OP>                                                         \
    SYMCOLL_DEV bool symcoll_dev_reduce_##scope(const symcoll_device_t &h, T *dst, const T *src,   \
                                                size_t count) {                                    \
        SYMCOLL_DEV_CHECK_TYPE(T);                                                                 \
        SYMCOLL_DEV_CHECK_OP(T, OP);                                                               \
        return symcoll_dev_coll_reduce<T, OP>(                                                     \
            symcoll_dev_##scope##_group(),                                                         \
            symcoll_dev_coll_args(h, dst, src, count * sizeof(T), 0, SYMCOLL_COLL_REDUCE));        \
    }                                                                                              \
    template <typename T, symcoll_op_t OP>                                                         \
    SYMCOLL_DEV bool symcoll_dev_reduce_scatter_##scope(const symcoll_device_t &h, T *dst,         \
                                                        const T *src, size_t count) {              \
        SYMCOLL_DEV_CHECK_TYPE(T);                                                                 \
        SYMCOLL_DEV_CHECK_OP(T, OP);                                                               \
        return symcoll_dev_coll_reduce<T, OP>(                                                     \
            symcoll_dev_##scope##_group(), symcoll_dev_coll_args(h, dst, src, count * sizeof(T),   \
                                                                 0, SYMCOLL_COLL_REDUCE_SCATTER)); \
    }
SYMCOLL_DEV_SCOPES(SYMCOLL_DEV_SCOPED)
#undef SYMCOLL_DEV_SCOPED

/* ---- tile building blocks for fused kernels ----
 *
 * Block-scope calls that many blocks of one kernel make at once, each on its own tile: a GEMM
 * epilogue reduces or gathers its output tile across the team without leaving the kernel.
 * slot (0 .. SYMCOLL_MAX_BLOCKS - 1) is the team synchronization slot the block uses: blocks
 * that run at once use different slots, and each slot sees the same sequence of calls on
 * every PE (for example slot = blockIdx.x of a grid of at most SYMCOLL_MAX_BLOCKS blocks,
 * all resident, each walking its tiles in the same order on every PE). The slots are those of
 * the grid-scope collectives and host-launched collectives, which must not run concurrently
 * with the kernel. Each call synchronizes the block's slot with the team on entry (every PE's
 * src is ready) and on exit (every PE is done reading this PE's src). False on timeout, for
 * a slot out of range, or for a team with a member that is not load/store reachable. */

/* The calling block on slot `slot`. */
SYMCOLL_DEV symcoll_dev_group_t symcoll_dev_tile_group(int slot) {
    return {symcoll_dev_block_rank(), symcoll_dev_block_size(), 0, 1, (unsigned)slot, false, true};
}

/* A tile reduce-scatter: src holds team size blocks of count elements (the tile, symmetric);
 * dst (count elements, symmetric) gets op over block my_pe of every PE's src. */
template <typename T, symcoll_op_t OP>
SYMCOLL_DEV bool symcoll_dev_tile_reduce_scatter_block(const symcoll_device_t &h, T *dst,
                                                       const T *src, size_t count, int slot) {
    SYMCOLL_DEV_CHECK_TYPE(T);
    SYMCOLL_DEV_CHECK_OP(T, OP);
    if (slot < 0 || slot >= SYMCOLL_MAX_BLOCKS || !symcoll_dev_team_mapped(h))
        return false;
    __syncthreads();
    return symcoll_coll_reduce_bw<T, typename symcoll_dev_op<T, OP>::type>(
        symcoll_dev_tile_group(slot),
        symcoll_dev_coll_args(h, dst, src, count * sizeof(T), 0, SYMCOLL_COLL_REDUCE_SCATTER),
        false);
}

/* A tile all-gather: dst (team size blocks of count elements, symmetric) gets every PE's src
 * (count elements, symmetric) in team PE order; each PE writes its block into every dst. */
template <typename T>
SYMCOLL_DEV bool symcoll_dev_tile_all_gather_block(const symcoll_device_t &h, T *dst, const T *src,
                                                   size_t count, int slot) {
    SYMCOLL_DEV_CHECK_TYPE(T);
    if (slot < 0 || slot >= SYMCOLL_MAX_BLOCKS || !symcoll_dev_team_mapped(h))
        return false;
    __syncthreads();
    return symcoll_coll_move_bw(
        symcoll_dev_tile_group(slot),
        symcoll_dev_coll_args(h, dst, src, count * sizeof(T), 0, SYMCOLL_COLL_FCOLLECT),
        SYMCOLL_FLOW_GATHER, true);
}

/* A reduce-then-copy: dst (rows x cols elements at a row stride of ld elements, any memory of
 * this GPU: the tile's place in the output matrix) gets op over every PE's src (the tile,
 * rows x cols contiguous elements, symmetric): an all-reduce of a tile in one pass. */
template <typename T, symcoll_op_t OP>
SYMCOLL_DEV bool symcoll_dev_tile_reduce_copy_block(const symcoll_device_t &h, T *dst, size_t ld,
                                                    const T *src, size_t rows, size_t cols,
                                                    int slot) {
    SYMCOLL_DEV_CHECK_TYPE(T);
    SYMCOLL_DEV_CHECK_OP(T, OP);
    if (slot < 0 || slot >= SYMCOLL_MAX_BLOCKS || !symcoll_dev_team_mapped(h))
        return false;
    __syncthreads();
    return symcoll_coll_reduce_copy<T, typename symcoll_dev_op<T, OP>::type>(
        symcoll_dev_tile_group(slot), h, dst, ld, src, rows, cols, SYMCOLL_COLL_REDUCE);
}

/* symcoll_dev_barrier (symcoll_device.cuh) under the scoped name. */
SYMCOLL_DEV bool symcoll_dev_barrier_block(const symcoll_device_t &h) {
    return symcoll_dev_barrier(h);
}

/* The team barrier for every thread of the kernel (its blocks all resident, as for the
 * grid-scope collectives, of any number of blocks): includes a quiet of every block's puts.
 * Block 0 meets the team on the device barrier's slot (symcoll_dev_barrier) between two grid
 * syncs. */
SYMCOLL_DEV bool symcoll_dev_barrier_grid(const symcoll_device_t &h) {
    symcoll_dev_group_t g = symcoll_dev_grid_group();
    bool ok = symcoll_dev_grid_sync(h, g, SYMCOLL_COLL_DEVICE_API, true);
    ok = ok && (g.part != 0 || symcoll_dev_barrier(h));
    return symcoll_dev_grid_sync(h, g, SYMCOLL_COLL_DEVICE_API, ok);
}

#endif
