/* Copy-engine collectives: a barrier kernel (every PE has reached the call: sources are
 * ready, destinations free), cudaMemcpyAsync over the peer mappings, and a barrier kernel (no
 * PE returns, or reuses its src, before every copy is done). The copies use no SMs and run at
 * the copy engines' rate, above what SM loads and stores reach (2 x H200: 392 GB/s each way
 * with both directions busy, against 361 for SM stores; perf/NOTES.md). */
#include "barrier_launch.h"
#include "copy_engine.h"
#include "side_stream.h"

static int world_pe(const symcoll_device_t *h, int member) {
    return h->team_start + member * h->team_stride;
}

/* Each non-root pulls the root's src (the root copies locally unless in place), so the
 * copies of several PEs run in parallel. */
cudaError_t symcoll_broadcast_copy_engine(const symcoll_coll_args_t *a, cudaStream_t stream) {
    cudaError_t err = symcoll_barrier_launch(a->h, stream);
    if (err == cudaSuccess && (a->h.team_my_pe != a->root || a->dst != a->src))
        err = cudaMemcpyAsync(a->dst, symcoll_peer_address(a->src, world_pe(&a->h, a->root)),
                              a->bytes, cudaMemcpyDeviceToDevice, stream);
    return err == cudaSuccess ? symcoll_barrier_launch(a->h, stream) : err;
}

typedef struct {
    const symcoll_coll_args_t *a;
    bool alltoall;
} exchange_t;

/* What this PE sends to member `to`: its whole src (fcollect) or block `to` (alltoall). */
static const char *block_for(const exchange_t *x, int to) {
    return x->alltoall ? x->a->src + (size_t)to * x->a->bytes : x->a->src;
}

/* The PE's own block, on the side stream while the pushes go out: a copy inside the GPU of
 * the same size as a push would otherwise add its time to theirs. */
static cudaError_t copy_own_block(void *ctx, cudaStream_t side) {
    const exchange_t *x = ctx;
    int me = x->a->h.team_my_pe;
    return cudaMemcpyAsync(x->a->dst + (size_t)me * x->a->bytes, block_for(x, me), x->a->bytes,
                           cudaMemcpyDeviceToDevice, side);
}

/* Entry barrier, then one push per peer into its dst at this PE's block, starting with the
 * next member so that the PEs do not all write to the same peer at once. */
static cudaError_t push_blocks(void *ctx, cudaStream_t stream) {
    const exchange_t *x = ctx;
    const symcoll_device_t *h = &x->a->h;
    int n = h->team_size, me = h->team_my_pe;
    char *slot = x->a->dst + (size_t)me * x->a->bytes;
    cudaError_t err = symcoll_barrier_launch(*h, stream);
    for (int k = 1; k < n && err == cudaSuccess; k++) {
        int to = (me + k) % n;
        err = cudaMemcpyAsync(symcoll_peer_address(slot, world_pe(h, to)), block_for(x, to),
                              x->a->bytes, cudaMemcpyDeviceToDevice, stream);
    }
    return err;
}

cudaError_t symcoll_exchange_copy_engine(const symcoll_coll_args_t *a, bool alltoall,
                                         cudaStream_t stream, bool *enqueued) {
    exchange_t x = {a, alltoall};
    cudaError_t err =
        symcoll_side_stream_overlap(stream, copy_own_block, push_blocks, &x, enqueued);
    return err == cudaSuccess && *enqueued ? symcoll_barrier_launch(a->h, stream) : err;
}
