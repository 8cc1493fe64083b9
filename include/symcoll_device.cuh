/* symcoll device API: header-only, for user kernels and the library's own kernels.
 * Needs no relocatable device code: everything here is inline and works on the handle that
 * the host passes by value (symcoll_device_handle(team), symcoll.h).
 *
 * Every function that reaches a peer takes the handle by const reference and addresses WORLD
 * PEs; pe must be load/store reachable (symcoll_dev_reachable), except that put, get and
 * put_signal (every scope) and quiet also reach the PEs of other nodes through this PE's proxy
 * (symcoll_dev_proxied): the call posts a request into a ring in host-mapped memory and waits,
 * a put until its source is staged, a get until its data is in dst. dst of a put, src of a get
 * and signals are symmetric addresses of this PE; the other buffer may be any memory of this
 * GPU. A kernel that waits for what the proxy delivers must leave it room to run: the proxy
 * applies a SIGNAL_ADD with a one-thread kernel of its own (a SIGNAL_SET with a stream memory
 * operation).
 * Scopes: the plain functions are called by one thread; _warp variants by every thread of
 * the warp and _block variants by every thread of the block, with the same arguments. A
 * scoped call returns once the whole group is done with src, so any thread may reuse it.
 *
 * Memory model: puts are plain stores over NVLink: they are visible on pe after a quiet (or
 * a signal, or symcoll_dev_barrier; not symcoll_dev_barrier_relaxed) of the thread or group
 * that issued them. Flags and signals are
 * accessed at system scope. Every wait honours the handle's timeout: on expiry it fills the
 * team's timeout record and returns false, and the caller must leave the kernel (the host
 * then reports SYMCOLL_ERROR_TIMEOUT for the team).
 *
 * Grids that wait: a kernel whose blocks wait for other PEs (a barrier, a signal wait) needs
 * every block of every PE resident at once. On GPUs of their own that is the GPU's size; where
 * PEs share a GPU (several per GPU under MPS), launch at most symcoll_gpu_sharing()'s sm_share
 * blocks (one per SM), give each PE CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100/PEs, and size blocks
 * so that two fit one SM (__launch_bounds__(threads, 2)): the PEs' blocks may share SMs. Else
 * blocks may wait for blocks that never start, until the timeout.
 */
#ifndef SYMCOLL_DEVICE_CUH
#define SYMCOLL_DEVICE_CUH

#include <stdint.h>
#include "symcoll.h"

#define SYMCOLL_DEV static __device__ __forceinline__

/* ---- addressing ---- */

SYMCOLL_DEV int symcoll_dev_team_to_world(const symcoll_device_t &h, int team_pe) {
    return h.team_start + team_pe * h.team_stride;
}

SYMCOLL_DEV bool symcoll_dev_reachable(const symcoll_device_t &h, int pe) {
    return pe >= 0 && pe < h.n_pes && pe < 64 && ((h.reachable >> pe) & 1ull);
}

/* Address of WORLD PE pe's copy of the symmetric address addr (no reachability check). */
template <typename T> SYMCOLL_DEV T *symcoll_dev_peer(const symcoll_device_t &h, T *addr, int pe) {
    return (T *)((char *)addr + (int64_t)(pe - h.my_pe) * (int64_t)h.heap_stride);
}

/* pe's copy of addr, or NULL when pe is not load/store reachable. */
template <typename T> SYMCOLL_DEV T *symcoll_dev_ptr(const symcoll_device_t &h, T *addr, int pe) {
    return symcoll_dev_reachable(h, pe) ? symcoll_dev_peer(h, addr, pe) : (T *)0;
}

/* ---- the team ---- */

/* True once a wait of this team has expired (in this or an earlier kernel). */
SYMCOLL_DEV bool symcoll_dev_team_broken(const symcoll_device_t &h) {
    return h.record->expired != 0;
}

/* The machinery under the functions below (system-scope accesses, waits, synchronization
 * slots); not API. */
#include "symcoll_device_internal.cuh"

/* ---- cooperative copies (lane of lanes threads; any alignment) ---- */

/* Copies bytes (a copy of fewer than 16 bytes) one piece at a time,
 * each the widest of 8, 4, 2 or 1 bytes that the count and both addresses allow: an 8-byte
 * put is one store, not eight. */
