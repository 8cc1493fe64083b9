/* Checks on the records of a halo plan's creation: one team, one LL slot size. */
#include "halo_team_records.h"
#include <stdlib.h>
#include "internal.h"

/* INVALID_ARGUMENT naming the first PE whose SYMCOLL_HALO_LL_BYTES differs from PE 0's. */
static symcoll_status_t same_ll_bytes(const char *fn, const symcoll_halo_record_t *all, int n_pes) {
    for (int pe = 1; pe < n_pes; pe++)
        if (all[pe].ll_bytes != all[0].ll_bytes)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: SYMCOLL_HALO_LL_BYTES differs between PEs: PE 0 has "
                                     "%llu, PE %d has %llu; set it alike on every PE",
                                     fn, (unsigned long long)all[0].ll_bytes, pe,
                                     (unsigned long long)all[pe].ll_bytes);
    return SYMCOLL_SUCCESS;
}

/* The WORLD PE of the first member, or -1 when no PE is a member. */
static int first_member(const symcoll_halo_record_t *all, int n_pes) {
    for (int pe = 0; pe < n_pes; pe++)
        if (all[pe].team_pe >= 0)
            return pe;
    return -1;
}

/* INVALID_ARGUMENT unless every member's team is the first member's (size, start, stride)
 * and puts that member where its record says: at WORLD PE start + team_pe * stride. Members
 * are then distinct PEs with distinct team PEs below the size. */
static symcoll_status_t one_team(const char *fn, const symcoll_halo_record_t *all, int n_pes,
                                 int first) {
    const symcoll_halo_record_t *f = &all[first];
    for (int pe = 0; pe < n_pes; pe++) {
        const symcoll_halo_record_t *r = &all[pe];
        if (r->team_pe < 0)
            continue;
        if (r->team_pe >= r->team_size || r->team_size != f->team_size ||
            r->team_start != f->team_start || r->team_stride != f->team_stride ||
            (int64_t)r->team_start + (int64_t)r->team_pe * r->team_stride != pe)
            return symcoll_set_error(
                SYMCOLL_ERROR_INVALID_ARGUMENT,
                "%s: the PEs passed different teams: PE %d is member %d of a team of %d PEs "
                "from PE %d with stride %d, PE %d is member %d of a team of %d PEs from PE %d "
                "with stride %d",
                fn, first, f->team_pe, f->team_size, f->team_start, f->team_stride, pe, r->team_pe,
                r->team_size, r->team_start, r->team_stride);
    }
    return SYMCOLL_SUCCESS;
}

/* The first team PE of team (as a member records it) whose WORLD PE did not join as that
 * member. */
static int first_missing(const symcoll_halo_record_t *all, int n_pes,
                         const symcoll_halo_record_t *team) {
    int m = 0;
    for (; m < team->team_size; m++) {
        int64_t pe = (int64_t)team->team_start + (int64_t)m * team->team_stride;
        if (pe < 0 || pe >= n_pes || all[pe].team_pe != m)
            break;
    }
    return m;
}

symcoll_status_t symcoll_halo_team_descs(const char *fn, const symcoll_halo_record_t *all,
                                         int n_pes, int *team_size, symcoll_halo_desc_t **descs) {
    symcoll_status_t st = same_ll_bytes(fn, all, n_pes);
    if (st != SYMCOLL_SUCCESS)
        return st;
    int first = first_member(all, n_pes);
    if (first < 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: no PE is a member of the team it passed", fn);
    st = one_team(fn, all, n_pes, first);
    if (st != SYMCOLL_SUCCESS)
        return st;
    int n = all[first].team_size, members = 0;
    symcoll_halo_desc_t *out = calloc((size_t)n, sizeof *out);
    if (!out)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (int pe = 0; pe < n_pes; pe++)
        if (all[pe].team_pe >= 0)
            out[all[pe].team_pe] = all[pe].desc, members++;
    if (members != n) {
        int missing = first_missing(all, n_pes, &all[first]);
        free(out);
        return symcoll_set_error(
            SYMCOLL_ERROR_INVALID_ARGUMENT,
            "%s: %d PEs joined as members of a team of %d: member %d (PE %lld) passed a team "
            "it is not a member of",
            fn, members, n, missing,
            (long long)all[first].team_start + (long long)missing * all[first].team_stride);
    }
    *team_size = n;
    *descs = out;
    return SYMCOLL_SUCCESS;
}
