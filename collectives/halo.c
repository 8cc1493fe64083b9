/* Halo exchange on a stream: checks, the grid (blocks per direction by bytes), one launch; with
 * neighbours on other nodes, their boxes around it, one field at a time (halo_launch.h). */
#include <stdio.h>
#include <string.h>
#include "halo_launch.h"
#include "halo_plan.h"
#include "internal.h"
#include "rma_remote.h"

/* Accesses one block of the exchange kernel makes per direction: one round of loads in
 * flight per thread. Up to twice that, a direction gets a single block: a second one would
 * cost the multi-block handshake (two system fences and an atomic, about 2 us) for less than
 * a round's worth of saving. */
#define HALO_BLOCK_UNITS ((size_t)SYMCOLL_HALO_THREADS * SYMCOLL_HALO_DEPTH)

/* The widest access the kernel makes for list entry i on these fields: the message's, capped
 * by each field's alignment, as the kernel caps it. */
static size_t entry_unit(const struct symcoll_halo_plan *p, int i, void *const *fields, int n) {
    size_t unit = (size_t)p->dir_msg[i].unit;
    for (int f = 0; f < n; f++)
        while ((uintptr_t)fields[f] & (unit - 1))
            unit >>= 1;
    return unit;
}

/* True when list entry i travels as LL lines in an exchange of n fields: a neighbour that is
 * another PE, and both boxes of the pair (ours and the incoming one, computed alike on both
 * PEs) within an LL slot. */
static int entry_is_ll(const struct symcoll_halo_plan *p, int i, int n) {
    size_t in = p->dir_in_bytes[i], out = p->dir_bytes[i];
    size_t words = ((in > out ? in : out) + 7) / 8 * (size_t)n;
    return !p->dir_msg[i].self && words * 8 <= p->ll_payload[p->dir[i]];
}

/* Blocks per direction: by accesses (LL: by words), so that a strided face of narrow rows
 * gets as many blocks as a contiguous one of as many 16-byte units; one for a small face;
 * scaled down to the plan's grid limit. */
static void plan_grid(const struct symcoll_halo_plan *p, void *const *fields, int n_fields,
                      symcoll_halo_args_t *a) {
    size_t want[SYMCOLL_HALO_DIRS], total = 0;
    a->ll_entries = 0;
    for (int i = 0; i < p->n_dirs; i++) {
        size_t units;
        if (entry_is_ll(p, i, n_fields)) {
            a->ll_entries |= 1u << i;
            units = (p->dir_bytes[i] + 7) / 8 * (size_t)n_fields;
        } else {
            units = p->dir_bytes[i] / entry_unit(p, i, fields, n_fields) * (size_t)n_fields;
        }
        want[i] =
            units <= 2 * HALO_BLOCK_UNITS ? 1 : (units + HALO_BLOCK_UNITS - 1) / HALO_BLOCK_UNITS;
        total += want[i];
    }
    int first = 0;
    for (int i = 0; i < p->n_dirs; i++) {
        size_t blocks = total > (size_t)p->max_blocks ? want[i] * p->max_blocks / total : want[i];
        a->dir[i] = p->dir[i];
        a->msg[i] = p->dir_msg[i];
        a->first_block[i] = (uint16_t)first;
        first += blocks > 0 ? (int)blocks : 1;
    }
    a->first_block[p->n_dirs] = (uint16_t)first;
    a->n_dirs = p->n_dirs;
}

/* INVALID_ARGUMENT when two fields of one exchange overlap within span bytes: one field's halo
 * cells, written by the neighbours, could be another's interior, read at the same time. */
static symcoll_status_t fields_apart(const char *fn, void *const *fields, int n, size_t span) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            uintptr_t a = (uintptr_t)fields[i], b = (uintptr_t)fields[j];
            if ((a > b ? a - b : b - a) < span)
                return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                         "%s: fields[%d] %p and fields[%d] %p overlap: each "
                                         "field spans %zu bytes",
                                         fn, i, fields[i], j, fields[j], span);
        }
    return SYMCOLL_SUCCESS;
}

