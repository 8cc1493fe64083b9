/* The algorithm tuning/ picks for a call, asked the way the collective itself asks. */
#ifndef SYMCOLL_PERF_CHOICE_H
#define SYMCOLL_PERF_CHOICE_H

#include <stdio.h>
#include "ops.h"
#include "topology.h"
#include "tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bytes in the nccl-tests convention (0 for barrier); sm_count 0 lets tuning assume one;
 * file: SYMCOLL_TUNING_FILE's rows (perf_load_tuning_file), NULL or empty for none.
 * Honours SYMCOLL_ALGO_<COLLECTIVE>. Returns tuning's status (INVALID_ARGUMENT when the
 * variable names no algorithm; out->why says why). */
symcoll_status_t perf_choose(perf_op_t op, size_t bytes, size_t elem_size, int team_size,
                             topo_class_t topo, int sm_count, const symcoll_tuning_file_t *file,
                             symcoll_choice_t *out);

/* Loads SYMCOLL_TUNING_FILE into *file (no rows when unset) and checks its signature against
 * n_pes and topo as symcoll_init does (n_pes 0: no check, init has done it). Returns 0, or -1
 * after printing the file, line and reason to err. Free with symcoll_tuning_file_free. */
int perf_load_tuning_file(symcoll_tuning_file_t *file, int n_pes, topo_class_t topo, FILE *err);

/* One line per collective that can be forced: "<prefix>SYMCOLL_ALGO_REDUCE=ll|one_shot|...". */
void perf_print_algorithms(FILE *out, const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
