/* The algorithm the library picks for a call, from the library itself (symcoll_explain). */
#ifndef SYMCOLL_PERF_CHOICE_H
#define SYMCOLL_PERF_CHOICE_H

#include <stdio.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The choice for call on team, or, with team SYMCOLL_TEAM_INVALID, for the job that topology
 * describes (symcoll_topology_text's form) with sm_count multiprocessors per PE (0: tuning's
 * assumption). Returns symcoll_explain's status; symcoll_last_error() says why it failed. */
symcoll_status_t perf_choose(const perf_call_t *call, symcoll_team_t team, const char *topology,
                             int sm_count, symcoll_explanation_t *out);

/* One line per collective that can be forced: "<prefix>SYMCOLL_ALGO_REDUCE=ll|one_shot|...". */
void perf_print_algorithms(FILE *out, const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
