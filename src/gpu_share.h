/* How the PEs that share a GPU divide it: the share each may size its grids to, so that every
 * block of every PE on the GPU can be resident at once (blocks of one PE wait for blocks of
 * another; a block that cannot become resident would leave them waiting forever). */
#ifndef SYMCOLL_GPU_SHARE_H
#define SYMCOLL_GPU_SHARE_H

#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one PE learns of its GPU at init, gathered from every PE. */
typedef struct {
    unsigned char gpu[16]; /* the GPU's UUID: equal on PEs that share it, on any host */
    int32_t sms;           /* multiprocessors this PE's context may use: its MPS share, if any */
    int32_t percent_x100;  /* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE * 100; 10000 when unset */
    int32_t mps;           /* 1: the driver runs this PE as an MPS client */
    int32_t pad;
} symcoll_gpu_record_t;

/* When init divides a GPU, the symcoll kernels each PE may have in flight at once (on
 * different streams: two lanes of symcoll-perf --soak, a halo exchange beside a collective). An
 * MPS limit keeps each PE inside its own SMs, so that case needs no such margin. */
#define SYMCOLL_GPU_SHARE_KERNELS_IN_FLIGHT 2

/* Pure: the sharing of PE me's GPU, from every PE's record. sm_share is PE me's usable
 * multiprocessors (the job's agreement on the least of them is the caller's). The GPU's size
 * comes from the shares and their percentages (MPS reports a share, not the whole GPU). When
 * the PEs on one GPU ask for more than it has, each gets a part in proportion to its share,
 * divided again by the kernels it may have in flight. */
void symcoll_gpu_share_plan(const symcoll_gpu_record_t *all, int n_pes, int me,
                            symcoll_gpu_sharing_t *out);

/* Collective, at init: fills symcoll_g's sharing and the job's SM count (the least usable share
 * of any PE), and warns when PEs share a GPU without MPS or with shares over 100 %. */
symcoll_status_t symcoll_gpu_share_agree(void);

#ifdef __cplusplus
}
#endif
#endif
