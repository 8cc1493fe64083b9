/* The reference's iteration scheme, shared by the "host" and "nccl" variants: the boundary
 * rows first on the high-priority push stream and their exchange there, the interior on the
 * compute stream meanwhile, then the join and, on norm iterations, the team's sum. */
#include "jacobi.h"

void jacobi_split_iteration(jacobi_t *j, void *ctx, float *next, const float *cur, int calc_norm) {
    jacobi_split_t *s = (jacobi_split_t *)ctx;
    if (calc_norm)
        CHECK_CUDA(cudaMemsetAsync(j->norm, 0, sizeof(float), j->compute));
    CHECK_CUDA(cudaEventRecord(s->forked, j->compute));
    CHECK_CUDA(cudaStreamWaitEvent(j->push, s->forked, 0));
    jacobi_launch(next, cur, j->norm, 1, 2, j->nx, calc_norm, j->push);
    jacobi_launch(next, cur, j->norm, j->rows, j->rows + 1, j->nx, calc_norm, j->push);
    s->exchange(j, s->ctx, next);
    CHECK_CUDA(cudaEventRecord(s->pushed, j->push));
    if (j->rows > 2)
        jacobi_launch(next, cur, j->norm, 2, j->rows, j->nx, calc_norm, j->compute);
    CHECK_CUDA(cudaStreamWaitEvent(j->compute, s->pushed, 0));
    if (calc_norm) {
        s->sum_norm(j, s->ctx);
        CHECK_CUDA(cudaMemcpyAsync(j->norm_host, j->norm_sum, sizeof(float), cudaMemcpyDeviceToHost,
                                   j->compute));
    }
}

double jacobi_split_run(jacobi_t *j, jacobi_split_t *s) {
    CHECK_CUDA(cudaEventCreateWithFlags(&s->forked, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&s->pushed, cudaEventDisableTiming));
    cudaGraphExec_t graphs[2][2];
    jacobi_capture(j, jacobi_split_iteration, s, graphs);
    double seconds = jacobi_run_graphs(j, graphs);
    jacobi_destroy_graphs(graphs);
    CHECK_CUDA(cudaEventDestroy(s->forked));
    CHECK_CUDA(cudaEventDestroy(s->pushed));
    return seconds;
}
