/* The Jacobi kernels (as in the reference: 32 x 32 threads, one per cell) and the timed loop
 * shared by the graph-based variants. */
#include <math.h>
#include <time.h>
#include "jacobi.h"
#include "jacobi_kernels.cuh"

static __global__ void initialize_kernel(float *a, float *a_new, int nx, int rows, int offset,
                                         int ny) {
    for (int iy = blockIdx.x * blockDim.x + threadIdx.x; iy < rows; iy += blockDim.x * gridDim.x) {
        float y0 = (float)sin(2.0 * M_PI * (offset + iy) / (ny - 1));
        a[(size_t)iy * nx] = a_new[(size_t)iy * nx] = y0;
        a[(size_t)iy * nx + nx - 1] = a_new[(size_t)iy * nx + nx - 1] = y0;
    }
}

void jacobi_initialize(const jacobi_t *j, float *a, float *a_new, int rows, int first_row,
                       cudaStream_t stream) {
    size_t bytes = (size_t)(rows + 2) * j->nx * sizeof(float);
    CHECK_CUDA(cudaMemsetAsync(a, 0, bytes, stream));
    CHECK_CUDA(cudaMemsetAsync(a_new, 0, bytes, stream));
    initialize_kernel<<<(rows + 2) / 128 + 1, 128, 0, stream>>>(a, a_new, j->nx, rows + 2,
                                                                first_row - 1, j->ny);
    CHECK_CUDA(cudaGetLastError());
}

static __global__ void __launch_bounds__(JACOBI_BLOCK *JACOBI_BLOCK)
    jacobi_kernel(float *a_new, const float *a, float *norm, int iy_start, int iy_end, int nx,
                  int calc_norm) {
    int iy = blockIdx.y * blockDim.y + threadIdx.y + iy_start;
    int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
    float change = jacobi_cell(a_new, a, iy, ix, iy_end, nx, true);
    if (calc_norm)
        jacobi_block_norm(change * change, norm);
}

void jacobi_launch(float *a_new, const float *a, float *norm, int iy_start, int iy_end, int nx,
                   int calc_norm, cudaStream_t stream) {
    dim3 grid((nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK,
              (iy_end - iy_start + JACOBI_BLOCK - 1) / JACOBI_BLOCK);
    jacobi_kernel<<<grid, dim3(JACOBI_BLOCK, JACOBI_BLOCK), 0, stream>>>(a_new, a, norm, iy_start,
                                                                         iy_end, nx, calc_norm);
    CHECK_CUDA(cudaGetLastError());
}

double jacobi_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Every PE's streams idle and every PE past this point. */
static void everyone_idle(jacobi_t *j) {
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_SYMCOLL(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, j->compute));
    CHECK_CUDA(cudaStreamSynchronize(j->compute));
}

void jacobi_capture(jacobi_t *j, jacobi_iteration_t iteration, void *ctx,
                    cudaGraphExec_t graphs[2][2]) {
    for (int calc_norm = 0; calc_norm < 2; calc_norm++)
        for (int parity = 0; parity < 2; parity++) {
            float *cur = parity ? j->a_new : j->a, *next = parity ? j->a : j->a_new;
            cudaGraph_t graph;
            CHECK_CUDA(cudaStreamBeginCapture(j->compute, cudaStreamCaptureModeGlobal));
            iteration(j, ctx, next, cur, calc_norm);
            CHECK_CUDA(cudaStreamEndCapture(j->compute, &graph));
            CHECK_CUDA(cudaGraphInstantiateWithFlags(&graphs[calc_norm][parity], graph,
                                                     cudaGraphInstantiateFlagUseNodePriority));
            CHECK_CUDA(cudaGraphDestroy(graph));
        }
}

void jacobi_destroy_graphs(cudaGraphExec_t graphs[2][2]) {
    for (int i = 0; i < 4; i++)
        CHECK_CUDA(cudaGraphExecDestroy(graphs[i / 2][i % 2]));
}

void jacobi_warm_up(jacobi_t *j, cudaGraphExec_t graphs[2][2]) {
    for (int i = 0; i < 2; i++) /* every graph a few times, an even count */
        for (int w = 0; w < 4; w++)
            CHECK_CUDA(cudaGraphLaunch(graphs[w / 2][w % 2], j->compute));
    everyone_idle(j);
}

double jacobi_start(jacobi_t *j) {
    jacobi_initialize(j, j->a, j->a_new, j->rows, j->first_row, j->compute);
    everyone_idle(j);
    return jacobi_now();
}

double jacobi_elapsed(double start) {
    CHECK_CUDA(cudaDeviceSynchronize());
    return jacobi_now() - start;
}

void jacobi_keep_result(jacobi_t *j, int iterations) {
    if (iterations % 2) { /* the result is in a_new: make a hold it, as after an even count */
        float *t = j->a;
        j->a = j->a_new;
        j->a_new = t;
    }
    CHECK_SYMCOLL(symcoll_team_status(SYMCOLL_TEAM_WORLD));
}

double jacobi_run_graphs(jacobi_t *j, cudaGraphExec_t graphs[2][2]) {
    jacobi_warm_up(j, graphs);
    double start = jacobi_start(j);
    float l2 = 1.0f;
    int iter = 0;
    while (l2 > JACOBI_TOL && iter < j->niter) {
        int calc_norm = iter % j->nccheck == 0;
        CHECK_CUDA(cudaGraphLaunch(graphs[calc_norm][iter % 2], j->compute));
        if (calc_norm) {
            CHECK_CUDA(cudaStreamSynchronize(j->compute));
            l2 = sqrtf(*j->norm_host);
        }
        iter++;
    }
    double seconds = jacobi_elapsed(start);
    jacobi_keep_result(j, iter);
    return seconds;
}
