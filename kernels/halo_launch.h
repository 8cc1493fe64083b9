/* Launch function of kernels/halo.cu, called by collectives/halo.c. */
#ifndef SYMCOLL_HALO_LAUNCH_H
#define SYMCOLL_HALO_LAUNCH_H

#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the exchange kernel. */
#define SYMCOLL_HALO_THREADS 256

/* One exchange: the directions with a message, in order, and the blocks each one gets
 * (blocks of list entry i: first_block[i] .. first_block[i + 1] - 1). */
typedef struct {
    symcoll_halo_device_t hh;
    void *fields[SYMCOLL_HALO_MAX_FIELDS];
    int32_t n_fields;
    int32_t n_dirs;
    uint8_t dir[SYMCOLL_HALO_DIRS];
    uint16_t first_block[SYMCOLL_HALO_DIRS + 1];
} symcoll_halo_args_t;

/* One kernel of first_block[n_dirs] blocks: every block tells every neighbour that this PE
 * entered the exchange, waits for its own neighbour's credit, stores its share of the cells;
 * the last block of a direction publishes it and waits for the neighbour's cells. */
cudaError_t symcoll_halo_launch(const symcoll_halo_args_t *args, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
