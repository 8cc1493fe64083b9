/* The header of a sweep: machine, GPUs, topology, versions and settings. */
#ifndef SYMCOLL_PERF_MACHINE_H
#define SYMCOLL_PERF_MACHINE_H

#include <stdio.h>
#include "args.h"
#include "job_topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the header (call after symcoll_init, on the PE that reports; topo from
 * perf_job_topology, sharing from symcoll_gpu_sharing). 0 or -1. */
int perf_print_machine(FILE *out, const perf_args_t *args, int npes,
                       const perf_job_topology_t *topo, const symcoll_gpu_sharing_t *sharing);

#ifdef __cplusplus
}
#endif
#endif
