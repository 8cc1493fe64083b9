/* The operands, and the check: the team's sum recomputed on this GPU alone from every PE's
 * operands (any PE can generate them all) by a plain kernel that shares nothing with the
 * tiled one, then compared element by element: the values make every sum exact. */
#include <stdio.h>
#include <stdlib.h>
#include "fused_matmul.h"

#define MM_SHOWN 5 /* mismatches printed per variant and PE */

static __global__ void fill(float *dst, int n, int pe, int matrix) {
    size_t count = (size_t)n * n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = mm_value(pe, matrix, (int)(i / n), (int)(i % n));
}

void mm_fill(float *dst, int n, int pe, int matrix, cudaStream_t stream) {
    fill<<<1024, 256, 0, stream>>>(dst, n, pe, matrix);
    CHECK_CUDA(cudaGetLastError());
}

/* ref += A x B, one thread per element; rows on x, which has room for any n. */
static __global__ void add_product(float *ref, const float *A, const float *B, int n) {
    int row = blockIdx.x, col = blockIdx.y * blockDim.x + threadIdx.x;
    if (col >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    ref[(size_t)row * n + col] += sum;
}

void mm_reference(const mm_t *m, float *ref) {
    int n = m->n;
    CHECK_CUDA(cudaMemsetAsync(ref, 0, (size_t)n * n * sizeof(float), m->stream));
    for (int p = 0; p < m->npes; p++) {
        mm_fill(m->a, n, p, 0, m->stream);
        mm_fill(m->b, n, p, 1, m->stream);
        add_product<<<dim3(n, (n + 255) / 256), 256, 0, m->stream>>>(ref, m->a, m->b, n);
        CHECK_CUDA(cudaGetLastError());
    }
}

size_t mm_compare(const mm_t *m, const float *ref, const char *variant) {
    size_t count = (size_t)m->n * m->n, bytes = count * sizeof(float);
    float *got = (float *)malloc(bytes), *want = (float *)malloc(bytes);
    if (!got || !want) {
        fprintf(stderr, "PE %d: malloc of 2 x %zu bytes failed\n", m->me, bytes);
        exit(1);
    }
    CHECK_CUDA(cudaMemcpyAsync(got, m->c, bytes, cudaMemcpyDeviceToHost, m->stream));
    CHECK_CUDA(cudaMemcpyAsync(want, ref, bytes, cudaMemcpyDeviceToHost, m->stream));
    CHECK_CUDA(cudaStreamSynchronize(m->stream));
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++)
        if (got[i] != want[i] && wrong++ < MM_SHOWN)
            fprintf(stderr, "PE %d: %s: C[%zu][%zu] = %g, the one-GPU sum is %g\n", m->me, variant,
                    i / m->n, i % m->n, got[i], want[i]);
    free(got);
    free(want);
    return wrong;
}
