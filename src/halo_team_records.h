/* What each PE contributes to a halo plan's creation, and the checks that the team's members
 * passed the same team and settings: pure functions of the records, testable on a CPU. */
#ifndef SYMCOLL_HALO_TEAM_RECORDS_H
#define SYMCOLL_HALO_TEAM_RECORDS_H

#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int32_t team_pe;                 /* this PE's number in the team passed, -1: not a member */
    int32_t team_size;               /* the team as this PE sees it: its size, */
    int32_t team_start, team_stride; /* the WORLD PE of member 0 and between members */
    uint64_t ll_bytes;        /* SYMCOLL_HALO_LL_BYTES: slots are sized alike only if all agree */
    symcoll_halo_desc_t desc; /* normalized, members only */
} symcoll_halo_record_t;

/* From the records of all n_pes WORLD PEs (by WORLD PE): the team's size and its members'
 * descriptions by team PE (*descs, freed by the caller). INVALID_ARGUMENT naming the PEs when
 * the members passed different teams (another size, start or stride, or a team that puts a PE
 * elsewhere than its record says), when a member of the team passed a team it is not in, or
 * when SYMCOLL_HALO_LL_BYTES differs; OUT_OF_MEMORY. */
symcoll_status_t symcoll_halo_team_descs(const char *fn, const symcoll_halo_record_t *all,
                                         int n_pes, int *team_size, symcoll_halo_desc_t **descs);

#ifdef __cplusplus
}
#endif
#endif
