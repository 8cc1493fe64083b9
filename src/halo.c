/* Halo plans: collective creation (validation, the PE grid, the face checks, the message
 * table and the symmetric flags), queries and destruction. */
#include <stdlib.h>
#include <string.h>
#include "bootstrap/bootstrap.h"
#include "halo_geometry.h"
#include "env.h"
#include "halo_plan.h"
#include "halo_team_records.h"
#include "internal.h"
#include "rma_remote.h"

void symcoll_halo_desc_default(symcoll_halo_desc_t *d) {
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->version = SYMCOLL_HALO_DESC_VERSION;
    d->ndims = 1;
    d->interior[0] = d->interior[1] = d->interior[2] = 1;
    d->type = SYMCOLL_FLOAT32;
}

/* This PE's messages toward every direction, and the largest span of the team. */
static symcoll_status_t build_messages(const char *fn, struct symcoll_halo_plan *p,
                                       const symcoll_team_state_t *t,
                                       const symcoll_halo_desc_t *descs, int team_size,
                                       symcoll_halo_msg_t *msg, symcoll_halo_msg_t *in) {
    for (int pe = 0; pe < team_size; pe++) {
        size_t span = symcoll_halo_span(&descs[pe]);
        p->span = span > p->span ? span : p->span;
    }
    if (p->team_pe < 0)
        return SYMCOLL_SUCCESS;
    for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++) {
        memset(&msg[dir], 0, sizeof msg[dir]);
        memset(&in[dir], 0, sizeof in[dir]);
        msg[dir].pe = -1;
        in[dir].pe = -1;
        int nb = symcoll_halo_neighbor_of(&p->desc, p->team_pe, dir);
        if (nb < 0 || !symcoll_halo_dir_used(&p->desc, dir))
            continue;
        if (!symcoll_halo_message(&p->desc, &descs[nb], dir, &msg[dir]))
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: the cells sent toward direction %d,%d,%d hold 4 GiB or "
                                     "more",
                                     fn, dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1);
        int world = t->start + nb * t->stride;
        bool remote = symcoll_rma_remote(world);
        if (world != symcoll_g.my_pe && !remote && !((symcoll_g.reachable >> world) & 1ull))
            return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                     "%s: neighbour PE %d (direction %d,%d,%d) is not load/store "
                                     "reachable from PE %d; halo exchanges need a P2P path",
                                     fn, world, dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1,
                                     symcoll_g.my_pe);
        /* The neighbour's message toward us, as it computes it: its cells land in our halo. */
        symcoll_halo_message(&descs[nb], &p->desc, SYMCOLL_HALO_DIRS - 1 - dir, &in[dir]);
        msg[dir].pe = in[dir].pe = world;
        msg[dir].self = in[dir].self = world == symcoll_g.my_pe;
        if (remote) {
            p->remote.dir[p->remote.n_dirs++] = (uint8_t)dir;
            continue;
        }
        p->dir[p->n_dirs] = (uint8_t)dir;
        p->dir_msg[p->n_dirs] = msg[dir];
        p->dir_in_bytes[p->n_dirs] = (size_t)in[dir].row_bytes * in[dir].rows * in[dir].planes;
        p->dir_bytes[p->n_dirs++] = (size_t)msg[dir].row_bytes * msg[dir].rows * msg[dir].planes;
    }
    return SYMCOLL_SUCCESS;
}

/* The largest message toward dir of any team PE, in whole 8-byte words; *narrow: one of them
 * has rows of SYMCOLL_HALO_LL_NARROW_ROW bytes or fewer. */
static size_t widest_message(const symcoll_halo_desc_t *descs, int team_size, int dir,
                             int *narrow) {
    size_t widest = 0;
    *narrow = 0;
    for (int pe = 0; pe < team_size; pe++) {
        int nb = symcoll_halo_neighbor_of(&descs[0], pe, dir);
        symcoll_halo_msg_t m;
        if (nb < 0 || !symcoll_halo_message(&descs[pe], &descs[nb], dir, &m))
            continue;
        size_t bytes = (size_t)m.row_bytes * m.rows * m.planes;
        widest = bytes > widest ? bytes : widest;
        *narrow |= m.row_bytes <= SYMCOLL_HALO_LL_NARROW_ROW;
    }
    return (widest + 7) / 8 * 8;
}

