/* The runtime's second stream: work that must overlap what a collective enqueues on the
 * caller's stream (copy engines busy on a local copy while others push to peers). */
#ifndef SYMCOLL_SIDE_STREAM_H
#define SYMCOLL_SIDE_STREAM_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues work on one stream; returns the first failing CUDA call's error. */
typedef cudaError_t (*symcoll_enqueue_fn)(void *ctx, cudaStream_t stream);

/* Created by symcoll_init, destroyed by its teardown (a no-op when never created). */
cudaError_t symcoll_side_stream_create(void);
void symcoll_side_stream_destroy(void);

/* Forks the side stream from stream (it starts after what stream holds now), enqueues
 * side_work there and main_work on stream, then joins: stream's later work waits for both.
 * Graph capture follows the fork and the join. The side stream serves one sequence of
 * capture at a time: when it is held by a capture that stream is not part of, nothing is
 * enqueued and *enqueued is false, so that the caller can take a path without it. */
cudaError_t symcoll_side_stream_overlap(cudaStream_t stream, symcoll_enqueue_fn side_work,
                                        symcoll_enqueue_fn main_work, void *ctx, bool *enqueued);

#ifdef __cplusplus
}
#endif
#endif
