/* symcoll halo exchange inside user kernels: header-only, no relocatable device code.
 *
 * The host passes symcoll_halo_device_handle(plan) by value. A fused stencil kernel sends the
 * cells of a direction as soon as it has computed them (symcoll_dev_halo_send_block), waits
 * for its own halos before it returns (symcoll_dev_halo_wait_block), and may add a few values
 * over the team (symcoll_dev_halo_sum_block), all in the same launch. Each such kernel is one
 * exchange of the plan, counted together with symcoll_halo_exchange_on_stream, so the two may
 * be mixed on one plan.
 *
 * Rules, per kernel and per direction the plan sends toward (symcoll_dev_halo_sends):
 * - exactly one block calls symcoll_dev_halo_send_block and exactly one (the same or another)
 *   calls symcoll_dev_halo_wait_block; every team PE does the same number of exchanges;
 * - a block must not wait for a direction before its own sends of the kernel are issued (a
 *   send waits only for the neighbour to enter the kernel, so sends never deadlock);
 * - the kernel must not read the halo of the field it sends: the neighbours write into it;
 * - halos received by one kernel are read by later kernels (a wait completes only the
 *   calling block's view: other blocks see them once the kernel has finished).
 * A send waits until the neighbour has started the same exchange, so it never overwrites
 * cells that the neighbour's earlier kernels still read (the credit). Waits time out after
 * SYMCOLL_TIMEOUT_MS and return false in every thread of the block; the kernel must then
 * return, and the host reports SYMCOLL_ERROR_TIMEOUT for the team.
 */
#ifndef SYMCOLL_HALO_DEVICE_CUH
#define SYMCOLL_HALO_DEVICE_CUH

#include "symcoll_device.cuh"
#include "symcoll_halo.h"

/* Most values one team sum adds. */
#define SYMCOLL_HALO_SUM_MAX 4
/* Bytes of one slot of the team sum: a flag and SYMCOLL_HALO_SUM_MAX doubles, padded. */
#define SYMCOLL_HALO_SUM_SLOT_BYTES 64

/* ---- directions ---- */

SYMCOLL_DEV int symcoll_dev_halo_dir(int dx, int dy, int dz) {
    return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}
SYMCOLL_DEV int symcoll_dev_halo_opposite(int dir) {
    return SYMCOLL_HALO_DIRS - 1 - dir;
}
/* True when this PE sends toward dir (and receives from it). */
SYMCOLL_DEV bool symcoll_dev_halo_sends(const symcoll_halo_device_t &hh, int dir) {
    return (hh.dirs >> dir) & 1u;
}

/* ---- steps of an exchange, per direction (one thread each; m is hh.msg[dir], or a copy of
 * it in registers or kernel parameters) ---- */

/* Tells the neighbour at dir that this PE entered exchange k: it may write our halo. */
SYMCOLL_DEV void symcoll_dev_halo_arrive(const symcoll_halo_device_t &hh,
                                         const symcoll_halo_msg_t &m, int dir, uint64_t k) {
    if (m.self)
        return;
    uint64_t *flag = hh.arrive + symcoll_dev_halo_opposite(dir);
    symcoll_dev_store_relaxed(symcoll_dev_peer(hh.team, flag, m.pe), k);
}

/* Waits until the neighbour at dir has entered exchange k (our credit to write into it). A
 * neighbour that is this PE has finished its earlier reads in stream order: no wait. */
SYMCOLL_DEV bool symcoll_dev_halo_await_credit(const symcoll_halo_device_t &hh,
                                               const symcoll_halo_msg_t &m, int dir, uint64_t k) {
    return m.self || symcoll_dev_wait_relaxed(hh.team, hh.arrive + dir, SYMCOLL_CMP_GE, k,
                                              SYMCOLL_COLL_HALO, m.pe);
}

/* Tells the neighbour that its halo holds our cells of exchange k, with release semantics:
 * the stores this thread made or has seen (through a block barrier, or a system fence and an
 * atomic from other blocks) are visible to it first. */
SYMCOLL_DEV void symcoll_dev_halo_publish(const symcoll_halo_device_t &hh,
                                          const symcoll_halo_msg_t &m, int dir, uint64_t k) {
    if (m.self)
        return;
    uint64_t *flag = hh.data + symcoll_dev_halo_opposite(dir);
    symcoll_dev_store_release(symcoll_dev_peer(hh.team, flag, m.pe), k);
}

/* Waits until our halo on side dir holds the neighbour's cells of exchange k. With acquire,
 * this thread sees them afterwards; without, only later kernels do (they start with fresh L1
 * caches, and the sender's release put the cells in our memory before the flag). */
SYMCOLL_DEV bool symcoll_dev_halo_await_data(const symcoll_halo_device_t &hh,
                                             const symcoll_halo_msg_t &m, int dir, uint64_t k,
                                             bool acquire) {
    return m.self || symcoll_dev_wait_impl(hh.team, hh.data + dir, SYMCOLL_CMP_GE, k,
                                           SYMCOLL_COLL_HALO, m.pe, acquire);
}

