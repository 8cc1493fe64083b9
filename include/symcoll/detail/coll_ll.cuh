/* LL exchange through the team's scratch (symcoll_sync_layout.h: ll_epoch, ack, ll buffers).
 *
 * A message is cut into rounds; in each round, group (block or warp) b of the call moves one piece
 * of at most SYMCOLL_LL_PAYLOAD bytes per peer, as 16-byte packets (8 bytes of data, the epoch
 * twice) that the consumer polls. Every round is one LL epoch of the group: epoch e writes the
 * buffers of parity e & 1 and is acknowledged by every team member to every other one once
 * it has read them, so a producer reuses a buffer (epoch e + 2) only after each consumer's
 * ack of e: no entry synchronization, and no round trip in steady state. Every member takes
 * part in every epoch of a group (even one that sends or receives nothing), so the epochs
 * agree on all PEs.
 *
 * A packet carries the low 32 bits of its epoch, and a packet that no later epoch rewrites
 * (a long message, then only short ones) stays in the buffer. So that such a packet never
 * passes for one of epoch e + 2^32, every consumer rewrites the whole buffer of parity p with
 * the epoch it has just read once every 2^31 epochs (symcoll_coll_ll_scrub_due), before its ack
 * lets the producer reuse it: any packet in a buffer is then less than 2^31 epochs old. The zeros
 * of a new team are the packets of epoch 0, the first such rewrite of parity 0. */
#ifndef SYMCOLL_DETAIL_COLL_LL_CUH
#define SYMCOLL_DETAIL_COLL_LL_CUH

#include "symcoll/detail/coll_common.cuh"

#define SYMCOLL_LL_PAYLOAD (SYMCOLL_LL_SLOT_BYTES / 2)

/* ---- the LL part of the team synchronization area ---- */

SYMCOLL_DEV uint64_t *symcoll_dev_ll_epoch(const symcoll_device_t &h, int block) {
    return (uint64_t *)(h.team_sync + SYMCOLL_SYNC_LL_EPOCH_OFF) + block;
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

/* ---- LL packets: 8 bytes of payload and two 32-bit copies of the epoch in 16 bytes ---- */

SYMCOLL_DEV void symcoll_dev_ll_store(char *packet, uint64_t data, uint32_t epoch) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(packet),
                 "r"((uint32_t)data), "r"(epoch), "r"((uint32_t)(data >> 32)), "r"(epoch)
                 : "memory");
}

/* One look at a packet: true (and its payload in *data) when both halves carry epoch. */
SYMCOLL_DEV bool symcoll_dev_ll_peek(const char *packet, uint32_t epoch, uint64_t *data) {
    uint32_t d0, f0, d1, f1;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(packet)
                 : "memory");
    *data = ((uint64_t)d1 << 32) | d0;
    return f0 == epoch && f1 == epoch;
}

/* Reads one packet until both halves carry epoch; false on timeout. */
SYMCOLL_DEV bool symcoll_dev_ll_load(const symcoll_device_t &h, const char *packet, uint32_t epoch,
                                     uint64_t *data, int collective, int from_pe) {
    uint64_t start = 0;
    for (uint32_t spins = 0; !symcoll_dev_ll_peek(packet, epoch, data); spins++)
        /* As in symcoll_dev_wait_impl: the clock and the host-mapped record stay off the
         * fast path (reading the clock first costs 0.3 us). */
        if ((spins & 1023) == 1023 &&
            symcoll_dev_wait_expired(h, &start, collective, from_pe, epoch))
            return false;
    return true;
}

/* Bytes [0, 8) of p as a little-endian word, at any alignment; avail < 8 reads only avail
 * bytes (the last word of a message) and leaves the rest zero. */
SYMCOLL_DEV uint64_t symcoll_coll_load_word(const char *p, size_t avail) {
    uint64_t v = 0;
    if (avail >= 8 && (uintptr_t)p % 8 == 0)
        return *(const uint64_t *)p;
    if (avail >= 8 && (uintptr_t)p % 4 == 0) {
        const uint32_t *q = (const uint32_t *)p;
        return q[0] | (uint64_t)q[1] << 32;
    }
    if (avail >= 8 && (uintptr_t)p % 2 == 0) {
        const uint16_t *q = (const uint16_t *)p;
        return q[0] | (uint64_t)q[1] << 16 | (uint64_t)q[2] << 32 | (uint64_t)q[3] << 48;
    }
    for (size_t i = 0; i < 8 && i < avail; i++)
        v |= (uint64_t)(uint8_t)p[i] << (8 * i);
    return v;
}