SYMCOLL_DEV void symcoll_dev_copy_pieces(char *dst, const char *src, size_t bytes) {
    size_t done = 0;
    while (done < bytes) {
        uintptr_t at = (uintptr_t)(dst + done) | (uintptr_t)(src + done);
        size_t left = bytes - done;
        if (left >= 8 && at % 8 == 0) {
            *(uint64_t *)(dst + done) = *(const uint64_t *)(src + done);
            done += 8;
        } else if (left >= 4 && at % 4 == 0) {
            *(uint32_t *)(dst + done) = *(const uint32_t *)(src + done);
            done += 4;
        } else if (left >= 2 && at % 2 == 0) {
            *(uint16_t *)(dst + done) = *(const uint16_t *)(src + done);
            done += 2;
        } else {
            dst[done] = src[done];
            done += 1;
        }
    }
}

/* Copies with units of V: the bytes before dst's first V and after its last whole V go one
 * byte per lane, ahead of the loop (nothing of them stays live across it), then the Vs, four
 * loads in flight before their stores. dst and src share their alignment modulo sizeof(V).
 * The collectives' kernels copy with this (coll_copy), at 64 registers or fewer, so that two
 * 512-thread blocks of PEs sharing a GPU fit one SM. */
template <typename V>
SYMCOLL_DEV void symcoll_dev_copy_units(char *dst, const char *src, size_t bytes, unsigned lane,
                                        unsigned lanes) {
    size_t head = (sizeof(V) - (uintptr_t)src % sizeof(V)) % sizeof(V);
    head = head < bytes ? head : bytes;
    size_t units = (bytes - head) / sizeof(V), tail = head + units * sizeof(V);
    unsigned head_bytes = (unsigned)head, tail_bytes = (unsigned)(bytes - tail); /* < sizeof(V) */
    for (unsigned b = lane; b < head_bytes; b += lanes)
        dst[b] = src[b];
    for (unsigned b = lane; b < tail_bytes; b += lanes)
        dst[tail + b] = src[tail + b];
    const V *s = (const V *)(src + head);
    V *d = (V *)(dst + head);
    size_t i = lane;
    for (; i + 3 * lanes < units; i += 4 * lanes) {
        V w0 = s[i], w1 = s[i + lanes], w2 = s[i + 2 * lanes], w3 = s[i + 3 * lanes];
        d[i] = w0;
        d[i + lanes] = w1;
        d[i + 2 * lanes] = w2;
        d[i + 3 * lanes] = w3;
    }
    for (; i < units; i += lanes)
        d[i] = s[i];
}

/* Copies bytes with lanes threads at the widest unit that dst and src share modulo 16 (16-byte
 * accesses when they are aligned alike), any length. */
SYMCOLL_DEV void symcoll_dev_copy_wide(char *d, const char *s, size_t bytes, unsigned lane,
                                       unsigned lanes) {
    uintptr_t mismatch = (uintptr_t)d ^ (uintptr_t)s;
    if ((mismatch & 15) == 0)
        symcoll_dev_copy_units<uint4>(d, s, bytes, lane, lanes);
    else if ((mismatch & 7) == 0)
        symcoll_dev_copy_units<unsigned long long>(d, s, bytes, lane, lanes);
    else if ((mismatch & 3) == 0)
        symcoll_dev_copy_units<unsigned int>(d, s, bytes, lane, lanes);
    else if ((mismatch & 1) == 0)
        symcoll_dev_copy_units<unsigned short>(d, s, bytes, lane, lanes);
    else
        symcoll_dev_copy_units<unsigned char>(d, s, bytes, lane, lanes);
}

/* Copies bytes with lanes threads, lane being this thread's index among them: fewer than 16
 * bytes go as pieces by one lane (an 8-byte put is one store), more as symcoll_dev_copy_wide. */
SYMCOLL_DEV void symcoll_dev_copy(void *dst, const void *src, size_t bytes, unsigned lane,
                                  unsigned lanes) {
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (bytes >= 16)
        symcoll_dev_copy_wide(d, s, bytes, lane, lanes);
    else if (lane == 0)
        symcoll_dev_copy_pieces(d, s, bytes);
}

/* ---- warp geometry (partial last warps of odd-sized blocks included) ---- */