/* ---- moving a box of cells ---- */

/* The access width for m on a field at this address: the message's own, capped by the
 * field's alignment. */
SYMCOLL_DEV int symcoll_dev_halo_unit(const symcoll_halo_msg_t &m, const void *field) {
    int unit = m.unit;
    while ((uintptr_t)field & (unsigned)(unit - 1))
        unit >>= 1;
    return unit;
}

/* Units of `unit` bytes in m's box (below 2^32: the plan refuses larger boxes). */
SYMCOLL_DEV uint32_t symcoll_dev_halo_units(const symcoll_halo_msg_t &m, int unit) {
    return m.row_bytes / (uint32_t)unit * m.rows * m.planes;
}

/* Byte offset of unit u (of U) in the box, with the given pitches. */
template <typename U>
SYMCOLL_DEV int64_t symcoll_dev_halo_at(const symcoll_halo_msg_t &m, const int64_t *pitch,
                                        uint32_t u, uint32_t per_row) {
    uint32_t row = u / per_row, col = u - row * per_row;
    uint32_t plane = row / m.rows, y = row - plane * m.rows;
    return (int64_t)plane * pitch[1] + (int64_t)y * pitch[0] + (int64_t)col * sizeof(U);
}

/* Copies units [begin, end) of m's box from src (field + src_offset) to dst (the neighbour's
 * field + dst_offset); every thread of the block calls, thread t of nt. When gated, the first
 * round's loads are issued before thread 0 waits for the credit of exchange k toward dir, so
 * their latency overlaps the neighbour's arrival, and nothing is stored before the credit.
 * The positions count in 64 bits, so that a box of nearly 2^32 units neither wraps around to
 * its start nor loops forever; a unit's own index fits 32 bits. Returns false in every thread
 * when that wait timed out. */
template <typename U>
SYMCOLL_DEV bool symcoll_dev_halo_copy_as(const symcoll_halo_device_t &hh, int dir, uint64_t k,
                                          bool gated, const symcoll_halo_msg_t &m, const char *src,
                                          char *dst, uint64_t begin, uint64_t end, unsigned t,
                                          unsigned nt) {
    uint32_t per_row = m.row_bytes / sizeof(U);
    uint64_t base = begin;
    do { /* at least once, so that a block with no units still passes the gate */
        U v[SYMCOLL_HALO_DEPTH];
#pragma unroll
        for (int j = 0; j < SYMCOLL_HALO_DEPTH; j++) {
            uint64_t u = base + t + (uint64_t)j * nt;
            if (u < end)
                v[j] = *(const U *)(src +
                                    symcoll_dev_halo_at<U>(m, m.src_pitch, (uint32_t)u, per_row));
        }
        if (gated) {
            bool credit = false;
            if (t == 0)
                credit = symcoll_dev_halo_await_credit(hh, m, dir, k);
            if (!__syncthreads_or(credit))
                return false;
            gated = false;
        }
#pragma unroll
        for (int j = 0; j < SYMCOLL_HALO_DEPTH; j++) {
            uint64_t u = base + t + (uint64_t)j * nt;
            if (u < end)
                *(U *)(dst + symcoll_dev_halo_at<U>(m, m.dst_pitch, (uint32_t)u, per_row)) = v[j];
        }
        base += (uint64_t)SYMCOLL_HALO_DEPTH * nt;
    } while (base < end);
    return true;
}

/* Copies units [begin, end) (of `unit` bytes) of m's box of field into the neighbour's halo,
 * as symcoll_dev_halo_copy_as. */
SYMCOLL_DEV bool symcoll_dev_halo_copy(const symcoll_halo_device_t &hh, int dir, uint64_t k,
                                       bool gated, const symcoll_halo_msg_t &m, const void *field,
                                       int unit, uint64_t begin, uint64_t end, unsigned t,
                                       unsigned nt) {
    const char *src = (const char *)field + m.src_offset;
    char *dst = (char *)symcoll_dev_peer(hh.team, (void *)field, m.pe) + m.dst_offset;
    switch (unit) {
    case 16:
        return symcoll_dev_halo_copy_as<uint4>(hh, dir, k, gated, m, src, dst, begin, end, t, nt);
    case 8:
        return symcoll_dev_halo_copy_as<uint2>(hh, dir, k, gated, m, src, dst, begin, end, t, nt);
    case 4:
        return symcoll_dev_halo_copy_as<uint32_t>(hh, dir, k, gated, m, src, dst, begin, end, t,
                                                  nt);
    case 2:
        return symcoll_dev_halo_copy_as<uint16_t>(hh, dir, k, gated, m, src, dst, begin, end, t,
                                                  nt);
    default:
        return symcoll_dev_halo_copy_as<uint8_t>(hh, dir, k, gated, m, src, dst, begin, end, t, nt);
    }
}

