/* Teams: WORLD, NODE and strided splits, each with a symmetric synchronization area (from a
 * pool carved out of the heap at init) and a host-mapped timeout record. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootstrap/bootstrap.h"
#include "heap.h"
#include "internal.h"
#include "rma_remote.h"
#include "symcoll_sync_layout.h"

static char *sync_pool; /* SYMCOLL_TEAM_SYNC_SLOTS areas of SYMCOLL_SYNC_BYTES(n_pes) */
/* Per synchronization slot, the WORLD PEs of the team of this PE's that holds it (0: free here);
 * a slot kept after a timeout across nodes keeps its team's. */
static uint64_t slot_members[SYMCOLL_TEAM_SYNC_SLOTS];
/* Each team's records, host-mapped: what device waits and alltoallv kernels leave for the host. */
typedef struct {
    symcoll_timeout_record_t timeout;
    symcoll_overflow_record_t overflow;
} team_records_t;
static team_records_t *records, *records_device;

static size_t sync_area_bytes(void) {
    return SYMCOLL_SYNC_BYTES(symcoll_g.n_pes);
}

/* Bit i: team handle i is free on this PE (the built-in handles never are). */
static uint64_t free_handles(void) {
    uint64_t mask = 0;
    for (int i = SYMCOLL_TEAM_NODE + 1; i < SYMCOLL_MAX_TEAMS; i++)
        if (!symcoll_g.teams[i].in_use)
            mask |= 1ull << i;
    return mask;
}

bool symcoll_nodes_spans(const symcoll_team_state_t *t) {
    if (!symcoll_g.proxy)
        return false;
    for (int i = 0; i < t->size; i++)
        if (!((symcoll_g.reachable >> (t->start + i * t->stride)) & 1ull))
            return true;
    return false;
}

/* The WORLD PEs start + i * stride (i < size) as a bitmask. */
static uint64_t members_of(int start, int stride, int size) {
    uint64_t mask = 0;
    for (int i = 0; i < size; i++)
        mask |= 1ull << (start + i * stride);
    return mask;
}

/* keep_slot: the team's synchronization slot stays out of use until finalize. */
static void release_team(symcoll_team_state_t *t, bool keep_slot) {
    if (!keep_slot)
        slot_members[t->sync_slot] = 0;
    memset(t, 0, sizeof *t);
}

/* Zeroes the area; the caller makes the PEs wait for each other before anyone signals. */
static symcoll_status_t setup_team(int index, int slot, int start, int stride, int size) {
    symcoll_team_state_t *t = &symcoll_g.teams[index];
    memset(t, 0, sizeof *t);
    t->handle = index;
    t->start = start;
    t->stride = stride;
    t->size = size;
    t->my_pe = -1;
    int offset = symcoll_g.my_pe - start;
    if (offset >= 0 && offset % stride == 0 && offset / stride < size)
        t->my_pe = offset / stride;
    t->sync = sync_pool + (size_t)slot * sync_area_bytes();
    memset(&records[index], 0, sizeof records[index]);
    t->record = &records[index].timeout;
    t->record_device = &records_device[index].timeout;
    t->overflow = &records[index].overflow;
    t->overflow_device = &records_device[index].overflow;
    t->topo_class = symcoll_topology_team_class(&symcoll_g.topo, start, stride, size);
    t->in_use = true;
    slot_members[slot] = members_of(start, stride, size);
    t->sync_slot = slot;
    symcoll_status_t st = symcoll_cuda_status(cudaMemset(t->sync, 0, SYMCOLL_SYNC_BYTES(size)),
                                              "team", "cudaMemset of the synchronization area");
    if (st != SYMCOLL_SUCCESS)
        release_team(t, false);
    return st;
}