/* LL slot pairs, one per direction the description uses, sized alike on every PE (from every
 * team PE's faces) and alike for a direction and its opposite, so that a sender's message
 * fits the receiver's slot exactly when the receiver expects it as lines. Returns the bytes
 * of all slots. */
static size_t size_ll_slots(struct symcoll_halo_plan *p, const symcoll_halo_desc_t *descs,
                            int team_size, size_t ll_bytes) {
    size_t payload[SYMCOLL_HALO_DIRS] = {0};
    for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++) {
        if (!symcoll_halo_dir_used(&descs[0], dir))
            continue;
        int narrow;
        size_t widest = widest_message(descs, team_size, dir, &narrow);
        payload[dir] = ll_bytes / 8 * 8;
        if (payload[dir] > SYMCOLL_HALO_LL_MAX_BYTES)
            payload[dir] = SYMCOLL_HALO_LL_MAX_BYTES;
        if (narrow && widest > payload[dir])
            payload[dir] = widest < SYMCOLL_HALO_LL_MAX_BYTES ? widest : SYMCOLL_HALO_LL_MAX_BYTES;
    }
    size_t total = 0;
    for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++) {
        size_t back = payload[SYMCOLL_HALO_DIRS - 1 - dir];
        p->ll_payload[dir] = (uint32_t)(payload[dir] > back ? payload[dir] : back);
        p->ll_off[dir] = total;
        total += (size_t)p->ll_payload[dir] * 2 * 2; /* two parities of 16-byte lines */
    }
    return total;
}

/* Bit d: direction d (or its opposite) reaches a neighbour on another node from some PE of
 * the job; collective over WORLD. */
static symcoll_status_t directions_across_nodes(const char *fn, const struct symcoll_halo_plan *p,
                                                uint32_t *across) {
    uint32_t mine = 0;
    for (int i = 0; i < p->remote.n_dirs; i++)
        mine |= 1u << p->remote.dir[i] | 1u << (SYMCOLL_HALO_DIRS - 1 - p->remote.dir[i]);
    uint32_t *all = calloc((size_t)symcoll_g.n_pes, sizeof *all);
    symcoll_status_t st =
        all ? SYMCOLL_SUCCESS
            : symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    st = symcoll_bootstrap_agree(symcoll_g.boot, fn, st);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_g.boot->allgather(symcoll_g.boot, &mine, all, sizeof mine);
    *across = 0;
    for (int pe = 0; st == SYMCOLL_SUCCESS && pe < symcoll_g.n_pes; pe++)
        *across |= all[pe];
    free(all);
    return st;
}

/* The slots for neighbours on other nodes (halo_launch.h) of the directions in across, sized
 * as the LL slots are: alike on every PE, and for a direction and its opposite. Returns their
 * bytes with the counters before them; 0 where no direction crosses nodes. */
static size_t size_remote_slots(struct symcoll_halo_plan *p, const symcoll_halo_desc_t *descs,
                                int team_size, uint32_t across) {
    if (!across)
        return 0;
    size_t widest[SYMCOLL_HALO_DIRS] = {0};
    int narrow;
    for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++)
        if ((across >> dir) & 1u)
            widest[dir] = widest_message(descs, team_size, dir, &narrow);
    size_t total = SYMCOLL_HALO_REMOTE_SLOTS;
    for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++) {
        size_t back = widest[SYMCOLL_HALO_DIRS - 1 - dir];
        p->remote.slot[dir] = ((widest[dir] > back ? widest[dir] : back) + 15) / 16 * 16;
        p->remote.off[dir] = total;
        total += 3 * p->remote.slot[dir];
    }
    return total;
}

