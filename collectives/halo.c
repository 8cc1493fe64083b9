/* Halo exchange on a stream: checks, the grid (blocks per direction by bytes), one launch. */
#include <stdio.h>
#include "halo_launch.h"
#include "halo_plan.h"
#include "internal.h"

/* Bytes one block of the exchange kernel moves. */
#define HALO_BLOCK_BYTES 8192

/* Blocks per direction: by bytes, at least one each, scaled down to the plan's grid limit. */
static void plan_grid(const struct symcoll_halo_plan *p, int n_fields, symcoll_halo_args_t *a) {
    size_t want[SYMCOLL_HALO_DIRS], total = 0;
    for (int i = 0; i < p->n_dirs; i++) {
        want[i] = (p->dir_bytes[i] * (size_t)n_fields + HALO_BLOCK_BYTES - 1) / HALO_BLOCK_BYTES;
        total += want[i];
    }
    int first = 0;
    for (int i = 0; i < p->n_dirs; i++) {
        size_t blocks = total > (size_t)p->max_blocks ? want[i] * p->max_blocks / total : want[i];
        a->dir[i] = p->dir[i];
        a->first_block[i] = (uint16_t)first;
        first += blocks > 0 ? (int)blocks : 1;
    }
    a->first_block[p->n_dirs] = (uint16_t)first;
    a->n_dirs = p->n_dirs;
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
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS || h->n_dirs == 0)
        return st;
    a.hh = h->dev;
    a.n_fields = n;
    plan_grid(h, n, &a);
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
