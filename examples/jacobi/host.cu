/* Variant "host": the halo exchange API and the reduce on a stream, each iteration a CUDA
 * graph. As in the reference, the boundary rows are computed first on a high-priority stream
 * and exchanged there while the interior is computed. */
#include "jacobi.h"

/* One iteration cur -> next on the streams, as captured. */
static void iteration(jacobi_t *j, symcoll_halo_t plan, float *next, const float *cur,
                      int calc_norm, cudaEvent_t forked, cudaEvent_t pushed) {
    if (calc_norm)
        CHECK_CUDA(cudaMemsetAsync(j->norm, 0, sizeof(float), j->compute));
    CHECK_CUDA(cudaEventRecord(forked, j->compute));
    CHECK_CUDA(cudaStreamWaitEvent(j->push, forked, 0));
    jacobi_launch(next, cur, j->norm, 1, 2, j->nx, calc_norm, j->push);
    jacobi_launch(next, cur, j->norm, j->rows, j->rows + 1, j->nx, calc_norm, j->push);
    CHECK_SYMCOLL(symcoll_halo_exchange_on_stream(plan, next, j->push));
    CHECK_CUDA(cudaEventRecord(pushed, j->push));
    if (j->rows > 2)
        jacobi_launch(next, cur, j->norm, 2, j->rows, j->nx, calc_norm, j->compute);
    CHECK_CUDA(cudaStreamWaitEvent(j->compute, pushed, 0));
    if (calc_norm) {
        CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, j->norm_sum, j->norm, 1,
                                               SYMCOLL_FLOAT32, SYMCOLL_SUM, j->compute));
        CHECK_CUDA(cudaMemcpyAsync(j->norm_host, j->norm_sum, sizeof(float), cudaMemcpyDeviceToHost,
                                   j->compute));
    }
}

symcoll_halo_t jacobi_plan(const jacobi_t *j) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 2;
    d.pe_grid[0] = 1;
    d.pe_grid[1] = j->npes;
    d.periodic[1] = 1;
    d.interior[0] = (size_t)j->nx;
    d.interior[1] = (size_t)j->rows;
    d.width[1] = 1;
    d.type = SYMCOLL_FLOAT32;
    symcoll_halo_t plan;
    CHECK_SYMCOLL(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &plan));
    return plan;
}

double jacobi_host(jacobi_t *j) {
    symcoll_halo_t plan = jacobi_plan(j);
    cudaEvent_t forked, pushed;
    CHECK_CUDA(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&pushed, cudaEventDisableTiming));
    cudaGraphExec_t graphs[2][2];
    for (int calc_norm = 0; calc_norm < 2; calc_norm++)
        for (int parity = 0; parity < 2; parity++) {
            float *cur = parity ? j->a_new : j->a, *next = parity ? j->a : j->a_new;
            cudaGraph_t graph;
            CHECK_CUDA(cudaStreamBeginCapture(j->compute, cudaStreamCaptureModeThreadLocal));
            iteration(j, plan, next, cur, calc_norm, forked, pushed);
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
    CHECK_SYMCOLL(symcoll_halo_destroy(plan));
    return seconds;
}