symcoll_status_t symcoll_teams_create_builtin(void) {
    symcoll_status_t st = symcoll_cuda_status(
        cudaHostAlloc((void **)&records, sizeof *records * SYMCOLL_MAX_TEAMS, cudaHostAllocMapped),
        "symcoll_init", "cudaHostAlloc of the teams' records");
    if (st != SYMCOLL_SUCCESS)
        return st;
    memset(records, 0, sizeof *records * SYMCOLL_MAX_TEAMS);
    st = symcoll_cuda_status(cudaHostGetDevicePointer((void **)&records_device, records, 0),
                             "symcoll_init", "cudaHostGetDevicePointer");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_heap_alloc("symcoll_init", sync_area_bytes() * SYMCOLL_TEAM_SYNC_SLOTS,
                                (void **)&sync_pool);
    if (st != SYMCOLL_SUCCESS)
        return st;
    memset(slot_members, 0, sizeof slot_members);
    int node_start = symcoll_g.my_pe - symcoll_g.local_rank;
    st = setup_team(SYMCOLL_TEAM_WORLD, 0, 0, 1, symcoll_g.n_pes);
    if (st == SYMCOLL_SUCCESS)
        st = setup_team(SYMCOLL_TEAM_NODE, 1, node_start, 1, symcoll_g.local_size);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaDeviceSynchronize(), "symcoll_init", "synchronize");
    symcoll_status_t synced = symcoll_g.boot->barrier(symcoll_g.boot);
    return st != SYMCOLL_SUCCESS ? st : synced;
}

void symcoll_teams_destroy_all(void) {
    memset(symcoll_g.teams, 0, sizeof symcoll_g.teams);
    sync_pool = NULL;
    memset(slot_members, 0, sizeof slot_members);
    if (records)
        cudaFreeHost(records);
    records = records_device = NULL;
}

/* missing_pe is -1 where the wait does not know who should have written (a signal). */
static symcoll_status_t broken_team(const char *fn, const symcoll_team_state_t *t) {
    const symcoll_timeout_record_t *r = t->record;
    char awaited[64] = "a signal";
    if (r->missing_pe >= 0)
        snprintf(awaited, sizeof awaited, "PE %d", r->missing_pe);
    /* A failed proxy leaves device waits for other nodes unanswered: its failure is the cause. */
    char cause[512] = "SYMCOLL_TIMEOUT_MS sets the limit";
    if (symcoll_g.proxy && symcoll_rma_remote_usable() != SYMCOLL_SUCCESS)
        snprintf(cause, sizeof cause, "the proxy to other nodes had failed: %s",
                 symcoll_last_error());
    return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                             "%s: team %d is broken: a device wait timed out in %s waiting for "
                             "%s (epoch %" PRIu64 "); %s",
                             fn, (int)t->handle,
                             symcoll_collective_name((symcoll_collective_t)r->collective), awaited,
                             r->epoch, cause);
}

/* Reported once: the record is copied, then released for the next kernel that finds a call
 * that does not fit. */
static symcoll_status_t overflowed(const char *fn, symcoll_team_state_t *t) {
    symcoll_overflow_record_t r = *t->overflow;
    __atomic_store_n(&t->overflow->overflowed, 0, __ATOMIC_RELEASE);
    char why[200];
    if (r.kind == SYMCOLL_OVERFLOW_CALL_MISMATCH)
        snprintf(why, sizeof why,
                 "PE %d's call differs from this PE's (dst_capacity %" PRIu64 " there, %" PRIu64
                 " here, or n_experts, major_align, type or dispatch against combine): every PE "
                 "must pass the same",
                 r.pe, r.total, r.capacity);
    else if (r.kind == SYMCOLL_OVERFLOW_SRC)
        snprintf(why, sizeof why,
                 "PE %d's send_counts add up to %" PRIu64 " elements, past the %" PRIu64
                 " from src to its allocation's end",
                 r.pe, r.total, r.capacity);
    else
        snprintf(why, sizeof why,
                 "PE %d was sent %" PRIu64 " elements for a dst_capacity of %" PRIu64, r.pe,
                 r.total, r.capacity);
    return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                             "%s: an earlier alltoallv, dispatch or combine on team %d moved "
                             "nothing: %s",
                             fn, (int)t->handle, why);
}