SYMCOLL_DEV unsigned symcoll_dev_warp_lane(void) {
    return symcoll_dev_block_rank() & 31;
}
SYMCOLL_DEV unsigned symcoll_dev_warp_size(void) {
    unsigned first = symcoll_dev_block_rank() & ~31u;
    unsigned left = symcoll_dev_block_size() - first;
    return left < 32 ? left : 32;
}
/* The calling warp as a group, reading what it gets in this kernel. */
SYMCOLL_DEV symcoll_dev_group_t symcoll_dev_warp_group(void) {
    return {symcoll_dev_warp_lane(), symcoll_dev_warp_size(), 0, 1, 0, true, true};
}
SYMCOLL_DEV void symcoll_dev_warp_sync(void) {
    symcoll_dev_group_sync(symcoll_dev_warp_group());
}

/* ---- single elements ---- */

/* p: stores value into pe's copy of the symmetric dst. g: loads pe's copy of the symmetric
 * src. Both are volatile (relaxed, system scope) accesses, so p after a quiet may serve as a
 * flag, and g may poll one. */
template <typename T>
SYMCOLL_DEV void symcoll_dev_p(const symcoll_device_t &h, T *dst, T value, int pe) {
    *(volatile T *)symcoll_dev_peer(h, dst, pe) = value;
}
template <typename T> SYMCOLL_DEV T symcoll_dev_g(const symcoll_device_t &h, const T *src, int pe) {
    return *(const volatile T *)symcoll_dev_peer(h, src, pe);
}

/* ---- the proxy's ring (PEs of other nodes) ---- */

/* pe is a PE of another node that this PE's proxy reaches. */
SYMCOLL_DEV bool symcoll_dev_proxied(const symcoll_device_t &h, int pe) {
    return h.proxy_ring.entries && pe >= 0 && pe < h.n_pes && pe != h.my_pe &&
           !symcoll_dev_reachable(h, pe);
}

/* Waits until the proxy's count `word` (SYMCOLL_PROXY_RING_*) reaches ticket. */
SYMCOLL_DEV bool symcoll_dev_proxy_wait(const symcoll_device_t &h, int word, uint64_t ticket,
                                        int pe) {
    return symcoll_dev_wait(h, h.proxy_ring.progress + word, SYMCOLL_CMP_GE, ticket,
                            SYMCOLL_COLL_DEVICE_API, pe);
}

/* Posts a request for pe (remote_offset in its heap, local an address of this GPU) once an
 * entry is free; its ticket (index + 1), 0 when the wait for a free entry timed out. */
SYMCOLL_DEV uint64_t symcoll_dev_proxy_post(const symcoll_device_t &h, int kind, int pe,
                                            uint64_t remote_offset, const void *local, size_t bytes,
                                            const uint64_t *sig, uint64_t value,
                                            symcoll_signal_op_t op) {
    uint64_t ticket = symcoll_dev_proxy_reserve(h, pe, SYMCOLL_COLL_DEVICE_API);
    if (ticket)
        symcoll_dev_proxy_fill(h, ticket, kind, pe, remote_offset, (uint64_t)(uintptr_t)local,
                               bytes, sig, value, op);
    return ticket;
}

/* A put (with a signal where sig is not NULL) through the proxy: returns once src is staged. */
SYMCOLL_DEV void symcoll_dev_proxy_put(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, const uint64_t *sig, uint64_t value,
                                       symcoll_signal_op_t op, int pe) {
    uint64_t ticket = symcoll_dev_proxy_post(h, SYMCOLL_PROXY_RING_PUT, pe,
                                             (uint64_t)((const char *)dst - h.heap_base), src,
                                             bytes, sig, value, op);
    if (ticket)
        symcoll_dev_proxy_wait(h, SYMCOLL_PROXY_RING_STAGED, ticket, pe);
}

/* A get through the proxy: returns once the data is in dst. */
SYMCOLL_DEV void symcoll_dev_proxy_get(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, int pe) {
    uint64_t ticket = symcoll_dev_proxy_post(h, SYMCOLL_PROXY_RING_GET, pe,
                                             (uint64_t)((const char *)src - h.heap_base), dst,
                                             bytes, (const uint64_t *)0, 0, SYMCOLL_SIGNAL_SET);
    if (ticket)
        symcoll_dev_proxy_wait(h, SYMCOLL_PROXY_RING_COMPLETE, ticket, pe);
}