/* Zeroes this PE's area and writes its message tables; the caller waits for every PE. */
static symcoll_status_t fill_area(const char *fn, struct symcoll_halo_plan *p,
                                  const symcoll_team_state_t *t, const symcoll_halo_msg_t *msg,
                                  const symcoll_halo_msg_t *in) {
    symcoll_status_t st =
        symcoll_cuda_status(cudaMemset(p->area, 0, p->area_bytes), fn, "cudaMemset");
    if (st != SYMCOLL_SUCCESS || p->team_pe < 0)
        return st;
    st = symcoll_cuda_status(cudaMemcpy(p->area + SYMCOLL_HALO_AREA_MSG, msg,
                                        SYMCOLL_HALO_DIRS * sizeof *msg, cudaMemcpyHostToDevice),
                             fn, "cudaMemcpy of the message table");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaMemcpy(p->area + SYMCOLL_HALO_AREA_IN, in,
                                            SYMCOLL_HALO_DIRS * sizeof *in, cudaMemcpyHostToDevice),
                                 fn, "cudaMemcpy of the incoming message table");
    symcoll_halo_device_t *d = &p->dev;
    d->version = SYMCOLL_HALO_DEVICE_HANDLE_VERSION;
    d->size = sizeof *d;
    d->team = symcoll_team_device(t);
    d->msg = (const symcoll_halo_msg_t *)(p->area + SYMCOLL_HALO_AREA_MSG);
    d->arrive = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_ARRIVE);
    d->data = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_DATA);
    d->send_epoch = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_SEND_EPOCH);
    d->recv_epoch = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_RECV_EPOCH);
    d->sent_blocks = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_SENT_BLOCKS);
    d->sum_epoch = (uint64_t *)(p->area + SYMCOLL_HALO_AREA_SUM_EPOCH);
    d->sum_slots = p->area + SYMCOLL_HALO_AREA_SUM;
    for (int i = 0; i < p->n_dirs; i++)
        d->dirs |= 1u << p->dir[i];
    p->remote.team = d->team;
    p->remote.msg = d->msg;
    p->remote.in = (const symcoll_halo_msg_t *)(p->area + SYMCOLL_HALO_AREA_IN);
    /* The job's SM share: the halo grids of PEs that share a GPU are resident together. Across
     * nodes one SM stays free: the kernel may wait for node peers that wait for the proxy,
     * whose signal kernel needs room on this GPU. */
    int sms =
        p->across_nodes && symcoll_g.sm_count > 1 ? symcoll_g.sm_count - 1 : symcoll_g.sm_count;
    p->max_blocks = 2 * sms;
    return st;
}

/* Everything after the first exchange of records; every step is collective over WORLD. */
static symcoll_status_t create_agreed(const char *fn, struct symcoll_halo_plan *p,
                                      const symcoll_halo_record_t *all) {
    int team_size = 0;
    symcoll_halo_desc_t *descs = NULL;
    symcoll_status_t st = symcoll_halo_team_descs(fn, all, symcoll_g.n_pes, &team_size, &descs);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_halo_check_team(fn, team_size, descs);
    /* A PE outside the team still answers symcoll_halo_grid with the team's grid. */
    if (st == SYMCOLL_SUCCESS && p->team_pe < 0)
        memcpy(p->desc.pe_grid, descs[0].pe_grid, sizeof p->desc.pe_grid);
    symcoll_team_state_t *t = NULL;
    symcoll_halo_msg_t msg[SYMCOLL_HALO_DIRS], in[SYMCOLL_HALO_DIRS];
    size_t ll_bytes = 0, remote_bytes = 0;
    if (st == SYMCOLL_SUCCESS && p->team_pe >= 0)
        st = symcoll_team_for_call(fn, p->team, &t);
    if (st == SYMCOLL_SUCCESS) {
        ll_bytes = size_ll_slots(p, descs, team_size, (size_t)all[0].ll_bytes);
        st = build_messages(fn, p, t, descs, team_size, msg, in);
    }
    /* Also after a failure here, which may be this PE's alone (out of memory): the others wait
     * in this agreement. */
    st = symcoll_bootstrap_agree(symcoll_g.boot, fn, st);
    uint32_t across = 0;
    if (st == SYMCOLL_SUCCESS)
        st = directions_across_nodes(fn, p, &across);
    p->across_nodes = across != 0;
    if (st == SYMCOLL_SUCCESS)
        remote_bytes = size_remote_slots(p, descs, team_size, across);
    free(descs);
    p->area_bytes = SYMCOLL_HALO_AREA_LL(team_size) + ll_bytes + remote_bytes;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_heap_alloc(fn, p->area_bytes, (void **)&p->area);
    if (st != SYMCOLL_SUCCESS)
        return st;
    p->ll = p->area + SYMCOLL_HALO_AREA_LL(team_size);
    p->remote.remote = remote_bytes ? p->ll + ll_bytes : NULL;
    st = fill_area(fn, p, t, msg, in);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaDeviceSynchronize(), fn, "synchronize");
    /* No PE signals into an area before every PE has zeroed its copy. */
    symcoll_status_t synced = symcoll_g.boot->barrier(symcoll_g.boot);
    st = symcoll_bootstrap_agree(symcoll_g.boot, fn, st != SYMCOLL_SUCCESS ? st : synced);
    if (st != SYMCOLL_SUCCESS)
        symcoll_heap_free(fn, p->area);
    return st;
}