/* The rounds of the neighbours on other nodes around the kernel of the others (launched by
 * local, when the plan has any): field 0's boxes are handed to the proxy before it, and each
 * later field's once the previous one is in (its slot is then free on the neighbour). After a
 * failed launch the other rounds are still enqueued, so that the round counts stay in step
 * with the neighbours'. */
static symcoll_status_t exchange_across_nodes(const char *fn, symcoll_halo_t h, void *const *fields,
                                              int n, cudaStream_t stream,
                                              const symcoll_halo_args_t *local) {
    symcoll_status_t st = symcoll_rma_remote_usable();
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_halo_remote_args_t r = h->remote;
    cudaError_t first = cudaSuccess;
    for (int f = 0; f < n; f++) {
        r.field = fields[f];
        cudaError_t err[3] = {symcoll_halo_remote_send(&r, stream),
                              f == 0 && local ? symcoll_halo_launch(local, stream) : cudaSuccess,
                              symcoll_halo_remote_receive(&r, stream)};
        for (int i = 0; i < 3; i++)
            first = first != cudaSuccess ? first : err[i];
    }
    return symcoll_cuda_status(first, fn, "halo kernel launch");
}

static symcoll_status_t exchange(const char *fn, symcoll_halo_t h, void *const *fields, int n,
                                 cudaStream_t stream) {
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (!h)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: h is NULL", fn);
    if (h->team_pe < 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: this PE (%d) is outside the plan's team", fn,
                                 symcoll_g.my_pe);
    if (n < 1 || n > SYMCOLL_HALO_MAX_FIELDS)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: n %d is not in 1 .. SYMCOLL_HALO_MAX_FIELDS (%d)", fn, n,
                                 SYMCOLL_HALO_MAX_FIELDS);
    if (!fields)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: fields is NULL", fn);
    symcoll_team_state_t *t;
    st = symcoll_team_for_call(fn, h->team, &t);
    symcoll_halo_args_t a;
    for (int i = 0; i < n && st == SYMCOLL_SUCCESS; i++) {
        char arg[32] = "field";
        if (n > 1)
            snprintf(arg, sizeof arg, "fields[%d]", i);
        st = symcoll_check_symmetric(fn, arg, fields[i], h->span);
        a.fields[i] = fields[i];
    }
    if (st == SYMCOLL_SUCCESS)
        st = fields_apart(fn, fields, n, h->span);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS || h->n_dirs + h->remote.n_dirs == 0)
        return st;
    if (h->n_dirs == 0)
        return exchange_across_nodes(fn, h, fields, n, stream, NULL);
    a.hh = h->dev;
    a.in = (const symcoll_halo_msg_t *)(h->area + SYMCOLL_HALO_AREA_IN);
    a.ll = h->ll;
    memcpy(a.ll_off, h->ll_off, sizeof a.ll_off);
    memcpy(a.ll_payload, h->ll_payload, sizeof a.ll_payload);
    a.ll_scrubbed = (uint64_t *)(h->area + SYMCOLL_HALO_AREA_LL_SCRUBBED);
    a.n_fields = n;
    plan_grid(h, fields, n, &a);
    if (h->remote.n_dirs > 0)
        return exchange_across_nodes(fn, h, fields, n, stream, &a);
    return symcoll_cuda_status(symcoll_halo_launch(&a, stream), fn, "halo kernel launch");
}

symcoll_status_t symcoll_halo_exchange_on_stream(symcoll_halo_t h, void *field,
                                                 cudaStream_t stream) {
    return exchange("symcoll_halo_exchange_on_stream", h, &field, 1, stream);
}

symcoll_status_t symcoll_halo_exchange_many_on_stream(symcoll_halo_t h, void *const *fields, int n,
                                                      cudaStream_t stream) {
    return exchange("symcoll_halo_exchange_many_on_stream", h, fields, n, stream);
}