/* ==== User-facing calls: every thread of the calling block calls them ==== */

/* Sends field's cells toward dir into the neighbour's halo and signals it: first tells the
 * neighbour that this PE entered the exchange, loads the first cells, waits for the same from
 * the neighbour (the credit), then stores and publishes. Returns false in every thread on
 * timeout. */
SYMCOLL_DEV bool symcoll_dev_halo_send_block(const symcoll_halo_device_t &hh, const void *field,
                                             int dir) {
    const symcoll_halo_msg_t m = hh.msg[dir]; /* in registers: the stores cannot alias it */
    const unsigned t = symcoll_dev_block_rank();
    uint64_t k = hh.send_epoch[dir] + 1;
    if (t == 0)
        symcoll_dev_halo_arrive(hh, m, dir, k);
    int unit = symcoll_dev_halo_unit(m, field);
    if (!symcoll_dev_halo_copy(hh, dir, k, true, m, field, unit, 0, symcoll_dev_halo_units(m, unit),
                               t, symcoll_dev_block_size()))
        return false;
    __syncthreads(); /* the block's stores, carried by the release of the publish */
    if (t == 0) {
        symcoll_dev_halo_publish(hh, m, dir, k);
        hh.send_epoch[dir] = k;
    }
    return true;
}

/* Waits until our halo on side dir holds the neighbour's cells of this exchange; the calling
 * block sees them afterwards. Returns false in every thread on timeout. */
SYMCOLL_DEV bool symcoll_dev_halo_wait_block(const symcoll_halo_device_t &hh, int dir) {
    bool arrived = false;
    if (symcoll_dev_block_rank() == 0) {
        uint64_t k = hh.recv_epoch[dir] + 1;
        arrived = symcoll_dev_halo_await_data(hh, hh.msg[dir], dir, k, true);
        if (arrived)
            hh.recv_epoch[dir] = k;
    }
    return __syncthreads_or(arrived);
}

/* Team sum of n (<= SYMCOLL_HALO_SUM_MAX) doubles: out[i] = sum over the team's PEs of their
 * in[i], in every thread of the calling block. One block per PE calls it per kernel at most,
 * and every team PE calls it the same number of times. in and out may be the same array (in
 * any memory the block can read and write). Returns false in every thread on timeout. */
SYMCOLL_DEV bool symcoll_dev_halo_sum_block(const symcoll_halo_device_t &hh, const double *in,
                                            double *out, int n) {
    __shared__ double total[SYMCOLL_HALO_SUM_MAX];
    const symcoll_device_t &h = hh.team;
    unsigned t = symcoll_dev_block_rank(), nt = symcoll_dev_block_size();
    uint64_t k = *hh.sum_epoch + 1;
    /* Double-buffered by parity: a member writes slot parity k & 1 only after it has read
     * every slot of sum k - 1, which the writer of sum k + 1 has seen (it waited for all). */
    size_t parity = (size_t)(k & 1);
    size_t mine = ((size_t)h.team_my_pe * 2 + parity) * SYMCOLL_HALO_SUM_SLOT_BYTES;
    for (int i = (int)t; i < h.team_size; i += (int)nt) {
        char *slot = symcoll_dev_peer(h, hh.sum_slots + mine, symcoll_dev_team_to_world(h, i));
        double *values = (double *)(slot + 8);
        for (int v = 0; v < n; v++)
            values[v] = in[v];
        symcoll_dev_fence_sys();
        symcoll_dev_store_relaxed((uint64_t *)slot, k);
    }
    bool ok = true;
    for (int i = (int)t; i < h.team_size && ok; i += (int)nt) {
        const char *slot = hh.sum_slots + ((size_t)i * 2 + parity) * SYMCOLL_HALO_SUM_SLOT_BYTES;
        ok = symcoll_dev_wait(h, (const uint64_t *)slot, SYMCOLL_CMP_GE, k, SYMCOLL_COLL_HALO,
                              symcoll_dev_team_to_world(h, i));
    }
    if (!__syncthreads_and(ok))
        return false;
    if (t == 0) {
        /* Adds in member order, so every PE gets the same bits. */
        for (int v = 0; v < n; v++) {
            double sum = 0;
            for (int i = 0; i < h.team_size; i++)
                sum += *(const volatile double *)(hh.sum_slots +
                                                  ((size_t)i * 2 + parity) *
                                                      SYMCOLL_HALO_SUM_SLOT_BYTES +
                                                  8 + 8 * v);
            total[v] = sum;
        }
        *hh.sum_epoch = k;
    }
    __syncthreads();
    for (int v = (int)t; v < n; v += (int)nt)
        out[v] = total[v];
    __syncthreads();
    return true;
}

#endif