static symcoll_status_t lookup(const char *fn, symcoll_team_t team, symcoll_team_state_t **out) {
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (team < 0 || team >= SYMCOLL_MAX_TEAMS || !symcoll_g.teams[team].in_use)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: team %d is not a valid team",
                                 fn, (int)team);
    *out = &symcoll_g.teams[team];
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_team_for_call(const char *fn, symcoll_team_t team,
                                       symcoll_team_state_t **out) {
    symcoll_team_state_t *t = NULL;
    symcoll_status_t st = lookup(fn, team, &t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (t->my_pe < 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: this PE (%d) is not a member of team %d", fn, symcoll_g.my_pe,
                                 (int)team);
    if (t->record->expired == 1)
        return broken_team(fn, t);
    *out = t;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_teams_check_broken(const char *fn) {
    for (int team = 0; team < SYMCOLL_MAX_TEAMS; team++) {
        const symcoll_team_state_t *t = &symcoll_g.teams[team];
        if (t->in_use && t->my_pe >= 0 && t->record->expired == 1)
            return broken_team(fn, t);
    }
    return SYMCOLL_SUCCESS;
}

/* Only here, not in every call: a call refused on one PE for a record that another PE has not
 * seen yet would launch on one and not the other. */
symcoll_status_t symcoll_team_status(symcoll_team_t team) {
    symcoll_team_state_t *t = NULL;
    symcoll_status_t st = symcoll_team_for_call("symcoll_team_status", team, &t);
    if (st == SYMCOLL_SUCCESS && t->overflow && t->overflow->overflowed == 1)
        st = overflowed("symcoll_team_status", t);
    return st;
}

symcoll_device_t symcoll_team_device(const symcoll_team_state_t *t) {
    symcoll_device_t h;
    memset(&h, 0, sizeof h);
    h.version = SYMCOLL_DEVICE_HANDLE_VERSION;
    h.size = sizeof h;
    h.heap_base = symcoll_g.heap_base;
    h.heap_stride = symcoll_g.heap_stride;
    h.heap_size = symcoll_g.heap_size;
    h.reachable = symcoll_g.reachable;
    h.my_pe = symcoll_g.my_pe;
    h.n_pes = symcoll_g.n_pes;
    h.team = t->handle;
    h.team_start = t->start;
    h.team_stride = t->stride;
    h.team_size = t->size;
    h.team_my_pe = t->my_pe;
    h.team_sync = t->sync;
    h.timeout_ns = symcoll_g.timeout_ns;
    h.record = t->record_device;
    h.proxy_ring = symcoll_g.proxy_ring;
    return h;
}

/* One PE's part of a split: what it asks for and what it has free. */
typedef struct {
    int32_t valid;               /* a member of the parent with a request that fits */
    int32_t failed;              /* rejected the call (bad arguments, or its setup failed) */
    int32_t start, stride, size; /* WORLD numbering */
    uint32_t free_slots;         /* agreed: free of every team that shares a PE with the new one */
    uint64_t free_handles;
    uint64_t slot_members[SYMCOLL_TEAM_SYNC_SLOTS]; /* this PE's slot_members */
} split_request_t;

/* Whether WORLD PE pe is a member of the team of request r. */
static bool in_request(const split_request_t *r, int pe) {
    int offset = pe - r->start;
    return r->valid && offset >= 0 && offset % r->stride == 0 && offset / r->stride < r->size;
}

/* Every PE's requests, gathered over WORLD; *agreed gets the common request, the handles free on
 * every PE (a handle names the team everywhere) and the synchronization slots that no PE holds
 * for a team sharing a PE with the new one: only a team's members signal into its area and
 * count its arrivals, so teams with no PE in common may share a slot (one team per local rank,
 * each of one PE per node, on nodes of 8 GPUs), while a PE's late writes into a team's area (an
 * LL acknowledgement, a flag after a timeout) cannot reach a new team of a member that has
 * destroyed it before this PE has. */
static symcoll_status_t agree_on_split(const char *fn, const split_request_t *mine,
                                       split_request_t *agreed) {
    split_request_t *all = calloc((size_t)symcoll_g.n_pes, sizeof *all);
    if (!all)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    symcoll_status_t st = symcoll_g.boot->allgather(symcoll_g.boot, mine, all, sizeof *mine);
    *agreed =
        (split_request_t){.free_slots = (1u << SYMCOLL_TEAM_SYNC_SLOTS) - 1, .free_handles = ~0ull};
    for (int pe = 0; pe < symcoll_g.n_pes && st == SYMCOLL_SUCCESS; pe++) {
        agreed->free_handles &= all[pe].free_handles;
        if (all[pe].failed && !mine->failed)
            st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                   "%s: PE %d rejected the split (its symcoll_last_error() says "
                                   "why)",
                                   fn, pe);
        if (!all[pe].valid || st != SYMCOLL_SUCCESS)
            continue;
        if (agreed->valid && (agreed->start != all[pe].start || agreed->stride != all[pe].stride ||
                              agreed->size != all[pe].size))
            st = symcoll_set_error(SYMCOLL_ERROR_SYMMETRY,
                                   "%s: PEs disagree on the new team (PE %d: start %d stride %d "
                                   "size %d in WORLD numbering)",
                                   fn, pe, all[pe].start, all[pe].stride, all[pe].size);
        agreed->valid = 1;
        agreed->start = all[pe].start;
        agreed->stride = all[pe].stride;
        agreed->size = all[pe].size;
    }
    uint64_t team = agreed->valid ? members_of(agreed->start, agreed->stride, agreed->size) : 0;
    for (int pe = 0; pe < symcoll_g.n_pes; pe++)
        for (int s = 0; s < SYMCOLL_TEAM_SYNC_SLOTS; s++)
            if (all[pe].slot_members[s] & team)
                agreed->free_slots &= ~(1u << s);
    free(all);
    return st;
}

/* This PE's request: parent's members ask for the new team; other PEs (parent unknown here,
 * or SYMCOLL_TEAM_INVALID) only take part. */
static symcoll_status_t split_request(const char *fn, symcoll_team_t parent, int start, int stride,
                                      int size, symcoll_team_t *new_team, split_request_t *mine) {
    *mine = (split_request_t){.free_handles = free_handles()};
    memcpy(mine->slot_members, slot_members, sizeof slot_members);
    if (!new_team)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: new_team is NULL", fn);
    *new_team = SYMCOLL_TEAM_INVALID;
    bool known = parent >= 0 && parent < SYMCOLL_MAX_TEAMS && symcoll_g.teams[parent].in_use;
    const symcoll_team_state_t *p = known ? &symcoll_g.teams[parent] : NULL;
    if (!p || p->my_pe < 0)
        return SYMCOLL_SUCCESS;
    long long last = (long long)start + ((long long)size - 1) * stride;
    if (size < 1 || stride < 1 || start < 0 || start >= p->size || last >= p->size)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: start %d, stride %d, size %d do not fit parent team %d of "
                                 "%d PEs",
                                 fn, start, stride, size, (int)parent, p->size);
    mine->valid = 1;
    mine->start = p->start + start * p->stride;
    /* A team of one PE has no second member: its stride means nothing and may be any size,
     * so scaling it could overflow (to 0, a divisor below). A larger team's stride is less
     * than the parent's size, so its product stays small. */
    mine->stride = size > 1 ? stride * p->stride : 1;
    mine->size = size;
    return SYMCOLL_SUCCESS;
}

