/* The header of a sweep: machine, GPUs, topology, versions and settings. */
#ifndef SYMCOLL_PERF_MACHINE_H
#define SYMCOLL_PERF_MACHINE_H

#include <stdio.h>
#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the header (call after symcoll_init, on the PE that reports). 0 or -1. */
int perf_print_machine(FILE *out, const perf_args_t *args, int npes);

#ifdef __cplusplus
}
#endif
#endif
