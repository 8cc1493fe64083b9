/* The job's topology as the library reports it (symcoll_topology_text), for the sweep's
 * header, --topology and the tuning queries behind the "algo" column. */
#ifndef SYMCOLL_PERF_JOB_TOPOLOGY_H
#define SYMCOLL_PERF_JOB_TOPOLOGY_H

#include <stdio.h>
#include "exchange.h"
#include "report.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the exchange's team: fills *t from the library, with every member's GPU
 * bus id on team PE 0 (the other PEs know only their own). 0, or -1 (reported on stderr). */
int perf_job_topology(perf_exchange_t *ex, symcoll_topology_t *t);

/* The slowest link between two members of team. */
topo_class_t perf_team_class(const symcoll_topology_t *t, symcoll_team_t team);

/* The NCCL columns of a mode: OFF unless wanted; NA when two PEs of the job share a GPU, where
 * NCCL refuses the communicator, so the mode must not create one; else ON. Every PE decides
 * alike from the library's matrix, without exchanging anything. 0, or -1 (reported). */
int perf_nccl_columns(bool wanted, perf_nccl_columns_t *out);

/* Collective over WORLD: --topology, the matrix printed by PE 0. 0 or -1. */
int perf_print_job_topology(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
