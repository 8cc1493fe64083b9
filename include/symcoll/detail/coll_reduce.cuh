/* Internal, not API: the reduction algorithms, for the library's reduce kernels and the device
 * API's collectives. reduce: every member's dst = op over the members' src, combined in team PE
 * order, so that every PE gets the same bits; reduce_scatter (args.collective): member m's dst
 * is the reduction of block m of every member's src, args.bytes the block.
 * ll: every PE sends its src (reduce_scatter: block m to member m) to every peer's scratch
 * and reduces what it receives.
 * one_shot: every PE loads every member's src (reduce_scatter: their block of this PE) and
 * writes its own dst.
 * two_shot (reduce only): member c reduces chunk c of each group's part and stores it into
 * every member's dst (in place is safe: chunk c of any src is only read by member c, before
 * it stores). */
#ifndef SYMCOLL_DETAIL_COLL_REDUCE_CUH
#define SYMCOLL_DETAIL_COLL_REDUCE_CUH

#include "symcoll/detail/coll_ll.cuh"
#include "symcoll/detail/reduce_ops.cuh"

/* Units each thread holds in registers between its loads and its stores. */
#define SYMCOLL_REDUCE_STAGE 4

/* Member m's part of src in a reduction: all of it for reduce, block m for reduce_scatter. */
SYMCOLL_DEV const char *symcoll_coll_reduce_src_of(const symcoll_coll_args_t &a, int m) {
    return a.collective == SYMCOLL_COLL_REDUCE_SCATTER ? a.src + (size_t)m * a.bytes : a.src;
}

template <typename T, typename Op>
SYMCOLL_DEV bool symcoll_coll_reduce_ll(const symcoll_dev_group_t &g,
                                        const symcoll_coll_args_t &a) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe;
    const char *mine = symcoll_coll_reduce_src_of(a, me);
    uint64_t epoch = symcoll_coll_ll_epoch(g, h);
    for (size_t round = 0, rounds = symcoll_coll_ll_rounds(g, a.bytes); round < rounds; round++) {
        size_t offset, len;
        symcoll_coll_ll_round(g, a.bytes, round, &epoch, &offset, &len);
        bool ok = true;
        for (int step = 1; ok && step < h.team_size; step++) {
            int m = symcoll_coll_member_after(h, step);
            ok = symcoll_coll_ll_send(g, h, m, epoch, symcoll_coll_reduce_src_of(a, m) + offset,
                                      len, a.collective);
        }
        for (size_t w = g.lane; ok && w * 8 < len; w += g.lanes) {
            symcoll_coll_lanes<T, Op, uint64_t> acc;
            for (int m = 0; ok && m < h.team_size; m++) {
                uint64_t word = 0;
                if (m == me)
                    word = symcoll_coll_load_word(mine + offset + 8 * w, len - 8 * w);
                else
                    ok = symcoll_coll_ll_recv_word(g, h, m, epoch, w, &word, a.collective);
                acc.add(word, m == 0);
            }
            if (ok)
                symcoll_coll_store_word(a.dst + offset + 8 * w, acc.result(), len - 8 * w);
        }
        if (!symcoll_coll_ll_ack(g, h, epoch, ok))
            return false;
    }
    symcoll_coll_ll_finish(g, h, epoch);
    return true;
}

/* The message as units, each reduced by one thread: single elements up to src's first 16-byte
 * boundary, 16-byte vectors, then single elements again; all single when dst and src are not
 * aligned alike. */
typedef struct {
    size_t head, vectors, total;
} symcoll_coll_reduce_units_t;

template <typename T>
SYMCOLL_DEV symcoll_coll_reduce_units_t symcoll_coll_reduce_units(const char *src, const char *dst,
                                                                  size_t bytes) {
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
SYMCOLL_DEV size_t symcoll_coll_reduce_unit_offset(const symcoll_coll_reduce_units_t &u, size_t i,
                                                   bool *vector) {
    *vector = i >= u.head && i < u.head + u.vectors;
    if (*vector)
        return u.head * sizeof(T) + (i - u.head) * 16;
    return i < u.head ? i * sizeof(T) : (i - u.vectors) * sizeof(T) + u.vectors * 16;
}

template <typename T> SYMCOLL_DEV uint4 symcoll_coll_reduce_load(const char *p, bool vector) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (vector) {
        v = *(const uint4 *)p;
    } else {
        T x = *(const T *)p;
        memcpy(&v, &x, sizeof x);
    }
    return v;
}

template <typename T>
SYMCOLL_DEV void symcoll_coll_reduce_store(char *p, const uint4 &v, bool vector) {
    if (vector) {
        *(uint4 *)p = v;
    } else {
        T x;
        memcpy(&x, &v, sizeof x);
        *(T *)p = x;
    }
}

/* one_shot and two_shot: group b owns part b of the units on every PE, between the entry and
 * the exit sync of slot b. */
