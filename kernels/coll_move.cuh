/* broadcast, fcollect and alltoall as flows between team members: each collective only says
 * what member `from` sends to member `to` (coll_flow); the LL, push and pull algorithms move
 * the flows. */
#ifndef SYMCOLL_COLL_MOVE_CUH
#define SYMCOLL_COLL_MOVE_CUH

#include "coll_ll.cuh"

/* The flow from member `from` to member `to` of each kind (kernels/coll_algorithms.h):
 * args.bytes from the range *src of from's src buffer to the range *dst of to's dst buffer,
 * both as this PE's symmetric addresses. False when nothing flows (a broadcast from a
 * non-root, the root's in-place copy, a synchronization, or a reduction, whose kernel moves
 * its own data). */
SYMCOLL_DEV bool coll_flow_ONE_TO_ALL(const symcoll_coll_args_t &a, int from, int to,
                                      const char **src, char **dst) {
    *src = a.src;
    *dst = a.dst;
    return from == a.root && (from != to || a.src != a.dst);
}
SYMCOLL_DEV bool coll_flow_GATHER(const symcoll_coll_args_t &a, int from, int to, const char **src,
                                  char **dst) {
    (void)to;
    *src = a.src;
    *dst = a.dst + (size_t)from * a.bytes;
    return true;
}
SYMCOLL_DEV bool coll_flow_EXCHANGE(const symcoll_coll_args_t &a, int from, int to,
                                    const char **src, char **dst) {
    *src = a.src + (size_t)to * a.bytes;
    *dst = a.dst + (size_t)from * a.bytes;
    return true;
}
SYMCOLL_DEV bool coll_flow_NONE(const symcoll_coll_args_t &, int, int, const char **, char **) {
    return false;
}
#define coll_flow_SYNC coll_flow_NONE
#define coll_flow_REDUCE coll_flow_NONE
#define coll_flow_REDUCE_SCATTER coll_flow_NONE
#define coll_flow_EXCHANGE_COUNTED coll_flow_NONE

/* The flow of a collective of the registry (kernels/collectives.def), by its flow column. */
SYMCOLL_DEV bool coll_flow(const symcoll_coll_args_t &a, int collective, int from, int to,
                           const char **src, char **dst) {
#define FLOW_CASE(id, name, nccl, tuned, flow, algorithms)                                         \
    case SYMCOLL_COLL_##id:                                                                        \
        return coll_flow_##flow(a, from, to, src, dst);
    switch (collective) { SYMCOLL_COLLECTIVES(FLOW_CASE) }
#undef FLOW_CASE
    return false;
}

/* LL: this PE's flows to peers go through their scratch; its own flow is a local copy. */
SYMCOLL_DEV void coll_move_ll(const symcoll_coll_args_t &a, int collective) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe;
    const char *src;
    char *dst;
    bool produces = false;
    for (int m = 0; m < h.team_size; m++)
        produces = produces || (m != me && coll_flow(a, collective, me, m, &src, &dst));
    uint64_t epoch = coll_ll_epoch(h);
    for (size_t round = 0, rounds = coll_ll_rounds(a.bytes); round < rounds; round++) {
        size_t offset, len;
        if (!coll_ll_round(h, a.bytes, round, produces, collective, &epoch, &offset, &len))
            return;
        for (int step = 1; step < h.team_size; step++) {
            int m = coll_member_after(h, step);
            if (coll_flow(a, collective, me, m, &src, &dst))
                coll_ll_send(h, m, epoch, src + offset, len);
        }
        if (coll_flow(a, collective, me, me, &src, &dst))
            coll_copy(dst + offset, src + offset, len);
        bool ok = true;
        for (int step = 1; ok && step < h.team_size; step++) {
            int m = coll_member_after(h, step);
            if (coll_flow(a, collective, m, me, &src, &dst))
                ok = coll_ll_recv(h, m, epoch, dst + offset, len, collective);
        }
        if (!coll_ll_ack(h, epoch, ok))
            return;
    }
    coll_ll_finish(h, epoch);
}

/* Bandwidth: block b moves part b of every flow, with 16-byte accesses where the buffers
 * allow, straight to (push) or from (pull) the peer's memory. The entry sync of block slot b
 * makes every peer's buffers ready; the exit sync keeps every peer's part b of src and dst
 * in use until all are done with it. Blocks start at different members, so that the local
 * copy overlaps the NVLink traffic of other blocks. */
SYMCOLL_DEV void coll_move_bw(const symcoll_coll_args_t &a, int collective, bool push) {
    const symcoll_device_t &h = a.h;
    const int me = h.team_my_pe;
    size_t begin, end;
    coll_share(a.bytes, gridDim.x, blockIdx.x, 16, &begin, &end);
    if (!symcoll_dev_sync_slot(h, blockIdx.x, collective))
        return;
    for (int step = 0; step < h.team_size; step++) {
        int m = coll_member_after(h, step + blockIdx.x);
        const char *src;
        char *dst;
        if (!coll_flow(a, collective, push ? me : m, push ? m : me, &src, &dst))
            continue;
        if (push)
            dst = coll_member_ptr(h, dst, m);
        else
            src = coll_member_ptr(h, src, m);
        coll_copy(dst + begin, src + begin, end - begin);
    }
    symcoll_dev_sync_slot_final(h, blockIdx.x, collective);
}

#endif