symcoll_status_t symcoll_halo_create(symcoll_team_t team, const symcoll_halo_desc_t *d,
                                     symcoll_halo_t *h) {
    static const char fn[] = "symcoll_halo_create";
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (h)
        *h = NULL;
    struct symcoll_halo_plan *p = calloc(1, sizeof *p);
    symcoll_halo_record_t *all = calloc((size_t)symcoll_g.n_pes, sizeof *all);
    symcoll_halo_record_t mine;
    memset(&mine, 0, sizeof mine);
    mine.team_pe = -1;
    mine.ll_bytes = (uint64_t)symcoll_env()->halo_ll_bytes;
    /* A local error still joins the agreement below, so that no PE waits for this one. */
    symcoll_status_t local =
        !h         ? symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: h is NULL", fn)
        : p && all ? SYMCOLL_SUCCESS
                   : symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if (local == SYMCOLL_SUCCESS && team != SYMCOLL_TEAM_INVALID) {
        int size = symcoll_team_n_pes(team), me = symcoll_team_my_pe(team);
        if (size < 0)
            local = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                      "%s: team %d is not a valid team", fn, (int)team);
        else if (me >= 0) {
            mine.team_pe = me;
            mine.team_size = size;
            mine.team_start = symcoll_g.teams[team].start;
            mine.team_stride = symcoll_g.teams[team].stride;
            local = symcoll_halo_normalize(fn, size, d, &mine.desc);
        }
    }
    /* Collective over WORLD: every PE agrees on the local errors first, so that none enters the
     * exchange of records that a PE without a buffer for them cannot join. */
    st = symcoll_bootstrap_agree(symcoll_g.boot, fn, local);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_g.boot->allgather(symcoll_g.boot, &mine, all, sizeof mine);
    if (st == SYMCOLL_SUCCESS) {
        p->team = team;
        p->team_pe = mine.team_pe;
        p->desc = mine.desc;
        st = create_agreed(fn, p, all);
    }
    free(all);
    if (st != SYMCOLL_SUCCESS) {
        free(p);
        return st;
    }
    *h = p;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_halo_destroy(symcoll_halo_t h) {
    static const char fn[] = "symcoll_halo_destroy";
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS || !h)
        return st;
    st = symcoll_heap_free(fn, h->area);
    free(h);
    return st;
}

int symcoll_halo_neighbor(symcoll_halo_t h, int dim, int dir) {
    if (!h || h->team_pe < 0 || dim < 0 || dim > 2 || (dir != -1 && dir != 1))
        return -1;
    static const int scale[3] = {1, 3, 9};
    return symcoll_halo_neighbor_of(&h->desc, h->team_pe, 13 + dir * scale[dim]);
}

symcoll_status_t symcoll_halo_grid(symcoll_halo_t h, int pe_grid[3], int coords[3]) {
    static const char fn[] = "symcoll_halo_grid";
    if (!h || !pe_grid || !coords)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                                 !h         ? "h"
                                 : !pe_grid ? "pe_grid"
                                            : "coords");
    const symcoll_halo_desc_t *d = &h->desc;
    for (int i = 0; i < 3; i++)
        pe_grid[i] = d->pe_grid[i];
    if (h->team_pe >= 0)
        symcoll_halo_coords(d, h->team_pe, coords);
    else
        coords[0] = coords[1] = coords[2] = -1;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_halo_device_handle_get(symcoll_halo_t h, uint32_t version, size_t size,
                                                symcoll_halo_device_t *out) {
    const char *fn = "symcoll_halo_device_handle";
    symcoll_status_t st = symcoll_handle_version_check(fn, "halo device handle", version, size,
                                                       SYMCOLL_HALO_DEVICE_HANDLE_VERSION,
                                                       sizeof(symcoll_halo_device_t), out);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (!h || h->team_pe < 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: %s", fn,
                                 !h ? "h is NULL" : "this PE is outside the team");
    if (h->across_nodes)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: the plan's PEs have neighbours on other nodes; exchanges "
                                 "inside user kernels reach the PEs of one node only",
                                 fn);
    *out = h->dev;
    return SYMCOLL_SUCCESS;
}
