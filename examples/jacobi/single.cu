/* The whole grid on this PE's GPU alone, as the reference's single-GPU run: the result to
 * check against and the time to compare with. */
#include <math.h>
#include "jacobi.h"

double jacobi_single(const jacobi_t *j, float *ref) {
    int nx = j->nx, ny = j->ny;
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *a, *a_new, *norm, *norm_host;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMalloc(&a, bytes));
    CHECK_CUDA(cudaMalloc(&a_new, bytes));
    CHECK_CUDA(cudaMalloc(&norm, sizeof(float)));
    CHECK_CUDA(cudaMallocHost(&norm_host, sizeof(float)));
    jacobi_initialize(j, a, a_new, ny - 2, 1, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    double start = jacobi_now();
    float l2 = 1.0f;
    for (int iter = 0; l2 > JACOBI_TOL && iter < j->niter; iter++) {
        /* The multi-GPU variants' rule: with another, a grid that converges could stop at
         * another iteration here than there, and the check would fail. */
        int calc_norm = iter % j->nccheck == 0;
        if (calc_norm)
            CHECK_CUDA(cudaMemsetAsync(norm, 0, sizeof(float), stream));
        jacobi_launch(a_new, a, norm, 1, ny - 1, nx, calc_norm, stream);
        /* periodic rows: the last interior row above the first, the first below the last */
        CHECK_CUDA(cudaMemcpyAsync(a_new, a_new + (size_t)(ny - 2) * nx, nx * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaMemcpyAsync(a_new + (size_t)(ny - 1) * nx, a_new + nx, nx * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream));
        if (calc_norm) {
            CHECK_CUDA(
                cudaMemcpyAsync(norm_host, norm, sizeof(float), cudaMemcpyDeviceToHost, stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
            l2 = sqrtf(*norm_host);
        }
        float *t = a;
        a = a_new;
        a_new = t;
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    double seconds = jacobi_now() - start;
    CHECK_CUDA(cudaMemcpy(ref, a, bytes, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(a_new));
    CHECK_CUDA(cudaFree(norm));
    CHECK_CUDA(cudaFreeHost(norm_host));
    CHECK_CUDA(cudaStreamDestroy(stream));
    return seconds;
}