/* Stores min(avail, 8) bytes of the little-endian word v at p, at any alignment. */
SYMCOLL_DEV void symcoll_coll_store_word(char *p, uint64_t v, size_t avail) {
    if (avail >= 8 && (uintptr_t)p % 8 == 0) {
        *(uint64_t *)p = v;
    } else if (avail >= 8 && (uintptr_t)p % 4 == 0) {
        uint32_t *q = (uint32_t *)p;
        q[0] = (uint32_t)v;
        q[1] = (uint32_t)(v >> 32);
    } else if (avail >= 8 && (uintptr_t)p % 2 == 0) {
        uint16_t *q = (uint16_t *)p;
        for (int i = 0; i < 4; i++)
            q[i] = (uint16_t)(v >> (16 * i));
    } else {
        for (size_t i = 0; i < 8 && i < avail; i++)
            p[i] = (char)(v >> (8 * i));
    }
}

/* Rounds of a payload of `bytes` per peer: each round moves one piece per group. */
SYMCOLL_DEV size_t symcoll_coll_ll_rounds(const symcoll_dev_group_t &g, size_t bytes) {
    size_t per_round = (size_t)g.parts * SYMCOLL_LL_PAYLOAD;
    return (bytes + per_round - 1) / per_round;
}

/* This group's piece of round `round`: [*offset, *offset + *len) of the payload. */
SYMCOLL_DEV void symcoll_coll_ll_piece(const symcoll_dev_group_t &g, size_t bytes, size_t round,
                                       size_t *offset, size_t *len) {
    size_t first = (round * g.parts + g.part) * SYMCOLL_LL_PAYLOAD;
    *offset = first < bytes ? first : bytes;
    *len = bytes - *offset < SYMCOLL_LL_PAYLOAD ? bytes - *offset : SYMCOLL_LL_PAYLOAD;
}

/* The credit to write epoch's buffers at member: member's ack of epoch - 2, the last use of the
 * same buffers, waited for; false on timeout. One thread. The ack's first load does not wait
 * for epoch, so that it is in flight beside the epoch's own load. */
SYMCOLL_DEV bool symcoll_coll_ll_credit(const symcoll_device_t &h, int slot, int member,
                                        uint64_t epoch, int collective) {
    const uint64_t *ack = symcoll_dev_ll_ack(h, slot, member);
    uint64_t acked = symcoll_dev_load_relaxed(ack);
    return epoch <= 2 || acked >= epoch - 2 ||
           symcoll_dev_wait_relaxed(h, ack, SYMCOLL_CMP_GE, epoch - 2, collective,
                                    symcoll_dev_team_to_world(h, member));
}

/* Before a producer writes epoch's buffers: every peer's credit. Whole group; false on timeout.
 * (For producers whose lanes do not each send to every peer; symcoll_coll_ll_send checks its
 * own.) */
SYMCOLL_DEV bool symcoll_coll_ll_wait_credit(const symcoll_dev_group_t &g,
                                             const symcoll_device_t &h, uint64_t epoch,
                                             int collective) {
    bool ok = true;
    for (int m = g.lane; m < h.team_size; m += g.lanes)
        if (m != h.team_my_pe)
            ok = ok && symcoll_coll_ll_credit(h, g.slot, m, epoch, collective);
    return symcoll_dev_group_all(g, ok);
}

/* Writes len bytes of src as packets of epoch into member's buffer from this PE. Each lane that
 * stores takes member's credit first: the lane's own observation orders its stores after
 * member's reads, so no group barrier stands between the credit and the stores. False when the
 * credit timed out (this lane then stores nothing). */
SYMCOLL_DEV bool symcoll_coll_ll_send(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                      int member, uint64_t epoch, const char *src, size_t len,
                                      int collective) {
    if ((size_t)g.lane * 8 >= len)
        return true;
    if (!symcoll_coll_ll_credit(h, g.slot, member, epoch, collective))
        return false;
    char *buffer =
        symcoll_coll_member_ptr(h, symcoll_dev_ll_buffer(h, g.slot, h.team_my_pe, epoch), member);
    for (size_t w = g.lane; w * 8 < len; w += g.lanes)
        symcoll_dev_ll_store(buffer + 16 * w, symcoll_coll_load_word(src + 8 * w, len - 8 * w),
                             (uint32_t)epoch);
    return true;
}

/* Waits for word `word` of epoch from member; false on timeout. */
SYMCOLL_DEV bool symcoll_coll_ll_recv_word(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                           int member, uint64_t epoch, size_t word, uint64_t *data,
                                           int collective) {
    const char *buffer = symcoll_dev_ll_buffer(h, g.slot, member, epoch);
    return symcoll_dev_ll_load(h, buffer + 16 * word, (uint32_t)epoch, data, collective,
                               symcoll_dev_team_to_world(h, member));
}