template <typename T, typename Op>
SYMCOLL_DEV bool symcoll_coll_reduce_bw(const symcoll_dev_group_t &g, const symcoll_coll_args_t &a,
                                        bool two_shot) {
    const symcoll_device_t &h = a.h;
    const char *mine =
        symcoll_coll_reduce_src_of(a, h.team_my_pe); /* what every member reduces, here */
    symcoll_coll_reduce_units_t units = symcoll_coll_reduce_units<T>(mine, a.dst, a.bytes);
    size_t begin, end;
    symcoll_coll_share(units.total, g.parts, g.part, 1, &begin, &end);
    if (two_shot) {
        size_t first, last;
        symcoll_coll_share(end - begin, h.team_size, h.team_my_pe, 1, &first, &last);
        end = begin + last;
        begin += first;
    }
    /* One-shot in place overwrites src that peers still load: the stores of each stage wait
     * until every member has loaded it. Not so for reduce_scatter, where only this PE loads
     * its own block of src. */
    const bool stage_sync =
        !two_shot && a.collective == SYMCOLL_COLL_REDUCE && a.src == a.dst && h.team_size > 1;
    if (!symcoll_dev_group_sync_slot(h, g, g.slot, a.collective, true, true))
        return false;
    for (size_t base = begin; base < end; base += SYMCOLL_REDUCE_STAGE * g.lanes) {
        symcoll_coll_lanes<T, Op, uint4> acc[SYMCOLL_REDUCE_STAGE];
        size_t offset[SYMCOLL_REDUCE_STAGE];
        bool vector[SYMCOLL_REDUCE_STAGE], valid[SYMCOLL_REDUCE_STAGE];
#pragma unroll
        for (int k = 0; k < SYMCOLL_REDUCE_STAGE; k++) {
            size_t i = base + k * g.lanes + g.lane;
            valid[k] = i < end;
            offset[k] = symcoll_coll_reduce_unit_offset<T>(units, i, &vector[k]);
        }
        for (int m = 0; m < h.team_size; m++) {
            const char *src = symcoll_coll_member_ptr(h, mine, m);
            uint4 x[SYMCOLL_REDUCE_STAGE];
#pragma unroll
            for (int k = 0; k < SYMCOLL_REDUCE_STAGE; k++)
                if (valid[k])
                    x[k] = symcoll_coll_reduce_load<T>(src + offset[k], vector[k]);
#pragma unroll
            for (int k = 0; k < SYMCOLL_REDUCE_STAGE; k++)
                if (valid[k])
                    acc[k].add(x[k], m == 0);
        }
        if (stage_sync && !symcoll_dev_group_sync_slot(h, g, g.slot, a.collective, true, true))
            return false;
        /* one_shot: this PE's dst; two_shot: every member's, starting at one that depends on
         * the group. */
        for (int step = 0; step < (two_shot ? h.team_size : 1); step++) {
            int member = two_shot ? symcoll_coll_member_after(h, step + g.slot) : h.team_my_pe;
            char *dst = symcoll_coll_member_ptr(h, a.dst, member);
#pragma unroll
            for (int k = 0; k < SYMCOLL_REDUCE_STAGE; k++)
                if (valid[k])
                    symcoll_coll_reduce_store<T>(dst + offset[k], acc[k].result(), vector[k]);
        }
    }
    return symcoll_dev_group_sync_slot(h, g, g.slot, a.collective, true, g.reads_after);
}

/* reduce_copy: dst (rows x cols elements at a row stride of ld elements, any memory of this PE)
 * gets op over every member's src (rows x cols, contiguous, symmetric), combined in team PE
 * order, between an entry and an exit sync of the group's slot: the one-shot reduction of a
 * fused kernel's output tile, written straight into its place in a matrix. 16-byte accesses
 * when the rows and both buffers allow them. */
template <typename T, typename Op>
SYMCOLL_DEV bool symcoll_coll_reduce_copy(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                          T *dst, size_t ld, const T *src, size_t rows, size_t cols,
                                          int collective) {
    if (!symcoll_dev_group_sync_slot(h, g, g.slot, collective, true, true))
        return false;
    const size_t per_vector = 16 / sizeof(T);
    if (cols % per_vector == 0 && ld % per_vector == 0 && (uintptr_t)dst % 16 == 0 &&
        (uintptr_t)src % 16 == 0) {
        const size_t row_vectors = cols / per_vector;
        for (size_t i = g.lane; i < rows * row_vectors; i += g.lanes) {
            symcoll_coll_lanes<T, Op, uint4> acc;
            for (int m = 0; m < h.team_size; m++)
                acc.add(((const uint4 *)symcoll_coll_member_ptr(h, src, m))[i], m == 0);
            ((uint4 *)(dst + i / row_vectors * ld))[i % row_vectors] = acc.result();
        }
    } else {
        for (size_t i = g.lane; i < rows * cols; i += g.lanes) {
            symcoll_coll_lanes<T, Op, T> acc;
            for (int m = 0; m < h.team_size; m++)
                acc.add(symcoll_coll_member_ptr(h, src, m)[i], m == 0);
            dst[i / cols * ld + i % cols] = acc.result();
        }
    }
    return symcoll_dev_group_sync_slot(h, g, g.slot, collective, true, g.reads_after);
}

#endif
