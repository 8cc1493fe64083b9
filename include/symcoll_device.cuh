/* symcoll device API: header-only, for user kernels and the library's own kernels.
 * Needs no relocatable device code: everything here is inline and works on the handle that
 * the host passes by value (symcoll_device_handle(team)).
 *
 * Memory model: flags and signals are accessed at system scope; data is ordered before the
 * flag that announces it by one release fence per batch. Every wait honours the handle's
 * timeout: on expiry it fills the team's timeout record and returns false, and the caller
 * must leave the kernel (the host then reports SYMCOLL_ERROR_TIMEOUT for the team).
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

/* ---- the team synchronization area ---- */

SYMCOLL_DEV uint64_t *symcoll_dev_sync_counter(const symcoll_device_t &h, int slot) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_COUNTER_OFF) + slot;
}
SYMCOLL_DEV uint64_t *symcoll_dev_ll_epoch(const symcoll_device_t &h, int block) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_LL_EPOCH_OFF) + block;
}
SYMCOLL_DEV uint64_t *symcoll_dev_sync_flag(const symcoll_device_t &h, int slot, int member) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_FLAG_OFF) + (size_t)slot * h.team_size + member;
}
SYMCOLL_DEV uint64_t *symcoll_dev_ll_ack(const symcoll_device_t &h, int block, int member) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_ACK_OFF(h.team_size)) +
           (size_t)block * h.team_size + member;
}
/* LL buffer on this PE written by team member `from`, for LL epoch parity. */
SYMCOLL_DEV char *symcoll_dev_ll_buffer(const symcoll_device_t &h, int block, int from,
                                        uint64_t epoch) {
    return h.team_sync + SYMCOLL_SYNC_LL_OFF(h.team_size) +
           (((size_t)block * h.team_size + from) * 2 + (epoch & 1)) * SYMCOLL_LL_SLOT_BYTES;
}

/* ---- system-scope flag accesses ---- */

SYMCOLL_DEV uint64_t symcoll_dev_now_ns(void) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

