/* Variant "nccl", the baseline: NVIDIA's nccl_graphs scheme (boundary rows first on a
 * high-priority stream, grouped ncclSend/ncclRecv of the halo rows there, the interior on the
 * compute stream), with the norm added by ncclAllReduce inside the graph. */
#include <nccl.h>
#include <string.h>
#include "jacobi.h"

#define CHECK_NCCL(call)                                                                           \
    do {                                                                                           \
        ncclResult_t rc_ = (call);                                                                 \
        if (rc_ != ncclSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    ncclGetErrorString(rc_));                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A communicator over the PEs: PE 0's unique id reaches the others through a broadcast. */
static ncclComm_t make_comm(const jacobi_t *j) {
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (j->me == 0)
        CHECK_NCCL(ncclGetUniqueId(&id));
    char *shared = (char *)symcoll_malloc(sizeof id);
    if (!shared) {
        fprintf(stderr, "symcoll_malloc: %s\n", symcoll_last_error());
        exit(1);
    }
    CHECK_CUDA(cudaMemcpy(shared, &id, sizeof id, cudaMemcpyHostToDevice));
    CHECK_SYMCOLL(symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, shared, shared, sizeof id,
                                              SYMCOLL_UINT8, 0, j->compute));
    CHECK_CUDA(cudaStreamSynchronize(j->compute));
    CHECK_CUDA(cudaMemcpy(&id, shared, sizeof id, cudaMemcpyDeviceToHost));
    symcoll_free(shared);
    ncclComm_t comm;
    CHECK_NCCL(ncclCommInitRank(&comm, j->npes, id, j->me));
    return comm;
}

static void iteration(jacobi_t *j, ncclComm_t comm, float *next, const float *cur, int calc_norm,
                      cudaEvent_t forked, cudaEvent_t pushed) {
    int top = (j->me + j->npes - 1) % j->npes, bottom = (j->me + 1) % j->npes;
    size_t nx = (size_t)j->nx;
    if (calc_norm)
        CHECK_CUDA(cudaMemsetAsync(j->norm, 0, sizeof(float), j->compute));
    CHECK_CUDA(cudaEventRecord(forked, j->compute));
    CHECK_CUDA(cudaStreamWaitEvent(j->push, forked, 0));
    jacobi_launch(next, cur, j->norm, 1, 2, j->nx, calc_norm, j->push);
    jacobi_launch(next, cur, j->norm, j->rows, j->rows + 1, j->nx, calc_norm, j->push);
    CHECK_NCCL(ncclGroupStart());
    CHECK_NCCL(ncclRecv(next, nx, ncclFloat, top, comm, j->push));
    CHECK_NCCL(ncclSend(next + (size_t)j->rows * nx, nx, ncclFloat, bottom, comm, j->push));
    CHECK_NCCL(ncclRecv(next + (size_t)(j->rows + 1) * nx, nx, ncclFloat, bottom, comm, j->push));
    CHECK_NCCL(ncclSend(next + nx, nx, ncclFloat, top, comm, j->push));
    CHECK_NCCL(ncclGroupEnd());
    CHECK_CUDA(cudaEventRecord(pushed, j->push));
    if (j->rows > 2)
        jacobi_launch(next, cur, j->norm, 2, j->rows, j->nx, calc_norm, j->compute);
    CHECK_CUDA(cudaStreamWaitEvent(j->compute, pushed, 0));
    if (calc_norm) {
        CHECK_NCCL(ncclAllReduce(j->norm, j->norm_sum, 1, ncclFloat, ncclSum, comm, j->compute));
        CHECK_CUDA(cudaMemcpyAsync(j->norm_host, j->norm_sum, sizeof(float), cudaMemcpyDeviceToHost,
                                   j->compute));
    }
}

double jacobi_nccl(jacobi_t *j) {
    ncclComm_t comm = make_comm(j);
    cudaEvent_t forked, pushed;
    CHECK_CUDA(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&pushed, cudaEventDisableTiming));
    cudaGraphExec_t graphs[2][2];
    for (int calc_norm = 0; calc_norm < 2; calc_norm++)
        for (int parity = 0; parity < 2; parity++) {
            float *cur = parity ? j->a_new : j->a, *next = parity ? j->a : j->a_new;
            cudaGraph_t graph;
            CHECK_CUDA(cudaStreamBeginCapture(j->compute, cudaStreamCaptureModeGlobal));
            iteration(j, comm, next, cur, calc_norm, forked, pushed);
            CHECK_CUDA(cudaStreamEndCapture(j->compute, &graph));
            CHECK_CUDA(cudaGraphInstantiateWithFlags(&graphs[calc_norm][parity], graph,
                                                     cudaGraphInstantiateFlagUseNodePriority));
            CHECK_CUDA(cudaGraphDestroy(graph));
        }
    double seconds = jacobi_run_graphs(j, graphs);
    for (int i = 0; i < 4; i++)
        CHECK_CUDA(cudaGraphExecDestroy(graphs[i / 2][i % 2]));
    CHECK_CUDA(cudaEventDestroy(forked));
    CHECK_CUDA(cudaEventDestroy(pushed));
    CHECK_NCCL(ncclCommDestroy(comm));
    return seconds;
}
