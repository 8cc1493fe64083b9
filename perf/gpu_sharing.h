/* PEs that share a GPU: what the job's topology text says of them, and how the header names
 * the share of the GPU that the library sizes its grids to. Pure, so that the CPU tests reach
 * it. */
#ifndef SYMCOLL_PERF_GPU_SHARING_H
#define SYMCOLL_PERF_GPU_SHARING_H

#include <stdbool.h>
#include <stdio.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether two PEs of the topology text (symcoll_topology_text's form) are on one GPU. NCCL then
 * refuses the communicator (duplicate GPU), so every mode that compares with NCCL reports it
 * n/a instead. */
bool perf_pes_share_gpu(const char *topology);

/* "# gpu sharing: 2 PEs on this GPU, SM share 66 of 132, MPS" (", divided" when init divided
 * the GPU). */
void perf_print_gpu_sharing(FILE *out, const symcoll_gpu_sharing_t *s);

#ifdef __cplusplus
}
#endif
#endif
