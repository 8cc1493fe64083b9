/* The pack and unpack kernel of the NCCL halo baseline (perf/halo_pack.cu). */
#ifndef SYMCOLL_PERF_HALO_PACK_H
#define SYMCOLL_PERF_HALO_PACK_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies rows rows of row_bytes (4-byte multiples) from src (rows src_pitch bytes apart) to
 * dst (dst_pitch apart) on stream: the packing a hand-written halo exchange does. */
cudaError_t perf_halo_copy_rows(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                                size_t row_bytes, size_t rows, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