/* The members set the team up; then every PE learns whether all of them succeeded. */
static symcoll_status_t split_setup(const char *fn, const split_request_t *agreed, int index,
                                    int slot, bool member) {
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (member) {
        st = setup_team(index, slot, agreed->start, agreed->stride, agreed->size);
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_cuda_status(cudaDeviceSynchronize(), fn, "synchronize");
    }
    split_request_t mine = {.failed = st != SYMCOLL_SUCCESS}, all_done;
    symcoll_status_t shared = agree_on_split(fn, &mine, &all_done);
    if (st == SYMCOLL_SUCCESS)
        st = shared;
    if (st != SYMCOLL_SUCCESS && member && symcoll_g.teams[index].in_use)
        release_team(&symcoll_g.teams[index], false);
    return st;
}

symcoll_status_t symcoll_team_split_strided(symcoll_team_t parent, int start, int stride, int size,
                                            symcoll_team_t *new_team) {
    static const char fn[] = "symcoll_team_split_strided";
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    /* Collective over WORLD: every PE joins both exchanges, also after a local error, so that
     * nobody waits for it and every PE agrees on the handle and the synchronization area. */
    split_request_t mine, agreed;
    symcoll_status_t local = split_request(fn, parent, start, stride, size, new_team, &mine);
    mine.failed = local != SYMCOLL_SUCCESS;
    st = agree_on_split(fn, &mine, &agreed);
    if (local != SYMCOLL_SUCCESS)
        st = local;
    int slot = __builtin_ffs((int)agreed.free_slots) - 1;
    int index = __builtin_ffsll((long long)agreed.free_handles) - 1;
    if (st == SYMCOLL_SUCCESS && !agreed.valid)
        st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                               "%s: no PE is a member of parent team %d", fn, (int)parent);
    if (st == SYMCOLL_SUCCESS && (slot < 0 || index < 0))
        st = symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                               "%s: too many teams at once (no synchronization area of the %d is "
                               "free of every team that shares a PE with the new one, or no "
                               "handle of the %d is free on every PE; destroy some first, on "
                               "every member)",
                               fn, SYMCOLL_TEAM_SYNC_SLOTS, SYMCOLL_MAX_TEAMS - 2);
    if (st != SYMCOLL_SUCCESS)
        return st;
    bool member = in_request(&agreed, symcoll_g.my_pe);
    st = split_setup(fn, &agreed, index, slot, member);
    if (st == SYMCOLL_SUCCESS && member)
        *new_team = index;
    return st;
}

