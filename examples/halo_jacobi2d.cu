/* Jacobi iterations on a 2D grid split into row slabs across PEs, with halo rows exchanged
 * by the device API: the blocks that own a slab's first and last rows wait for the
 * neighbours' signals, update their rows, and send them with put_signal. No host
 * synchronization between iterations and no relocatable device code.
 *
 *   symcoll-run -n 2 ./example_halo_jacobi2d [columns] [rows-per-PE] [iterations]
 *
 * The top edge of the whole grid is held at 1, the other edges at 0. PE 0 checks the
 * result against the same iterations on the CPU and every PE reports its deviation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symcoll.h"
#include "symcoll_device.cuh"

#define ROWS_PER_BLOCK 8
#define THREADS 256

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_SYMCOLL(call)                                                                        \
    do {                                                                                           \
        symcoll_status_t st_ = (call);                                                             \
        if (st_ != SYMCOLL_SUCCESS) {                                                              \
            fprintf(stderr, "%s: %s\n", #call, symcoll_last_error());                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct {
    int nx, rows;        /* columns; interior rows of this PE (rows 1..rows of a grid) */
    int up, down;        /* neighbour PEs, -1 at the edges of the whole grid */
    uint64_t *from_up;   /* symmetric: iterations whose last row the PE above has sent */
    uint64_t *from_down; /* symmetric: iterations whose first row the PE below has sent */
} slab_t;

static __host__ __device__ float jacobi(float up, float down, float left, float right) {
    return 0.25f * ((up + down) + (left + right));
}

/* One iteration: cur -> next, both (rows + 2) x nx with halo rows 0 and rows + 1. The block
 * owning row 1 waits for the PE above, computes, and sends next's row 1 into that PE's halo
 * row of its next grid; the block owning the last row does the same with the PE below. A
 * block that reads a halo is the one that signals the PE which writes it, so no halo is
 * overwritten before it has been read. */
static __global__ void jacobi_kernel(symcoll_device_t h, slab_t s, const float *cur, float *next,
                                     int iteration, int *timed_out) {
    int first = 1 + blockIdx.x * ROWS_PER_BLOCK;
    int last = min(first + ROWS_PER_BLOCK - 1, s.rows);
    bool owns_top = first == 1, owns_bottom = last == s.rows;
    __shared__ int ready;
    if (threadIdx.x == 0) {
        ready = 1;
        if (owns_top && s.up >= 0)
            ready = symcoll_dev_signal_wait_until(h, s.from_up, SYMCOLL_CMP_GE, iteration);
        if (ready && owns_bottom && s.down >= 0)
            ready = symcoll_dev_signal_wait_until(h, s.from_down, SYMCOLL_CMP_GE, iteration);
    }
    __syncthreads();
    if (!ready) {
        if (threadIdx.x == 0)
            *timed_out = 1;
        return;
    }
    int width = s.nx - 2;
    for (int i = threadIdx.x; i < (last - first + 1) * width; i += blockDim.x) {
        int r = first + i / width, c = 1 + i % width;
        const float *row = cur + (size_t)r * s.nx;
        next[(size_t)r * s.nx + c] = jacobi(row[c - s.nx], row[c + s.nx], row[c - 1], row[c + 1]);
    }
    __syncthreads();
    size_t row_bytes = (size_t)s.nx * sizeof(float);
    if (owns_top && s.up >= 0) /* our row 1 is the bottom halo (row rows + 1) of the PE above */
        symcoll_dev_put_signal_block(h, next + (size_t)(s.rows + 1) * s.nx, next + s.nx, row_bytes,
                                     s.from_down, iteration + 1, SYMCOLL_SIGNAL_SET, s.up);
    if (owns_bottom && s.down >= 0) /* our last row is the top halo (row 0) of the PE below */
        symcoll_dev_put_signal_block(h, next, next + (size_t)s.rows * s.nx, row_bytes, s.from_up,
                                     iteration + 1, SYMCOLL_SIGNAL_SET, s.down);
}

