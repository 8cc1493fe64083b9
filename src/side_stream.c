/* One side stream and its fork and join events per process; a lock keeps each fork-join
 * sequence whole when several host threads call collectives. */
#include <pthread.h>
#include "side_stream.h"

static pthread_mutex_t side_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaStream_t side;
static cudaEvent_t fork_event, join_event;

cudaError_t symcoll_side_stream_create(void) {
    cudaError_t err = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    if (err == cudaSuccess)
        err = cudaEventCreateWithFlags(&fork_event, cudaEventDisableTiming);
    if (err == cudaSuccess)
        err = cudaEventCreateWithFlags(&join_event, cudaEventDisableTiming);
    return err;
}

/* Teardown after a failure keeps going: each handle that exists is released, errors and all. */
void symcoll_side_stream_destroy(void) {
    if (join_event)
        (void)cudaEventDestroy(join_event);
    if (fork_event)
        (void)cudaEventDestroy(fork_event);
    if (side)
        (void)cudaStreamDestroy(side);
    side = NULL;
    fork_event = join_event = NULL;
}

/* Whether the side stream may join stream's work: it is in no capture, or in stream's. */
static cudaError_t side_usable(cudaStream_t stream, bool *usable) {
    enum cudaStreamCaptureStatus side_status, status;
    unsigned long long side_id = 0, id = 0;
    cudaError_t err =
        cudaStreamGetCaptureInfo(side, &side_status, &side_id, NULL, NULL, NULL, NULL);
    if (err == cudaSuccess && side_status != cudaStreamCaptureStatusNone)
        err = cudaStreamGetCaptureInfo(stream, &status, &id, NULL, NULL, NULL, NULL);
    *usable = err == cudaSuccess && (side_status == cudaStreamCaptureStatusNone ||
                                     (side_status == cudaStreamCaptureStatusActive &&
                                      status == cudaStreamCaptureStatusActive && id == side_id));
    return err;
}

cudaError_t symcoll_side_stream_overlap(cudaStream_t stream, symcoll_enqueue_fn side_work,
                                        symcoll_enqueue_fn main_work, void *ctx, bool *enqueued) {
    *enqueued = false;
    if (!side)
        return cudaErrorInitializationError;
    pthread_mutex_lock(&side_lock);
    bool usable = false;
    cudaError_t err = side_usable(stream, &usable);
    if (err == cudaSuccess && usable) {
        *enqueued = true;
        err = cudaEventRecord(fork_event, stream);
        if (err == cudaSuccess)
            err = cudaStreamWaitEvent(side, fork_event, 0);
        if (err == cudaSuccess)
            err = side_work(ctx, side);
        if (err == cudaSuccess)
            err = main_work(ctx, stream);
        /* The join is enqueued after a failure too, so that a capture is never left with the
         * side stream unjoined. */
        cudaError_t joined = cudaEventRecord(join_event, side);
        if (joined == cudaSuccess)
            joined = cudaStreamWaitEvent(stream, join_event, 0);
        if (err == cudaSuccess)
            err = joined;
    }
    pthread_mutex_unlock(&side_lock);
    return err;
}
