/* broadcast, fcollect and alltoall as flows between team members: each collective only says
 * what member `from` sends to member `to` (symcoll_coll_flow); the LL, push and pull algorithms
 * move the flows. */
#ifndef SYMCOLL_DETAIL_COLL_MOVE_CUH
#define SYMCOLL_DETAIL_COLL_MOVE_CUH

#include "symcoll/detail/coll_ll.cuh"

/* The flow from member `from` to member `to` of each kind (symcoll_flow_t):
 * args.bytes from the range *src of from's src buffer to the range *dst of to's dst buffer,
 * both as this PE's symmetric addresses. False when nothing flows (a broadcast from a
 * non-root, the root's in-place copy, a synchronization, or a reduction, whose kernel moves
 * its own data). */
SYMCOLL_DEV bool symcoll_coll_flow_one_to_all(const symcoll_coll_args_t &a, int from, int to,
                                              const char **src, char **dst) {
    *src = a.src;
    *dst = a.dst;
    return from == a.root && (from != to || a.src != a.dst);
}
/* In place (src is block me of dst, as collectives across nodes share the blocks they received),
 * each member's src is its own block of dst: its address differs from member to member. */
SYMCOLL_DEV bool symcoll_coll_flow_gather(const symcoll_coll_args_t &a, int from, int to,
                                          const char **src, char **dst) {
    (void)to;
    bool in_place = a.src == a.dst + (size_t)a.h.team_my_pe * a.bytes;
    *src = in_place ? a.dst + (size_t)from * a.bytes : a.src;
    *dst = a.dst + (size_t)from * a.bytes;
    return true;
}
SYMCOLL_DEV bool symcoll_coll_flow_exchange(const symcoll_coll_args_t &a, int from, int to,
                                            const char **src, char **dst) {
    *src = a.src + (size_t)to * a.bytes;
    *dst = a.dst + (size_t)from * a.bytes;
    return true;
}
/* The flow of kind `flow` from member `from` to member `to`. */
SYMCOLL_DEV bool symcoll_coll_flow(const symcoll_coll_args_t &a, symcoll_flow_t flow, int from,
                                   int to, const char **src, char **dst) {
    switch (flow) {
    case SYMCOLL_FLOW_ONE_TO_ALL:
        return symcoll_coll_flow_one_to_all(a, from, to, src, dst);
    case SYMCOLL_FLOW_GATHER:
        return symcoll_coll_flow_gather(a, from, to, src, dst);
    case SYMCOLL_FLOW_EXCHANGE:
        return symcoll_coll_flow_exchange(a, from, to, src, dst);
    default:
        return false;
    }
}

/* LL: this PE's flows to peers go through their scratch; its own flow is a local copy. */
SYMCOLL_DEV bool symcoll_coll_move_ll(const symcoll_dev_group_t &g, const symcoll_coll_args_t &a,
                                      symcoll_flow_t flow) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe, collective = a.collective;
    const char *src;
    char *dst;
    uint64_t epoch = symcoll_coll_ll_epoch(g, h);
    for (size_t round = 0, rounds = symcoll_coll_ll_rounds(g, a.bytes); round < rounds; round++) {
        size_t offset, len;
        symcoll_coll_ll_round(g, a.bytes, round, &epoch, &offset, &len);
        bool ok = true;
        for (int step = 1; ok && step < h.team_size; step++) {
            int m = symcoll_coll_member_after(h, step);
            if (symcoll_coll_flow(a, flow, me, m, &src, &dst))
                ok = symcoll_coll_ll_send(g, h, m, epoch, src + offset, len, collective);
        }
        if (symcoll_coll_flow(a, flow, me, me, &src, &dst))
            symcoll_coll_copy(g, dst + offset, src + offset, len);
        for (int step = 1; ok && step < h.team_size; step++) {
            int m = symcoll_coll_member_after(h, step);
            if (symcoll_coll_flow(a, flow, m, me, &src, &dst))
                ok = symcoll_coll_ll_recv(g, h, m, epoch, dst + offset, len, collective);
        }
        if (!symcoll_coll_ll_ack(g, h, epoch, ok))
            return false;
    }
    symcoll_coll_ll_finish(g, h, epoch);
    return true;
}

/* Bandwidth: group b moves part b of every flow, with 16-byte accesses where the buffers
 * allow, straight to (push) or from (pull) the peer's memory. The entry sync of slot b makes
 * every peer's buffers ready; the exit sync keeps every peer's part b of src and dst in use
 * until all are done with it. Groups start at different members, so that the local copy
 * overlaps the NVLink traffic of other groups. */
SYMCOLL_DEV bool symcoll_coll_move_bw(const symcoll_dev_group_t &g, const symcoll_coll_args_t &a,
                                      symcoll_flow_t flow, bool push) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe;
    size_t begin, end;
    symcoll_coll_share(a.bytes, g.parts, g.part, 16, &begin, &end);
    if (!symcoll_dev_group_sync_slot(h, g, g.slot, a.collective, true, true))
        return false;
    for (int step = 0; step < h.team_size; step++) {
        int m = symcoll_coll_member_after(h, step + g.slot);
        const char *src;
        char *dst;
        if (!symcoll_coll_flow(a, flow, push ? me : m, push ? m : me, &src, &dst))
            continue;
        if (push)
            dst = symcoll_coll_member_ptr(h, dst, m);
        else
            src = symcoll_coll_member_ptr(h, src, m);
        symcoll_coll_copy(g, dst + begin, src + begin, end - begin);
    }
    return symcoll_dev_group_sync_slot(h, g, g.slot, a.collective, true, g.reads_after);
}

#endif