symcoll_status_t symcoll_team_destroy(symcoll_team_t team) {
    static const char fn[] = "symcoll_team_destroy";
    symcoll_team_state_t *t = NULL;
    symcoll_status_t st = lookup(fn, team, &t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (team == SYMCOLL_TEAM_WORLD || team == SYMCOLL_TEAM_NODE)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: team %d is built in and cannot be destroyed", fn, (int)team);
    /* Local: the handle and synchronization area are reused only by a later split, which
     * takes a handle free on every PE and a slot that no PE holds for a team sharing a PE with
     * its own, so only after every member has destroyed the team and its GPU has finished with
     * it. */
    st = symcoll_cuda_status(cudaDeviceSynchronize(), fn, "waiting for the device");
    /* A team across nodes broken by a timeout may leave this PE's arrivals ahead of its waits in
     * the slot (internal.h): kept, the slot stays out of every later team that shares a PE with
     * this one. */
    release_team(t, t->record->expired == 1 && symcoll_nodes_spans(t));
    return st;
}

int symcoll_team_my_pe(symcoll_team_t team) {
    if (!symcoll_g.initialized || team < 0 || team >= SYMCOLL_MAX_TEAMS ||
        !symcoll_g.teams[team].in_use)
        return -1;
    return symcoll_g.teams[team].my_pe;
}

int symcoll_team_n_pes(symcoll_team_t team) {
    if (!symcoll_g.initialized || team < 0 || team >= SYMCOLL_MAX_TEAMS ||
        !symcoll_g.teams[team].in_use)
        return -1;
    return symcoll_g.teams[team].size;
}

int symcoll_team_translate_pe(symcoll_team_t src_team, int pe, symcoll_team_t dest_team) {
    if (symcoll_team_n_pes(src_team) < 0 || symcoll_team_n_pes(dest_team) < 0)
        return -1;
    const symcoll_team_state_t *s = &symcoll_g.teams[src_team], *d = &symcoll_g.teams[dest_team];
    if (pe < 0 || pe >= s->size)
        return -1;
    int offset = s->start + pe * s->stride - d->start;
    if (offset < 0 || offset % d->stride != 0 || offset / d->stride >= d->size)
        return -1;
    return offset / d->stride;
}