SYMCOLL_DEV uint64_t symcoll_dev_load_relaxed(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
SYMCOLL_DEV void symcoll_dev_store_relaxed(uint64_t *p, uint64_t v) {
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
SYMCOLL_DEV void symcoll_dev_store_release(uint64_t *p, uint64_t v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
SYMCOLL_DEV uint64_t symcoll_dev_atomic_add_release(uint64_t *p, uint64_t v) {
    uint64_t old;
    asm volatile("atom.release.sys.global.add.u64 %0, [%1], %2;"
                 : "=l"(old)
                 : "l"(p), "l"(v)
                 : "memory");
    return old;
}
/* Orders this thread's earlier memory accesses (and those it has observed) before its later
 * ones, at system scope. */
SYMCOLL_DEV void symcoll_dev_fence_sys(void) {
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

SYMCOLL_DEV bool symcoll_dev_compare(uint64_t a, symcoll_cmp_t cmp, uint64_t b) {
    switch (cmp) {
    case SYMCOLL_CMP_EQ:
        return a == b;
    case SYMCOLL_CMP_NE:
        return a != b;
    case SYMCOLL_CMP_GT:
        return a > b;
    case SYMCOLL_CMP_GE:
        return a >= b;
    case SYMCOLL_CMP_LT:
        return a < b;
    default:
        return a <= b;
    }
}

/* Fills the team's timeout record once (first expiry wins). */
SYMCOLL_DEV void symcoll_dev_record_timeout(const symcoll_device_t &h, int collective,
                                            int missing_pe, uint64_t awaited) {
    symcoll_timeout_record_t *r = h.record;
    if (atomicCAS((int *)&r->expired, 0, 2) == 0) {
        r->collective = collective;
        r->team = h.team;
        r->missing_pe = missing_pe;
        r->epoch = awaited;
        __threadfence_system();
        r->expired = 1;
    }
}

/* True once a wait of this team has expired (in this or an earlier kernel). */
SYMCOLL_DEV bool symcoll_dev_team_broken(const symcoll_device_t &h) {
    return h.record->expired != 0;
}

/* Spins until (*flag cmp value) holds, with relaxed loads and no fence: for a flag whose
 * observation orders nothing that this kernel reads afterwards (credits, final
 * synchronization). Returns false, after recording it, when the handle's timeout expires.
 * missing_pe is the WORLD PE expected to write the flag (-1 if unknown). */
SYMCOLL_DEV bool symcoll_dev_wait_relaxed(const symcoll_device_t &h, const uint64_t *flag,
                                          symcoll_cmp_t cmp, uint64_t value, int collective,
                                          int missing_pe) {
    if (symcoll_dev_compare(symcoll_dev_load_relaxed(flag), cmp, value))
        return true;
    uint64_t start = symcoll_dev_now_ns();
    for (uint32_t spins = 1;; spins++) {
        if (symcoll_dev_compare(symcoll_dev_load_relaxed(flag), cmp, value))
            return true;
        if ((spins & 1023) == 0) {
            if (symcoll_dev_team_broken(h))
                return false;
            if (h.timeout_ns && symcoll_dev_now_ns() - start > h.timeout_ns) {
                symcoll_dev_record_timeout(h, collective, missing_pe, value);
                return false;
            }
        }
    }
}

/* As symcoll_dev_wait_relaxed, followed by an acquire fence: what the writer of the flag
 * wrote before it is visible to this thread afterwards. */
SYMCOLL_DEV bool symcoll_dev_wait(const symcoll_device_t &h, const uint64_t *flag,
                                  symcoll_cmp_t cmp, uint64_t value, int collective,
                                  int missing_pe) {
    if (!symcoll_dev_wait_relaxed(h, flag, cmp, value, collective, missing_pe))
        return false;
    symcoll_dev_fence_sys();
    return true;
}

/* This thread's rank in its block and the block's thread count (any block shape). */
SYMCOLL_DEV unsigned symcoll_dev_block_rank(void) {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
SYMCOLL_DEV unsigned symcoll_dev_block_size(void) {
    return blockDim.x * blockDim.y * blockDim.z;
}

/* One synchronization point of the whole team for one block slot: every thread of the
 * calling block must call it. Writes made by the block before it are visible on every team
 * PE after it (release/acquire at system scope). Returns false (in every thread) on timeout.
 * Each slot is used by the same sequence of calls on every PE, so its counter agrees. */
SYMCOLL_DEV bool symcoll_dev_sync_slot_impl(const symcoll_device_t &h, int slot, int collective,
                                            bool acquire) {
    uint64_t *counter = symcoll_dev_sync_counter(h, slot);
    uint64_t value = *counter + 1;
    __syncthreads();
    bool ok = true;
    for (int i = (int)symcoll_dev_block_rank(); i < h.team_size;
         i += (int)symcoll_dev_block_size()) {
        if (i == h.team_my_pe)
            continue;
        int pe = symcoll_dev_team_to_world(h, i);
        uint64_t *remote = symcoll_dev_peer(h, symcoll_dev_sync_flag(h, slot, h.team_my_pe), pe);
        symcoll_dev_fence_sys();
        symcoll_dev_store_relaxed(remote, value);
    }
    for (int i = (int)symcoll_dev_block_rank(); i < h.team_size;
         i += (int)symcoll_dev_block_size()) {
        if (i == h.team_my_pe)
            continue;
        ok = ok && symcoll_dev_wait_relaxed(h, symcoll_dev_sync_flag(h, slot, i), SYMCOLL_CMP_GE,
                                            value, collective, symcoll_dev_team_to_world(h, i));
    }
    /* Written between the two block barriers: every thread has read the old count, and the
     * new one is visible to the whole block before any thread can call again. */
    if (symcoll_dev_block_rank() == 0)
        *counter = value;
    if (ok && acquire)
        symcoll_dev_fence_sys();
    return __syncthreads_and(ok);
}

SYMCOLL_DEV bool symcoll_dev_sync_slot(const symcoll_device_t &h, int slot, int collective) {
    return symcoll_dev_sync_slot_impl(h, slot, collective, true);
}

/* The same synchronization point without the acquire side, for the last one of a kernel:
 * the kernel reads nothing afterwards, and the next kernel starts with fresh caches, so the
 * peers' writes announced by their release are what it sees. Saves a system fence. */
SYMCOLL_DEV bool symcoll_dev_sync_slot_final(const symcoll_device_t &h, int slot, int collective) {
    return symcoll_dev_sync_slot_impl(h, slot, collective, false);
}

/* ---- LL packets: 8 bytes of payload and two 32-bit copies of the epoch in 16 bytes ---- */

SYMCOLL_DEV void symcoll_dev_ll_store(char *packet, uint64_t data, uint32_t epoch) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(packet),
                 "r"((uint32_t)data), "r"(epoch), "r"((uint32_t)(data >> 32)), "r"(epoch)
                 : "memory");
}

/* Reads one packet until both halves carry epoch; false on timeout. */
SYMCOLL_DEV bool symcoll_dev_ll_load(const symcoll_device_t &h, const char *packet, uint32_t epoch,
                                     uint64_t *data, int collective, int from_pe) {
    uint32_t d0, f0, d1, f1;
    uint64_t start = 0;
    for (uint32_t spins = 0;; spins++) {
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                     : "l"(packet)
                     : "memory");
        if (f0 == epoch && f1 == epoch)
            break;
        if (spins == 0)
            start = symcoll_dev_now_ns();
        else if ((spins & 1023) == 0) {
            if (symcoll_dev_team_broken(h))
                return false;
            if (h.timeout_ns && symcoll_dev_now_ns() - start > h.timeout_ns) {
                symcoll_dev_record_timeout(h, collective, from_pe, epoch);
                return false;
            }
        }
    }
    *data = ((uint64_t)d1 << 32) | d0;
    return true;
}

/* ==== User-facing device API ====
 * Every function below takes the handle by const reference and addresses WORLD PEs; pe must
 * be load/store reachable (symcoll_dev_reachable). dst of a put, src of a get and signals
 * are symmetric addresses of this PE; the other buffer may be any memory of this GPU.
 * Scopes: the plain functions are called by one thread; _warp variants by every thread of
 * the warp and _block variants by every thread of the block, with the same arguments. A
 * scoped call returns once the whole group is done with src, so any thread may reuse it.
 * Puts are plain stores over NVLink: they are visible on pe after a quiet (or a signal, or a
 * barrier) of the thread or group that issued them. */

/* ---- cooperative copies (lane of lanes threads; any alignment) ---- */

/* Copies with units of V: bytes up to V's alignment of dst, then Vs, then the rest. dst and
 * src share their alignment modulo sizeof(V). Four loads are in flight before their stores. */
template <typename V>
SYMCOLL_DEV void symcoll_dev_copy_units(char *dst, const char *src, size_t bytes, unsigned lane,
                                        unsigned lanes) {
    size_t head = (size_t)(-(uintptr_t)dst & (sizeof(V) - 1));
    if (head > bytes)
        head = bytes;
    size_t units = (bytes - head) / sizeof(V);
    size_t tail = head + units * sizeof(V);
    for (size_t i = lane; i < head; i += lanes)
        dst[i] = src[i];
    V *d = (V *)(dst + head);
    const V *s = (const V *)(src + head);
    size_t i = lane;
    for (; i + 3 * (size_t)lanes < units; i += 4 * (size_t)lanes) {
        V a = s[i], b = s[i + lanes], c = s[i + 2 * lanes], e = s[i + 3 * lanes];
        d[i] = a;
        d[i + lanes] = b;
        d[i + 2 * lanes] = c;
        d[i + 3 * lanes] = e;
    }
    for (; i < units; i += lanes)
        d[i] = s[i];
    for (size_t j = tail + lane; j < bytes; j += lanes)
        dst[j] = src[j];
}

/* Copies bytes with lanes threads, lane being this thread's index among them: 16-byte
 * accesses when dst and src share their alignment modulo 16, else the widest unit they
 * share. */
SYMCOLL_DEV void symcoll_dev_copy(void *dst, const void *src, size_t bytes, unsigned lane,
                                  unsigned lanes) {
    char *d = (char *)dst;
    const char *s = (const char *)src;
    uintptr_t mismatch = (uintptr_t)d ^ (uintptr_t)s;
    if ((mismatch & 15) == 0)
        symcoll_dev_copy_units<uint4>(d, s, bytes, lane, lanes);
    else if ((mismatch & 7) == 0)
        symcoll_dev_copy_units<uint2>(d, s, bytes, lane, lanes);
    else if ((mismatch & 3) == 0)
        symcoll_dev_copy_units<uint32_t>(d, s, bytes, lane, lanes);
    else if ((mismatch & 1) == 0)
        symcoll_dev_copy_units<uint16_t>(d, s, bytes, lane, lanes);
    else
        symcoll_dev_copy_units<uint8_t>(d, s, bytes, lane, lanes);
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
SYMCOLL_DEV void symcoll_dev_warp_sync(void) {
    unsigned n = symcoll_dev_warp_size();
    __syncwarp(n == 32 ? 0xffffffffu : (1u << n) - 1);
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

/* ---- put and get ---- */

SYMCOLL_DEV void symcoll_dev_put(const symcoll_device_t &h, void *dst, const void *src,
                                 size_t bytes, int pe) {
    symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, 0, 1);
}
SYMCOLL_DEV void symcoll_dev_put_warp(const symcoll_device_t &h, void *dst, const void *src,
                                      size_t bytes, int pe) {
    symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, symcoll_dev_warp_lane(),
                     symcoll_dev_warp_size());
    symcoll_dev_warp_sync();
}
SYMCOLL_DEV void symcoll_dev_put_block(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, int pe) {
    symcoll_dev_copy(symcoll_dev_peer(h, dst, pe), src, bytes, symcoll_dev_block_rank(),
                     symcoll_dev_block_size());
    __syncthreads();
}

/* Gets complete when they return: dst holds pe's data for every thread of the group. */
SYMCOLL_DEV void symcoll_dev_get(const symcoll_device_t &h, void *dst, const void *src,
                                 size_t bytes, int pe) {
    symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, 0, 1);
}
SYMCOLL_DEV void symcoll_dev_get_warp(const symcoll_device_t &h, void *dst, const void *src,
                                      size_t bytes, int pe) {
    symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, symcoll_dev_warp_lane(),
                     symcoll_dev_warp_size());
    symcoll_dev_warp_sync();
}
SYMCOLL_DEV void symcoll_dev_get_block(const symcoll_device_t &h, void *dst, const void *src,
                                       size_t bytes, int pe) {
    symcoll_dev_copy(dst, symcoll_dev_peer(h, src, pe), bytes, symcoll_dev_block_rank(),
                     symcoll_dev_block_size());
    __syncthreads();
}