/* The whole grid on the CPU: (n_pes * rows + 2) x nx. */
static float *cpu_reference(int nx, int total_rows, int iterations) {
    size_t cells = (size_t)(total_rows + 2) * nx;
    float *a = (float *)calloc(cells, sizeof(float)), *b = (float *)calloc(cells, sizeof(float));
    for (int c = 1; c < nx - 1; c++)
        a[c] = b[c] = 1.0f;
    for (int it = 0; it < iterations; it++) {
        for (int r = 1; r <= total_rows; r++)
            for (int c = 1; c < nx - 1; c++) {
                const float *row = a + (size_t)r * nx;
                b[(size_t)r * nx + c] = jacobi(row[c - nx], row[c + nx], row[c - 1], row[c + 1]);
            }
        float *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

int main(int argc, char **argv) {
    int nx = argc > 1 ? atoi(argv[1]) : 1024;
    int rows = argc > 2 ? atoi(argv[2]) : 128;
    int iterations = argc > 3 ? atoi(argv[3]) : 500;
    if (nx < 3 || rows < 1 || iterations < 0) {
        fprintf(stderr, "usage: %s [columns >= 3] [rows-per-PE >= 1] [iterations >= 0]\n", argv[0]);
        return 2;
    }
    symcoll_status_t st = symcoll_init(NULL);
    if (st == SYMCOLL_ERROR_NO_GPU) {
        printf("no GPU: %s\n", symcoll_last_error());
        return 77;
    }
    CHECK_SYMCOLL(st);
    int me = symcoll_my_pe(), n = symcoll_n_pes();

    size_t cells = (size_t)(rows + 2) * nx, grid_bytes = cells * sizeof(float);
    float *grids = (float *)symcoll_calloc(2 * cells, sizeof(float));
    uint64_t *signals = (uint64_t *)symcoll_calloc(2, sizeof(uint64_t));
    int *timed_out;
    if (!grids || !signals) {
        fprintf(stderr, "symcoll_calloc: %s\n", symcoll_last_error());
        return 1;
    }
    CHECK_CUDA(cudaMalloc(&timed_out, sizeof(int)));
    CHECK_CUDA(cudaMemset(timed_out, 0, sizeof(int)));
    slab_t s = {nx, rows, me > 0 ? me - 1 : -1, me < n - 1 ? me + 1 : -1, signals, signals + 1};
    if (me == 0) { /* the fixed top edge, in both grids */
        float *edge = (float *)malloc(grid_bytes);
        for (int c = 0; c < nx; c++)
            edge[c] = c == 0 || c == nx - 1 ? 0.0f : 1.0f;
        CHECK_CUDA(cudaMemcpy(grids, edge, nx * sizeof(float), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(grids + cells, edge, nx * sizeof(float), cudaMemcpyHostToDevice));
        free(edge);
    }

    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    /* Nobody sends a halo before every PE has initialized its grids. */
    CHECK_SYMCOLL(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
    CHECK_CUDA(cudaEventRecord(start, stream));
    int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    for (int it = 0; it < iterations; it++) {
        const float *cur = grids + (size_t)(it & 1) * cells;
        float *next = grids + (size_t)((it + 1) & 1) * cells;
        jacobi_kernel<<<blocks, THREADS, 0, stream>>>(h, s, cur, next, it, timed_out);
    }
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_SYMCOLL(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    int failed = 0;
    CHECK_CUDA(cudaMemcpy(&failed, timed_out, sizeof failed, cudaMemcpyDeviceToHost));
    if (failed) {
        fprintf(stderr, "PE %d: a halo wait timed out: %s\n", me,
                symcoll_team_status(SYMCOLL_TEAM_WORLD) == SYMCOLL_SUCCESS ? "?"
                                                                           : symcoll_last_error());
        return 1;
    }
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

    float *mine = (float *)malloc(grid_bytes);
    CHECK_CUDA(cudaMemcpy(mine, grids + (size_t)(iterations & 1) * cells, grid_bytes,
                          cudaMemcpyDeviceToHost));
    float *want = cpu_reference(nx, n * rows, iterations);
    double worst = 0;
    for (int r = 1; r <= rows; r++)
        for (int c = 0; c < nx; c++) {
            double d = fabs((double)mine[(size_t)r * nx + c] -
                            (double)want[(size_t)(me * rows + r) * nx + c]);
            worst = d > worst ? d : worst;
        }
    printf("PE %d of %d: %d x %d rows, %d iterations, %.2f us per iteration, max deviation from "
           "the CPU %.3g\n",
           me, n, nx, rows, iterations, iterations ? 1000.0 * ms / iterations : 0.0, worst);
    free(mine);
    free(want);

    CHECK_CUDA(cudaFree(timed_out));
    symcoll_free(signals);
    symcoll_free(grids);
    CHECK_SYMCOLL(symcoll_finalize());
    return worst <= 1e-5 ? 0 : 1;
}
