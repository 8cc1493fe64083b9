/* The job's links as symcoll_topology_text writes them (the PE count, then one row per PE of
 * X, SAME, NV<k>, PIX or -): symcoll-perf reads what it needs from that public text itself and
 * prints it as is, which is also the form --topology-file takes. */
#ifndef SYMCOLL_PERF_TOPOLOGY_TEXT_H
#define SYMCOLL_PERF_TOPOLOGY_TEXT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The PE count of text (its first word), 0 when that is not a count from 1 to SYMCOLL_MAX_PES.
 * The rows are not checked: the text comes from the library or has passed symcoll_explain. */
int perf_topology_n_pes(const char *text);

/* The most PEs of text on one GPU (a row's SAME entries, plus the PE itself); 1 when every PE
 * has a GPU of its own. */
int perf_topology_pes_per_gpu(const char *text);

/* Writes text with prefix before every line. */
void perf_print_topology(FILE *out, const char *text, const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
