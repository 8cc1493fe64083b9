#include "call.h"

symcoll_status_t perf_call_enqueue(const perf_call_t *c, symcoll_team_t team, void *dst,
                                   const void *src, cudaStream_t stream) {
    switch (c->op) {
    case PERF_OP_BARRIER:
        return symcoll_barrier_on_stream(team, stream);
    case PERF_OP_BROADCAST:
        return symcoll_broadcast_on_stream(team, dst, src, c->count, c->type, c->root, stream);
    case PERF_OP_REDUCE:
        return symcoll_reduce_on_stream(team, dst, src, c->count, c->type, c->redop, stream);
    case PERF_OP_FCOLLECT:
        return symcoll_fcollect_on_stream(team, dst, src, c->count, c->type, stream);
    case PERF_OP_ALLTOALL:
        return symcoll_alltoall_on_stream(team, dst, src, c->count, c->type, stream);
    case PERF_OP_REDUCE_SCATTER:
        return symcoll_reduce_scatter_on_stream(team, dst, src, c->count, c->type, c->redop,
                                                stream);
    case PERF_OP_ALLTOALLV: {
        size_t *counts = c->counts->device;
        int npes = c->counts->npes;
        return symcoll_alltoallv_on_stream(team, dst, c->counts->capacity, src, counts,
                                           counts + npes, counts + 2 * npes, c->type, stream);
    }
    case PERF_NUM_OPS:
        break;
    }
    return SYMCOLL_ERROR_INVALID_ARGUMENT;
}
