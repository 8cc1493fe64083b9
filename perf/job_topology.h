/* The job's topology as the library reports it (symcoll_topology_text), for the sweep's
 * header, --topology and the NCCL columns. */
#ifndef SYMCOLL_PERF_JOB_TOPOLOGY_H
#define SYMCOLL_PERF_JOB_TOPOLOGY_H

#include <stdio.h>
#include "exchange.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_BUS_ID_BYTES 32

typedef struct {
    char *text; /* symcoll_topology_text's */
    int n_pes;  /* WORLD's */
    /* Per WORLD PE, its GPU's PCI bus id, on team PE 0 of the exchange (the one that prints
     * them); "?" elsewhere and for PEs outside the team. */
    char (*bus_ids)[PERF_BUS_ID_BYTES];
} perf_job_topology_t;

/* Collective over the exchange's team: fills *t, which perf_job_topology_free releases
 * whether it succeeded or not. 0, or -1 (reported on stderr). */
int perf_job_topology(perf_exchange_t *ex, perf_job_topology_t *t);
void perf_job_topology_free(perf_job_topology_t *t);

/* The NCCL columns of a mode: OFF unless wanted; NA when two PEs of the job share a GPU, where
 * NCCL refuses the communicator, so the mode must not create one; else ON. Every PE decides
 * alike from the library's text, without exchanging anything. 0, or -1 (reported). */
int perf_nccl_columns(bool wanted, perf_nccl_columns_t *out);

/* --topology: world PE 0 prints the library's text as is (the form --topology-file takes).
 * 0 or -1. */
int perf_print_job_topology(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