/* ---- put and get ---- */

SYMCOLL_DEV void symcoll_dev_put(const symcoll_device_t &h, void *dst, const void *src,
                                 size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe))
        symcoll_dev_proxy_put(h, dst, src, bytes, (const uint64_t *)0, 0, SYMCOLL_SIGNAL_SET, pe);
    else
        symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, 0, 1);
}
SYMCOLL_DEV void symcoll_dev_put_warp(const symcoll_device_t &h, void *dst, const void *src,
                                      size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        symcoll_dev_warp_sync();
        if (symcoll_dev_warp_lane() == 0)
            symcoll_dev_proxy_put(h, dst, src, bytes, (const uint64_t *)0, 0, SYMCOLL_SIGNAL_SET,
                                  pe);
    } else {
        symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, symcoll_dev_warp_lane(),
                         symcoll_dev_warp_size());
    }
    symcoll_dev_warp_sync();
}
SYMCOLL_DEV void symcoll_dev_put_block(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        __syncthreads();
        if (symcoll_dev_block_rank() == 0)
            symcoll_dev_proxy_put(h, dst, src, bytes, (const uint64_t *)0, 0, SYMCOLL_SIGNAL_SET,
                                  pe);
    } else {
        symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, symcoll_dev_block_rank(),
                         symcoll_dev_block_size());
    }
    __syncthreads();
}

/* Gets complete when they return: dst holds pe's data for every thread of the group. */
SYMCOLL_DEV void symcoll_dev_get(const symcoll_device_t &h, void *dst, const void *src,
                                 size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe))
        symcoll_dev_proxy_get(h, dst, src, bytes, pe);
    else
        symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, 0, 1);
}
SYMCOLL_DEV void symcoll_dev_get_warp(const symcoll_device_t &h, void *dst, const void *src,
                                      size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        if (symcoll_dev_warp_lane() == 0)
            symcoll_dev_proxy_get(h, dst, src, bytes, pe);
    } else {
        symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, symcoll_dev_warp_lane(),
                         symcoll_dev_warp_size());
    }
    symcoll_dev_warp_sync();
}
SYMCOLL_DEV void symcoll_dev_get_block(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        if (symcoll_dev_block_rank() == 0)
            symcoll_dev_proxy_get(h, dst, src, bytes, pe);
    } else {
        symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, symcoll_dev_block_rank(),
                         symcoll_dev_block_size());
    }
    __syncthreads();
}

/* ---- ordering ---- */

/* fence: this thread's puts before it reach every PE before its puts after it, as seen by
 * a PE that acquires (a signal wait, a barrier). quiet: this thread's puts before it are
 * complete and visible to any PE that acquires after observing a later write of this
 * thread. Over load/store paths both are one system-scope fence. Through the proxy, requests
 * to one PE are applied in the order they were posted, so a fence needs nothing more, and a
 * quiet also waits until every request this PE posted before it is complete at its target. */
SYMCOLL_DEV void symcoll_dev_fence(const symcoll_device_t &h) {
    (void)h;
    symcoll_dev_fence_sys();
}
SYMCOLL_DEV void symcoll_dev_quiet(const symcoll_device_t &h) {
    symcoll_dev_fence_sys();
    /* Through the proxy: every request posted so far on this PE is complete at its target. */
    if (h.proxy_ring.entries)
        symcoll_dev_proxy_wait(h, SYMCOLL_PROXY_RING_COMPLETE,
                               symcoll_dev_load_relaxed((const uint64_t *)h.proxy_ring.reserved),
                               -1);
}

/* ---- signals ---- */

/* Updates a signal with release semantics at system scope: the data this thread wrote, or
 * observed through a block or warp barrier, is visible before the new value. */
SYMCOLL_DEV void symcoll_dev_signal_update(uint64_t *sig, uint64_t value, symcoll_signal_op_t op) {
    if (op == SYMCOLL_SIGNAL_ADD)
        symcoll_dev_atomic_add_release(sig, value);
    else
        symcoll_dev_store_release(sig, value);
}

/* Put, then set (or add value to) pe's copy of the symmetric signal sig once the data is
 * visible on pe. */
