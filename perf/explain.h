/* --explain: what tuning/ picks for every requested size, and why, without a GPU. */
#ifndef SYMCOLL_PERF_EXPLAIN_H
#define SYMCOLL_PERF_EXPLAIN_H

#include <stdio.h>
#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the library's choices (symcoll_explain) for args (topology from args->topology_file,
 * else args->npes PEs all joined by NVLink) to out; problems go to err. Returns the exit
 * status: 0, 2 for a bad topology file, root, SYMCOLL_ALGO_* or SYMCOLL_TUNING_FILE, 1 when a
 * row cannot be explained. */
int perf_explain(const perf_args_t *args, FILE *out, FILE *err);

#ifdef __cplusplus
}
#endif
#endif
