/* Geometry of a halo plan, pure functions of the descriptions (no runtime state), so that
 * validation and message layout are testable on a CPU. */
#ifndef SYMCOLL_HALO_GEOMETRY_H
#define SYMCOLL_HALO_GEOMETRY_H

#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks *in for a team of team_size PEs and writes its normalized form to *out: the PE grid
 * chosen where it was 0, dimensions from ndims on set to one PE, interior 1 and width 0,
 * pitches resolved to elements. INVALID_ARGUMENT names the field and its value; a layout of more
 * than INT64_MAX bytes is one. */
symcoll_status_t symcoll_halo_normalize(const char *fn, int team_size,
                                        const symcoll_halo_desc_t *in, symcoll_halo_desc_t *out);

/* Fills the 0 entries of grid[0..ndims) so that the product is n, as balanced as possible and
 * non-increasing over the chosen entries (MPI_Dims_create). False when impossible. */
int symcoll_halo_dims_create(int n, int ndims, int grid[3]);

/* Coordinates of team PE pe in the (normalized) PE grid: x varies fastest. */
void symcoll_halo_coords(const symcoll_halo_desc_t *d, int pe, int c[3]);

/* Team PE of the neighbour of team PE pe in direction dir (symcoll_dev_halo_dir numbering),
 * -1 when there is none; d is normalized. */
int symcoll_halo_neighbor_of(const symcoll_halo_desc_t *d, int pe, int dir);

/* True when the plan moves cells toward dir (corners, and a non-empty box). */
int symcoll_halo_dir_used(const symcoll_halo_desc_t *d, int dir);

/* Checks that the team's normalized descriptions (all[i] of team PE i) agree on everything
 * but interior and pitch, that each width fits the interior it is taken from, and that
 * neighbouring faces have the same shape (INVALID_ARGUMENT names the dimension and the two
 * PEs, numbered as in the team). */
symcoll_status_t symcoll_halo_check_team(const char *fn, int team_size,
                                         const symcoll_halo_desc_t *all);

/* The message that a PE laid out as *me sends toward dir to a neighbour laid out as *nb (both
 * normalized); pe and self are left to the caller (pe = -1, self = 0). False when the box
 * holds 4 GiB or more. */
int symcoll_halo_message(const symcoll_halo_desc_t *me, const symcoll_halo_desc_t *nb, int dir,
                         symcoll_halo_msg_t *m);

/* Bytes from a field's base to one past its last cell. */
size_t symcoll_halo_span(const symcoll_halo_desc_t *d);

#ifdef __cplusplus
}
#endif
#endif
