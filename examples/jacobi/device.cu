/* Variant "device": one fused kernel per iteration (in CUDA graphs). Two edge blocks compute
 * the first and last rows, send each into the neighbour's halo as soon as it is done, and wait
 * for their own halos; the other blocks compute the interior as the reference's kernel does.
 * On norm iterations the last block to finish adds the norm over the team in the same kernel. */
#include "jacobi.h"
#include "jacobi_kernels.cuh"
#include "symcoll_halo_device.cuh"

#define EDGE_BLOCKS 2

typedef struct {
    float *partial;   /* this PE's sum of squared changes of the iteration */
    unsigned *done;   /* blocks finished, for the last one to add over the team */
    float *team_norm; /* the team's sum, for the host */
    int *failed;      /* set when a device wait timed out */
} norm_state_t;

/* After the block's atomic on the partial norm: the last block of the grid adds it over the
 * team and resets the state for the next norm iteration. */
static __device__ void finish_norm(const symcoll_halo_device_t &hh, norm_state_t s) {
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence();
        unsigned blocks = gridDim.x * gridDim.y;
        last = atomicAdd(s.done, 1u) == blocks - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    double mine = *(volatile float *)s.partial, total = 0;
    if (!symcoll_dev_halo_sum_block(hh, &mine, &total, 1)) {
        *s.failed = 1;
        return;
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        *s.team_norm = (float)total;
        *s.partial = 0.0f;
        *s.done = 0;
    }
}

/* One edge row: computed by the whole block, then sent toward dir and awaited from it.
 * Returns this thread's sum of squared changes. */
static __device__ float edge_row(const symcoll_halo_device_t &hh, float *next, const float *cur,
                                 int iy, int nx, int dir, int *failed) {
    float change2 = 0.0f;
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y, nt = blockDim.x * blockDim.y;
    for (int ix = 1 + (int)t; ix < nx - 1; ix += (int)nt) {
        float c = jacobi_cell(next, cur, iy, ix, iy + 1, nx);
        change2 += c * c;
    }
    __syncthreads();
    if (!symcoll_dev_halo_send_block(hh, next, dir) || !symcoll_dev_halo_wait_block(hh, dir))
        if (t == 0)
            *failed = 1;
    return change2;
}

static __global__ void __launch_bounds__(JACOBI_BLOCK *JACOBI_BLOCK)
    fused_kernel(symcoll_halo_device_t hh, float *next, const float *cur, int rows, int nx,
                 int calc_norm, norm_state_t s) {
    float change2;
    if (blockIdx.y == 0 && blockIdx.x < EDGE_BLOCKS) {
        int top = blockIdx.x == 0;
        change2 = edge_row(hh, next, cur, top ? 1 : rows, nx,
                           symcoll_dev_halo_dir(0, top ? -1 : 1, 0), s.failed);
    } else {
        unsigned b = blockIdx.x + gridDim.x * blockIdx.y - EDGE_BLOCKS;
        unsigned bx = b % ((nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK);
        unsigned by = b / ((nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK);
        int iy = (int)(by * JACOBI_BLOCK + threadIdx.y) + 2;
        int ix = (int)(bx * JACOBI_BLOCK + threadIdx.x) + 1;
        float change = iy < rows ? jacobi_cell(next, cur, iy, ix, rows, nx) : 0.0f;
        change2 = change * change;
    }
    if (calc_norm) {
        jacobi_block_norm(change2, s.partial);
        finish_norm(hh, s);
    }
}

typedef struct {
    symcoll_halo_device_t hh;
    dim3 grid;
    norm_state_t norm;
} device_state_t;

static void iteration(jacobi_t *j, void *ctx, float *next, const float *cur, int calc_norm) {
    device_state_t *s = (device_state_t *)ctx;
    fused_kernel<<<s->grid, dim3(JACOBI_BLOCK, JACOBI_BLOCK), 0, j->compute>>>(
        s->hh, next, cur, j->rows, j->nx, calc_norm, s->norm);
    CHECK_CUDA(cudaGetLastError());
    if (calc_norm)
        CHECK_CUDA(cudaMemcpyAsync(j->norm_host, j->norm_sum, sizeof(float), cudaMemcpyDeviceToHost,
                                   j->compute));
}

double jacobi_device(jacobi_t *j) {
    if (j->rows < 2) {
        fprintf(stderr, "jacobi device: needs at least 2 rows per PE (has %d)\n", j->rows);
        exit(2);
    }
    symcoll_halo_t plan = jacobi_plan(j);
    device_state_t state;
    state.hh = symcoll_halo_device_handle(plan);
    norm_state_t *s = &state.norm;
    CHECK_CUDA(cudaMalloc(&s->partial, sizeof(float)));
    CHECK_CUDA(cudaMalloc(&s->done, sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&s->failed, sizeof(int)));
    CHECK_CUDA(cudaMemset(s->partial, 0, sizeof(float)));
    CHECK_CUDA(cudaMemset(s->done, 0, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(s->failed, 0, sizeof(int)));
    s->team_norm = j->norm_sum;
    /* Interior blocks as in the reference's grid over rows 2 .. rows - 1, plus the edges. */
    unsigned across = (unsigned)(j->nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    unsigned down = (unsigned)(j->rows - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    unsigned blocks = across * down + EDGE_BLOCKS;
    state.grid = dim3(blocks < 65535 ? blocks : 65535, (blocks + 65534) / 65535);
    cudaGraphExec_t graphs[2][2];
    jacobi_capture(j, iteration, &state, graphs);
    double seconds = jacobi_run_graphs(j, graphs);
    int failed = 0;
    CHECK_CUDA(cudaMemcpy(&failed, s->failed, sizeof failed, cudaMemcpyDeviceToHost));
    if (failed) {
        fprintf(stderr, "PE %d: a device wait timed out: %s\n", j->me,
                symcoll_team_status(SYMCOLL_TEAM_WORLD) == SYMCOLL_SUCCESS ? "(no record)"
                                                                           : symcoll_last_error());
        exit(1);
    }
    jacobi_destroy_graphs(graphs);
    CHECK_CUDA(cudaFree(s->partial));
    CHECK_CUDA(cudaFree(s->done));
    CHECK_CUDA(cudaFree(s->failed));
    CHECK_SYMCOLL(symcoll_halo_destroy(plan));
    return seconds;
}