SYMCOLL_DEV void symcoll_dev_put_signal(const symcoll_device_t &h, void *dst, const void *src,
                                        size_t bytes, uint64_t *sig, uint64_t value,
                                        symcoll_signal_op_t op, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        symcoll_dev_proxy_put(h, dst, src, bytes, sig, value, op, pe);
        return;
    }
    symcoll_dev_put(h, dst, src, bytes, pe);
    symcoll_dev_signal_update(symcoll_dev_peer(h, sig, pe), value, op);
}
SYMCOLL_DEV void symcoll_dev_put_signal_warp(const symcoll_device_t &h, void *dst, const void *src,
                                             size_t bytes, uint64_t *sig, uint64_t value,
                                             symcoll_signal_op_t op, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        symcoll_dev_warp_sync();
        if (symcoll_dev_warp_lane() == 0)
            symcoll_dev_proxy_put(h, dst, src, bytes, sig, value, op, pe);
        symcoll_dev_warp_sync();
        return;
    }
    symcoll_dev_put_warp(h, dst, src, bytes, pe);
    if (symcoll_dev_warp_lane() == 0)
        symcoll_dev_signal_update(symcoll_dev_peer(h, sig, pe), value, op);
}
SYMCOLL_DEV void symcoll_dev_put_signal_block(const symcoll_device_t &h, void *dst, const void *src,
                                              size_t bytes, uint64_t *sig, uint64_t value,
                                              symcoll_signal_op_t op, int pe) {
    if (symcoll_dev_proxied(h, pe)) {
        __syncthreads();
        if (symcoll_dev_block_rank() == 0)
            symcoll_dev_proxy_put(h, dst, src, bytes, sig, value, op, pe);
        __syncthreads();
        return;
    }
    symcoll_dev_put_block(h, dst, src, bytes, pe);
    if (symcoll_dev_block_rank() == 0)
        symcoll_dev_signal_update(symcoll_dev_peer(h, sig, pe), value, op);
}

/* Waits until this PE's copy of the symmetric signal satisfies (*sig cmp value); later
 * loads of this thread see the data published before the signal. Returns false when the
 * handle's timeout expires (recorded in the team's timeout record): the caller must then
 * leave the kernel, and the host reports SYMCOLL_ERROR_TIMEOUT for the team. */
SYMCOLL_DEV bool symcoll_dev_signal_wait_until(const symcoll_device_t &h, const uint64_t *sig,
                                               symcoll_cmp_t cmp, uint64_t value) {
    return symcoll_dev_wait(h, sig, cmp, value, SYMCOLL_COLL_DEVICE_API, -1);
}

/* ---- barrier ---- */

/* Barrier of the handle's team for the calling block (every thread of it calls): includes a
 * quiet of the block's puts. At most one block per PE may be inside it at a time, and every
 * team PE calls it the same number of times. Returns false in every thread on timeout. */
SYMCOLL_DEV bool symcoll_dev_barrier(const symcoll_device_t &h) {
    return symcoll_dev_sync_slot(h, SYMCOLL_USER_SYNC_SLOT, SYMCOLL_COLL_DEVICE_API);
}

/* The same barrier without memory ordering (relaxed): on return every team PE has arrived,
 * and nothing else: it orders no write and no read, so data written before it need not be
 * visible after it, and a peer may overwrite what this PE read before it. For phases that hand
 * no data over, or hand it over by put_signal and signal_wait_until, at about the one-way
 * latency between GPUs; to hand data over with a barrier, use symcoll_dev_barrier. Shares the
 * counter of symcoll_dev_barrier: the two may be mixed, in the same order on every PE. */
SYMCOLL_DEV bool symcoll_dev_barrier_relaxed(const symcoll_device_t &h) {
    return symcoll_dev_group_sync_slot(h, symcoll_dev_block_group(), SYMCOLL_USER_SYNC_SLOT,
                                       SYMCOLL_COLL_DEVICE_API, false, false);
}

/* symcoll_dev_barrier for the calling warp (every thread of it calls): the same slot, so at
 * most one warp or block per PE is inside either at a time. */
SYMCOLL_DEV bool symcoll_dev_barrier_warp(const symcoll_device_t &h) {
    return symcoll_dev_group_sync_slot(h, symcoll_dev_warp_group(), SYMCOLL_USER_SYNC_SLOT,
                                       SYMCOLL_COLL_DEVICE_API, true, true);
}

#endif