/* ---- ordering ---- */

/* fence: this thread's puts before it reach every PE before its puts after it, as seen by
 * a PE that acquires (a signal wait, a barrier). quiet: this thread's puts before it are
 * complete and visible to any PE that acquires after observing a later write of this
 * thread. Over load/store paths both are one system-scope fence; they differ once proxy
 * transports exist. */
SYMCOLL_DEV void symcoll_dev_fence(const symcoll_device_t &h) {
    (void)h;
    symcoll_dev_fence_sys();
}
SYMCOLL_DEV void symcoll_dev_quiet(const symcoll_device_t &h) {
    (void)h;
    symcoll_dev_fence_sys();
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
    symcoll_dev_put(h, dst, src, bytes, pe);
    symcoll_dev_signal_update(symcoll_dev_peer(h, sig, pe), value, op);
}
SYMCOLL_DEV void symcoll_dev_put_signal_warp(const symcoll_device_t &h, void *dst, const void *src,
                                             size_t bytes, uint64_t *sig, uint64_t value,
                                             symcoll_signal_op_t op, int pe) {
    symcoll_dev_put_warp(h, dst, src, bytes, pe);
    if (symcoll_dev_warp_lane() == 0)
        symcoll_dev_signal_update(symcoll_dev_peer(h, sig, pe), value, op);
}
SYMCOLL_DEV void symcoll_dev_put_signal_block(const symcoll_device_t &h, void *dst, const void *src,
                                              size_t bytes, uint64_t *sig, uint64_t value,
                                              symcoll_signal_op_t op, int pe) {
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

#endif
