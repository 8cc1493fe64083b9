/* alltoallv's counts where the calls read them: the matrix on the host, this PE's row and the
 * arrays the call writes in device memory. The sweep, --tune and --soak share it. */
#ifndef SYMCOLL_PERF_ALLTOALLV_DEVICE_H
#define SYMCOLL_PERF_ALLTOALLV_DEVICE_H

#include <cuda_runtime_api.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matrix (host) and 3 x npes device entries. 0, or -1 after reporting the failure. */
int perf_counts_init(perf_counts_t *c, int npes);
/* 0, or -1 after reporting a failed release; nothing to release (a zeroed c) is fine. */
int perf_counts_fini(perf_counts_t *c);

/* For an alltoallv call: draws its matrix (call->count per PE, skew; perf_counts_draw with
 * PERF_COUNTS_SEED), copies team PE me's row to send_counts on stream and points call->counts
 * at c; nothing for the other collectives. Before the call is timed or captured, never
 * inside. 0, or -1 after reporting the failure. */
int perf_counts_set(perf_counts_t *c, perf_call_t *call, int me, double skew, cudaStream_t stream);

/* After a call on stream: recv_counts and recv_offsets back to the host (waits for stream);
 * *wrong is how many entries differ from the matrix's. */
int perf_counts_check(const perf_counts_t *c, int me, cudaStream_t stream, size_t *wrong);

#ifdef __cplusplus
}
#endif
#endif
