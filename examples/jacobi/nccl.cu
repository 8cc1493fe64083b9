/* Variant "nccl", the baseline: NVIDIA's nccl_graphs scheme (split.cu: boundary rows first on
 * a high-priority stream, grouped ncclSend/ncclRecv of the halo rows there, the interior on
 * the compute stream), with the norm added by ncclAllReduce inside the graph. */
#include "jacobi.h"

static void exchange(jacobi_t *j, void *ctx, float *next) {
    ncclComm_t comm = (ncclComm_t)ctx;
    int top = (j->me + j->npes - 1) % j->npes, bottom = (j->me + 1) % j->npes;
    size_t nx = (size_t)j->nx;
    CHECK_NCCL(ncclGroupStart());
    CHECK_NCCL(ncclRecv(next, nx, ncclFloat, top, comm, j->push));
    CHECK_NCCL(ncclSend(next + (size_t)j->rows * nx, nx, ncclFloat, bottom, comm, j->push));
    CHECK_NCCL(ncclRecv(next + (size_t)(j->rows + 1) * nx, nx, ncclFloat, bottom, comm, j->push));
    CHECK_NCCL(ncclSend(next + nx, nx, ncclFloat, top, comm, j->push));
    CHECK_NCCL(ncclGroupEnd());
}

static void sum_norm(jacobi_t *j, void *ctx) {
    CHECK_NCCL(
        ncclAllReduce(j->norm, j->norm_sum, 1, ncclFloat, ncclSum, (ncclComm_t)ctx, j->compute));
}

double jacobi_nccl(jacobi_t *j) {
    ncclComm_t comm = example_nccl_comm(j->compute);
    jacobi_split_t s = {exchange, sum_norm, comm};
    double seconds = jacobi_split_run(j, &s);
    CHECK_NCCL(ncclCommDestroy(comm));
    return seconds;
}