/* Receives len bytes of epoch from member into dst; false on timeout. */
SYMCOLL_DEV bool symcoll_coll_ll_recv(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                      int member, uint64_t epoch, char *dst, size_t len,
                                      int collective) {
    for (size_t w = g.lane; w * 8 < len; w += g.lanes) {
        uint64_t data;
        if (!symcoll_coll_ll_recv_word(g, h, member, epoch, w, &data, collective))
            return false;
        symcoll_coll_store_word(dst + 8 * w, data, len - 8 * w);
    }
    return true;
}

/* The epochs after which a consumer rewrites its buffers of their parity: the first of each
 * parity in every 2^31 (never epoch 1, the first of a new team, whose buffer of parity 1
 * holds zeros, which no odd epoch matches). */
SYMCOLL_DEV bool symcoll_coll_ll_scrub_due(uint64_t epoch) {
    return (epoch & 0x7fffffffu) < 2 && epoch > 1;
}

/* Rewrites every packet of every peer's buffer of epoch's parity on this PE as one of epoch,
 * which this PE has read; fenced, so that the rewrite lands before the ack that follows lets
 * a producer write the buffer again. Whole group. */
SYMCOLL_DEV void symcoll_coll_ll_scrub(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                       uint64_t epoch) {
    const size_t packets = SYMCOLL_LL_SLOT_BYTES / 16;
    for (int m = 0; m < h.team_size; m++)
        if (m != h.team_my_pe) {
            char *buffer = symcoll_dev_ll_buffer(h, g.slot, m, epoch);
            for (size_t p = g.lane; p < packets; p += g.lanes)
                symcoll_dev_ll_store(buffer + 16 * p, 0, (uint32_t)epoch);
        }
    symcoll_dev_fence_sys();
    symcoll_dev_group_sync(g);
}

/* Ends epoch for this group: once every thread has read its packets (ok: none timed out),
 * tells every peer that this PE is done with epoch's buffers. A relaxed store suffices: every
 * load of those buffers has returned its value before the group barrier, so no later write
 * of the producer can change what was read; likewise the credit is read relaxed, since the
 * producer's writes that follow depend on it. The rare scrub is the one store before the
 * ack, and it is fenced. Whole group; false if any thread timed out. */
SYMCOLL_DEV bool symcoll_coll_ll_ack(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                     uint64_t epoch, bool ok) {
    if (!symcoll_dev_group_all(g, ok))
        return false;
    if (symcoll_coll_ll_scrub_due(epoch))
        symcoll_coll_ll_scrub(g, h, epoch);
    uint64_t *mine = symcoll_dev_ll_ack(h, g.slot, h.team_my_pe);
    for (int m = g.lane; m < h.team_size; m += g.lanes)
        if (m != h.team_my_pe)
            symcoll_dev_store_relaxed(symcoll_coll_member_ptr(h, mine, m), epoch);
    return true;
}

/* The last LL epoch this group's slot has completed (read by every thread at the start). */
SYMCOLL_DEV uint64_t symcoll_coll_ll_epoch(const symcoll_dev_group_t &g,
                                           const symcoll_device_t &h) {
    return *symcoll_dev_ll_epoch(h, g.slot);
}

/* Records the group's last completed epoch; after the final symcoll_coll_ll_ack. */
SYMCOLL_DEV void symcoll_coll_ll_finish(const symcoll_dev_group_t &g, const symcoll_device_t &h,
                                        uint64_t epoch) {
    if (g.lane == 0)
        *symcoll_dev_ll_epoch(h, g.slot) = epoch;
}

/* The rounds of an LL message of `bytes` per peer, one epoch each, as a group walks them:
 *     uint64_t epoch = symcoll_coll_ll_epoch(g, h);
 *     for (size_t round = 0, rounds = symcoll_coll_ll_rounds(g, bytes); round < rounds; round++) {
 *         size_t offset, len;
 *         symcoll_coll_ll_round(g, bytes, round, &epoch, &offset, &len);
 *         move this group's piece [offset, offset + len) of epoch: sends, then receives
 *         unless a send timed out (ok: none timed out, in this thread);
 *         if (!symcoll_coll_ll_ack(g, h, epoch, ok))
 *             return;
 *     }
 *     symcoll_coll_ll_finish(g, h, epoch);
 * Every member runs every round, even one that moves nothing, so that the epochs agree. The
 * loop stays written out where it is used: as a struct that a helper advances (the loop state
 * in one place) it cost the LL rows of broadcast, fcollect and alltoall 5 to 9 % on one H200.
 *
 * symcoll_coll_ll_round begins round `round`: the next epoch and this group's piece. (Each
 * send waits for its own credit.) */
SYMCOLL_DEV void symcoll_coll_ll_round(const symcoll_dev_group_t &g, size_t bytes, size_t round,
                                       uint64_t *epoch, size_t *offset, size_t *len) {
    symcoll_coll_ll_piece(g, bytes, round, offset, len);
    ++*epoch;
}

#endif
