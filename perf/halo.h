/* symcoll-perf --op halo: the halo exchange alone beside NCCL grouped send/recv and copies by
 * the copy engines. */
#ifndef SYMCOLL_PERF_HALO_H
#define SYMCOLL_PERF_HALO_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sweeps face sizes for three shapes (2D rows, 2D columns, 3D faces strided in z), each PE
 * exchanging two faces with its neighbours along a periodic split: symcoll's exchange, NCCL
 * send/recv (packing strided faces), and cudaMemcpy2DAsync into the peers' halos followed by
 * a barrier; stream and graph mode as the flags ask. 0, or -1 after reporting. */
int perf_halo(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
