/* A Jacobi-like 2D stencil split by rows over the PEs (periodic in y): each iteration computes
 * the interior, sends the first and last rows into the neighbours' halo rows with
 * put_nbi_block, fences, raises the neighbour's flag with signal_op, and the next iteration
 * waits for both flags with wait_until_all. Checked against the same iterations on the CPU. */
#include <math.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define NX 256
#define NY 32 /* interior rows per PE */
#define ITERATIONS 50

static float initial(int row, int col) {
    return (float)((row * 131 + col * 71) % 97) / 97.0f;
}

/* flags[0]: the top neighbour has filled row 0; flags[1]: the bottom one row NY + 1. */
__global__ void step(const float *a, float *a_new, uint64_t *flags, uint64_t iteration) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int top = (me + n - 1) % n, bottom = (me + 1) % n;
    if (threadIdx.x == 0)
        nvshmem_uint64_wait_until_all(flags, 2, NULL, NVSHMEM_CMP_GE, iteration - 1);
    __syncthreads();
    for (int row = 1; row <= NY; row++)
        for (int col = threadIdx.x; col < NX; col += blockDim.x) {
            const float *c = a + row * NX + col;
            a_new[row * NX + col] =
                col == 0 || col == NX - 1 ? *c : 0.25f * (c[-NX] + c[NX] + c[-1] + c[1]);
        }
    __syncthreads();
    nvshmemx_float_put_nbi_block(a_new + (NY + 1) * NX, a_new + NX, NX, top);
    nvshmemx_float_put_nbi_block(a_new, a_new + NY * NX, NX, bottom);
    if (threadIdx.x == 0) {
        nvshmem_fence();
        nvshmemx_signal_op(flags + 1, iteration, NVSHMEM_SIGNAL_SET, top);
        nvshmemx_signal_op(flags, iteration, NVSHMEM_SIGNAL_SET, bottom);
    }
}

/* The same iterations over the whole periodic grid of n * NY rows. */
static void reference(float *grid, int rows) {
    float *next = (float *)malloc(sizeof(float) * rows * NX);
    for (int it = 0; it < ITERATIONS; it++) {
        for (int r = 0; r < rows; r++)
            for (int col = 0; col < NX; col++) {
                const float *up = grid + ((r + rows - 1) % rows) * NX;
                const float *down = grid + ((r + 1) % rows) * NX;
                const float *mid = grid + r * NX;
                next[r * NX + col] =
                    col == 0 || col == NX - 1
                        ? mid[col]
                        : 0.25f * (up[col] + down[col] + mid[col - 1] + mid[col + 1]);
            }
        for (int i = 0; i < rows * NX; i++)
            grid[i] = next[i];
    }
    free(next);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    set_device_of_node_pe();
    size_t bytes = sizeof(float) * (NY + 2) * NX;
    float *a = (float *)nvshmem_malloc(bytes);
    float *a_new = (float *)nvshmem_malloc(bytes);
    uint64_t *flags = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t));

    int rows = n * NY;
    float *grid = (float *)malloc(sizeof(float) * rows * NX);
    float *mine = (float *)malloc(bytes);
    for (int r = 0; r < rows; r++)
        for (int col = 0; col < NX; col++)
            grid[r * NX + col] = initial(r, col);
    for (int row = 0; row < NY + 2; row++) /* own rows and halos from the global grid */
        for (int col = 0; col < NX; col++)
            mine[row * NX + col] = initial((me * NY + row - 1 + rows) % rows, col);
    CHECK_CUDA(cudaMemcpy(a, mine, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(a_new, 0xff, bytes));
    nvshmem_barrier_all();

    for (uint64_t it = 1; it <= ITERATIONS; it++) {
        step<<<1, 256>>>(a, a_new, flags, it);
        float *t = a;
        a = a_new;
        a_new = t;
    }
    CHECK_CUDA(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(0);
    CHECK_CUDA(cudaDeviceSynchronize());

    reference(grid, rows);
    CHECK_CUDA(cudaMemcpy(mine, a, bytes, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int row = 0; row < NY + 2; row++)
        for (int col = 0; col < NX; col++) {
            float want = grid[((me * NY + row - 1 + rows) % rows) * NX + col];
            bad += !(fabsf(mine[row * NX + col] - want) <= 1e-5f);
        }

    nvshmem_barrier_all();
    nvshmem_free(flags);
    nvshmem_free(a_new);
    nvshmem_free(a);
    nvshmem_finalize();
    free(grid);
    free(mine);
    return report("jacobi_halo", me, bad);
}
