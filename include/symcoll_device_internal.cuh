/* Internal part of the header-only device API, included by symcoll_device.cuh (include
 * that): system-scope flag accesses, timed waits and the team synchronization slots that the
 * device API's barrier and the library's kernels use. Not API: names and behaviour may change
 * with SYMCOLL_DEVICE_HANDLE_VERSION.
 *
 * Memory model: data is ordered before the flag that announces it by a release store (or one
 * release fence per batch of flags); waits that order data poll with acquire loads. */
#ifndef SYMCOLL_DEVICE_INTERNAL_CUH
#define SYMCOLL_DEVICE_INTERNAL_CUH

#ifndef SYMCOLL_DEVICE_CUH
#error "include symcoll_device.cuh, not symcoll_device_internal.cuh"
#endif

#include "symcoll_sync_layout.h"

/* ---- the team synchronization area ---- */

SYMCOLL_DEV uint64_t *symcoll_dev_sync_counter(const symcoll_device_t &h, int slot) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_COUNTER_OFF) + slot;
}
SYMCOLL_DEV uint64_t *symcoll_dev_sync_flag(const symcoll_device_t &h, int slot, int member) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_FLAG_OFF) + (size_t)slot * h.team_size + member;
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
SYMCOLL_DEV uint64_t symcoll_dev_load_acquire(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
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

/* (a cmp b) for any integer type: flags here, the NVSHMEM header's typed waits there. */
template <typename T> SYMCOLL_DEV bool symcoll_dev_compare(T a, symcoll_cmp_t cmp, T b) {
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

/* The slow path of a poll loop, taken once per 1024 polls: true when the team is broken, or
 * (after recording it) when the handle's timeout has passed since the first check (*start
 * holds that check's time; 0 before it). */
SYMCOLL_DEV bool symcoll_dev_wait_expired(const symcoll_device_t &h, uint64_t *start,
                                          int collective, int missing_pe, uint64_t awaited) {
    if (symcoll_dev_team_broken(h))
        return true;
    uint64_t now = symcoll_dev_now_ns();
    if (*start == 0) {
        *start = now;
        return false;
    }
    if (h.timeout_ns && now - *start > h.timeout_ns) {
        symcoll_dev_record_timeout(h, collective, missing_pe, awaited);
        return true;
    }
    return false;
}

/* Spins until (*flag cmp value) holds. With acquire, every poll is an acquire load: what the
 * writer of the flag wrote before it is visible to this thread afterwards, at no cost beyond
 * the poll (a fence after a relaxed poll costs about 0.6 us). Without, polls are relaxed and
 * order nothing: for flags whose observation orders nothing that this kernel reads afterwards
 * (credits, final synchronization). The fast path reads neither the clock nor the host-mapped
 * timeout record: both are checked once per 1024 polls, and the timeout counts from the first
 * check. Returns false, after recording it, when the handle's timeout expires. missing_pe is
 * the WORLD PE expected to write the flag (-1 if unknown). */
SYMCOLL_DEV bool symcoll_dev_wait_impl(const symcoll_device_t &h, const uint64_t *flag,
                                       symcoll_cmp_t cmp, uint64_t value, int collective,
                                       int missing_pe, bool acquire) {
    uint64_t start = 0;
    for (uint32_t polls = 1;; polls++) {
        uint64_t seen = acquire ? symcoll_dev_load_acquire(flag) : symcoll_dev_load_relaxed(flag);
        if (symcoll_dev_compare(seen, cmp, value))
            return true;
        if ((polls & 1023) == 0 &&
            symcoll_dev_wait_expired(h, &start, collective, missing_pe, value))
            return false;
    }
}

SYMCOLL_DEV bool symcoll_dev_wait_relaxed(const symcoll_device_t &h, const uint64_t *flag,
                                          symcoll_cmp_t cmp, uint64_t value, int collective,
                                          int missing_pe) {
    return symcoll_dev_wait_impl(h, flag, cmp, value, collective, missing_pe, false);
}
SYMCOLL_DEV bool symcoll_dev_wait(const symcoll_device_t &h, const uint64_t *flag,
                                  symcoll_cmp_t cmp, uint64_t value, int collective,
                                  int missing_pe) {
    return symcoll_dev_wait_impl(h, flag, cmp, value, collective, missing_pe, true);
}

/* This thread's rank in its block and the block's thread count (any block shape). */
SYMCOLL_DEV unsigned symcoll_dev_block_rank(void) {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
SYMCOLL_DEV unsigned symcoll_dev_block_size(void) {
    return blockDim.x * blockDim.y * blockDim.z;
}

/* ---- groups: the threads that run one part of a collective together ---- */

/* A warp or a block: lane of lanes threads that synchronize together; part of parts groups
 * that share the work of one collective call (the blocks of a grid, or one group alone); slot:
 * the team's synchronization slot (and LL buffers) the group uses, its own among the groups
 * that run at once; reads_after: the caller reads what the collective delivered in this same
 * kernel, so its last synchronization acquires (a host-launched kernel ends with the
 * collective, and the next kernel starts with fresh caches). */
typedef struct {
    unsigned lane, lanes;
    unsigned part, parts;
    unsigned slot;
    bool warp;
    bool reads_after;
} symcoll_dev_group_t;

/* Every thread of the group waits for the others; *_all: true in every thread when ok is
 * true in every thread. A warp group is the calling thread's warp (a partial last warp of an
 * odd-sized block included): its lanes are the low bits of the mask. */
SYMCOLL_DEV unsigned symcoll_dev_group_mask(const symcoll_dev_group_t &g) {
    return g.lanes >= 32 ? 0xffffffffu : (1u << g.lanes) - 1;
}
SYMCOLL_DEV void symcoll_dev_group_sync(const symcoll_dev_group_t &g) {
    if (g.warp)
        __syncwarp(symcoll_dev_group_mask(g));
    else
        __syncthreads();
}
SYMCOLL_DEV bool symcoll_dev_group_all(const symcoll_dev_group_t &g, bool ok) {
    if (!g.warp)
        return __syncthreads_and(ok);
    /* A vote orders no memory: the __syncwarp after it makes every lane's writes before it
     * visible to the others, as __syncthreads_and does for a block. */
    bool all = __all_sync(symcoll_dev_group_mask(g), ok);
    __syncwarp(symcoll_dev_group_mask(g));
    return all;
}

/* The calling block alone (any block shape), reading what it gets in this kernel. */
SYMCOLL_DEV symcoll_dev_group_t symcoll_dev_block_group(void) {
    return {symcoll_dev_block_rank(), symcoll_dev_block_size(), 0, 1, 0, false, true};
}

/* One synchronization point of the whole team for one slot: every thread of the calling
 * group must call it. With release and acquire, writes made by the group before it are
 * visible on every team PE after it (system scope); without, it orders nothing. Returns false
 * (in every thread) on timeout. Each slot is used by the same sequence of calls on every PE,
 * so its counter agrees. The flag store is one release store (a fence plus a relaxed store
 * costs the same) and the wait polls with acquire loads: 1.4 us per sync between two H200s,
 * against 2.4 us for a fence on each side (perf/NOTES.md). */
SYMCOLL_DEV bool symcoll_dev_group_sync_slot(const symcoll_device_t &h,
                                             const symcoll_dev_group_t &g, int slot, int collective,
                                             bool release, bool acquire) {
    uint64_t *counter = symcoll_dev_sync_counter(h, slot);
    /* The first flag's address before the group barrier: its arithmetic overlaps the counter
     * load instead of sitting between the barrier and the store (0.05 us per sync). */
    int first = (int)g.lane, step = (int)g.lanes;
    uint64_t *mine = symcoll_dev_sync_flag(h, slot, h.team_my_pe);
    const uint64_t *arrived = symcoll_dev_sync_flag(h, slot, 0);
    uint64_t *remote = symcoll_dev_peer(h, mine, symcoll_dev_team_to_world(h, first));
    uint64_t value = *counter + 1;
    symcoll_dev_group_sync(g);
    bool ok = true;
    /* Thread i serves member i (and i + step, ... in teams larger than the group): every
     * store before any wait, so no member waits on one that waits on it. */
    for (int i = first; i < h.team_size; i += step) {
        if (i != first)
            remote = symcoll_dev_peer(h, mine, symcoll_dev_team_to_world(h, i));
        if (i == h.team_my_pe)
            continue;
        if (release)
            symcoll_dev_store_release(remote, value);
        else
            symcoll_dev_store_relaxed(remote, value);
    }
    for (int i = first; i < h.team_size; i += step) {
        if (i == h.team_my_pe)
            continue;
        ok = ok && symcoll_dev_wait_impl(h, arrived + i, SYMCOLL_CMP_GE, value, collective,
                                         symcoll_dev_team_to_world(h, i), acquire);
    }
    /* Written between the two group barriers: every thread has read the old count, and the
     * new one is visible to the whole group before any thread can call again. */
    if (first == 0)
        *counter = value;
    return symcoll_dev_group_all(g, ok);
}

/* The synchronization point of a block: with release and acquire (sync_slot), or without the
 * acquire side (sync_slot_final), for the last one of a host-launched kernel, which reads
 * nothing afterwards: the next kernel starts with fresh caches, so the peers' writes announced
 * by their release are what it sees. */
SYMCOLL_DEV bool symcoll_dev_sync_slot(const symcoll_device_t &h, int slot, int collective) {
    return symcoll_dev_group_sync_slot(h, symcoll_dev_block_group(), slot, collective, true, true);
}
SYMCOLL_DEV bool symcoll_dev_sync_slot_final(const symcoll_device_t &h, int slot, int collective) {
    return symcoll_dev_group_sync_slot(h, symcoll_dev_block_group(), slot, collective, true, false);
}

/* ---- the proxy's ring: what symcoll_dev_proxy_post and the library's pre-staged put are made
 * of ---- */

/* Reserves the next entry of the ring once it is free: its index + 1, 0 when the wait for it
 * timed out (recorded naming collective). */
SYMCOLL_DEV uint64_t symcoll_dev_proxy_reserve(const symcoll_device_t &h, int pe, int collective) {
    uint64_t index = atomicAdd(h.proxy_ring.reserved, 1ull);
    uint64_t free_from =
        index + 1 > SYMCOLL_PROXY_RING_ENTRIES ? index + 1 - SYMCOLL_PROXY_RING_ENTRIES : 0;
    if (!symcoll_dev_wait(h, h.proxy_ring.progress + SYMCOLL_PROXY_RING_CONSUMED, SYMCOLL_CMP_GE,
                          free_from, collective, pe))
        return 0;
    return index + 1;
}

/* Publishes the request of the entry reserved as ticket: what this thread wrote, or observed
 * through a barrier, is visible to the proxy first. */
SYMCOLL_DEV void symcoll_dev_proxy_fill(const symcoll_device_t &h, uint64_t ticket, int kind,
                                        int pe, uint64_t remote_offset, uint64_t local,
                                        size_t bytes, const uint64_t *sig, uint64_t value,
                                        symcoll_signal_op_t op) {
    symcoll_proxy_ring_entry_t *e =
        h.proxy_ring.entries + (ticket - 1) % SYMCOLL_PROXY_RING_ENTRIES;
    e->remote_offset = remote_offset;
    e->local = local;
    e->bytes = bytes;
    e->signal_offset = sig ? (uint64_t)((const char *)sig - h.heap_base) : 0;
    e->value = value;
    e->pe = pe;
    e->kind = (uint16_t)kind;
    e->has_signal = sig != 0;
    e->op = (uint8_t)op;
    symcoll_dev_fence_sys();
    symcoll_dev_store_release(&e->ready, ticket);
}

#endif
