#include "alltoallv_device.h"

#include <stdlib.h>
#include <string.h>

#include "fail.h"

int perf_counts_init(perf_counts_t *c, int npes) {
    memset(c, 0, sizeof *c);
    c->npes = npes;
    c->matrix = malloc(sizeof *c->matrix * (size_t)npes * (size_t)npes);
    if (c->matrix == NULL) {
        return perf_fail("alltoallv counts: out of host memory");
    }
    PERF_CUDA(cudaMalloc((void **)&c->device, sizeof *c->device * 3 * (size_t)npes));
    return 0;
}

int perf_counts_fini(perf_counts_t *c) {
    free(c->matrix);
    c->matrix = NULL;
    int rc = perf_cuda_check(cudaFree(c->device), "cudaFree");
    c->device = NULL;
    return rc;
}

int perf_counts_set(perf_counts_t *c, perf_call_t *call, int me, double skew, cudaStream_t stream) {
    if (call->op != PERF_OP_ALLTOALLV) {
        return 0;
    }
    call->counts = c;
    perf_counts_draw(c, call->count, skew, PERF_COUNTS_SEED);
    /* From pageable memory the copy has read the row when it returns: the next draw is safe. */
    PERF_CUDA(cudaMemcpyAsync(c->device, c->matrix + (size_t)me * (size_t)c->npes,
                              sizeof *c->device * (size_t)c->npes, cudaMemcpyHostToDevice, stream));
    return 0;
}

int perf_counts_check(const perf_counts_t *c, int me, cudaStream_t stream, size_t *wrong) {
    size_t received[2 * SYMCOLL_MAX_PES]; /* recv_counts, then recv_offsets */
    PERF_CUDA(cudaMemcpyAsync(received, c->device + c->npes, sizeof *received * 2 * (size_t)c->npes,
                              cudaMemcpyDeviceToHost, stream));
    PERF_CUDA(cudaStreamSynchronize(stream));
    *wrong = perf_counts_wrong(c, me, received, received + c->npes);
    return 0;
}
