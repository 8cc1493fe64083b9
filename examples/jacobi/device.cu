/* Variant "device": one fused kernel per iteration (in CUDA graphs), and convergence decided
 * on the GPU. The first row of blocks holds two edge blocks, dispatched first, that compute
 * the first and last rows, send each into the neighbour's halo as soon as it is done, and
 * wait for their own halos, then the norm block; the other rows of blocks compute the
 * interior exactly as the reference's kernel does. The kernel is held to 32 registers a
 * thread so that two 1024-thread blocks fit on an SM, as the reference's kernel does (at 52
 * registers only one fitted, which halved the interior's throughput).
 *
 * The norm costs a block less than the reference's block sum: each warp adds up its squared
 * changes and adds that, with one atomic whose result it does not wait for, to one of NORM_SUMS
 * accumulators, and leaves; no barrier, fence or load that a block must wait for. (Anything a
 * block waits for lengthens every block's life, and with two blocks per SM resident the
 * kernel's time grows by that wait over 264 per block: the earlier designs, a returning atomic
 * per block or every thread loading the norm's counter, cost ~8 ns per block, 1 ms an iteration
 * at 16384^2.) The next kernel's norm block, sure by stream order that every atomic is done,
 * adds the accumulators (and clears them for the next use), adds over the team
 * (symcoll_dev_halo_sum_block: it adds the PEs' sums in member order, so every PE gets the same
 * bits and stops at the same iteration, though a PE's own sum, of float atomics as the
 * reference's, may differ in its last bits from run to run), stores the norm into the host's
 * pinned word, and decides, by the host loop's rule, whether the kernels after it stop. Every
 * block of a kernel reads that decision as it starts (an L1 hit for all but an SM's first
 * block, its latency under the cells' loads) and, when set, stores, sends and adds nothing, so
 * the host launches the graphs back to back without waiting for norms. The decision lags one
 * kernel: the kernel after the converged iteration runs anyway, but it writes only the other
 * grid, so the converged iteration's result stays intact; the kernels after it do nothing, and
 * the device counts the iterations that count. */
#include <math.h>
#include "jacobi.h"
#include "jacobi_kernels.cuh"
#include "symcoll_halo_device.cuh"

#define EDGE_BLOCKS 2
#define NORM_BLOCK 2 /* after the edge blocks in the first row, so resident from the start */
#define THREADS (JACOBI_BLOCK * JACOBI_BLOCK)
#define STOP_POLL 100 /* launches between the host's looks at the norm */
#define NORM_SUMS 256 /* accumulators of a norm iteration, one 128-byte line each, so that */
#define SUM_STRIDE 32 /* the warps' atomics spread over the L2's slices */

/* Device state of the loop, reset before the timed loop. Only the norm block writes the
 * words; the warps of norm iterations add into sums. */
typedef struct {
    float sums[2][NORM_SUMS * SUM_STRIDE]; /* by iteration parity */
    uint32_t stop[2];    /* by iteration parity: the kernels of that parity do nothing */
    uint32_t pending;    /* the previous kernel was a norm iteration: its sums wait */
    uint32_t iterations; /* iterations run whose result counts */
} control_t;

typedef struct {
    control_t *control; /* device memory */
    float *team_norm;   /* the team's sum: the host's pinned word */
    int *failed;        /* set when a device wait timed out */
} norm_state_t;

/* The norm block: the team's sum of the accumulators of the previous kernel's norm
 * iteration, in every thread; clears them for the next norm iteration of their parity,
 * which runs after this kernel. */
static __device__ bool team_norm(const symcoll_halo_device_t &hh, float *sums, double *total) {
    __shared__ double sum;
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    double mine = 0.0;
    for (unsigned i = t; i < NORM_SUMS; i += THREADS) {
        mine += sums[i * SUM_STRIDE];
        sums[i * SUM_STRIDE] = 0.0f;
    }
    double local = jacobi_block_sum(mine);
    if (t == 0)
        sum = local;
    __syncthreads();
    if (!symcoll_dev_halo_sum_block(hh, &sum, &sum, 1))
        return false;
    *total = sum;
    return true;
}

/* The norm block: unless this kernel halts, finishes the previous kernel's norm iteration, if
 * any, and tells the next kernel (of the other parity) whether to stop: after the first
 * norm not above tol, by the host loop's rule, or after a failed wait. */
static __device__ void finish_norm(const symcoll_halo_device_t &hh, norm_state_t s, int calc_norm,
                                   int parity, bool halt) {
    control_t *c = s.control;
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    if (halt) { /* passes the stop on to the next kernel */
        if (t == 0)
            c->stop[!parity] = 1;
        return;
    }
    uint32_t pending = c->pending, done = c->iterations;
    bool stop = false;
    if (pending) {
        double total = 0.0;
        if (team_norm(hh, c->sums[!parity], &total)) {
            float norm = (float)total;
            if (t == 0)
                *(volatile float *)s.team_norm = norm;
            stop = !(sqrtf(norm) > JACOBI_TOL);
        } else {
            if (t == 0)
                *s.failed = 1;
            stop = true;
        }
    }
    __syncthreads(); /* every thread has read the words before thread 0 rewrites them */
    if (t == 0) {
        c->pending = (uint32_t)calc_norm;
        c->iterations = stop ? done : done + 1; /* a stopping kernel's own iteration is extra */
        c->stop[!parity] = stop;
    }
}

/* Every warp of a norm iteration: its sum added to one of the accumulators, and no wait
 * (the atomic's result unused, it is a reduction that the warp does not wait for). */
static __device__ void warp_norm(float *sums, float change2) {
    float sum = jacobi_warp_sum(change2);
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    if (t % 32 == 0) {
        unsigned warp = (blockIdx.x + gridDim.x * blockIdx.y) * (THREADS / 32) + t / 32;
        atomicAdd(sums + warp % NORM_SUMS * SUM_STRIDE, sum);
    }
}

/* One edge row: computed by the whole block, then sent toward dir and awaited from it;
 * neither stored nor sent when the kernel halts. Returns this thread's sum of squared
 * changes. */
static __device__ float edge_row(const symcoll_halo_device_t &hh, float *next, const float *cur,
                                 int iy, int nx, int dir, bool halt, int *failed) {
    float change2 = 0.0f;
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y, nt = blockDim.x * blockDim.y;
    for (int ix = 1 + (int)t; ix < nx - 1; ix += (int)nt) {
        float c = jacobi_cell(next, cur, iy, ix, iy + 1, nx, !halt);
        change2 += c * c;
    }
    if (halt) /* on every PE alike: the exchange counts stay matched */
        return 0.0f;
    __syncthreads();
    if (!symcoll_dev_halo_send_block(hh, next, dir) || !symcoll_dev_halo_wait_block(hh, dir))
        if (t == 0)
            *failed = 1;
    return change2;
}

static __global__ void __launch_bounds__(THREADS, 2)
    fused_kernel(symcoll_halo_device_t hh, float *next, const float *cur, int rows, int nx,
                 int calc_norm, int parity, norm_state_t s) {
    /* Written by the previous kernel's norm block (this kernel's writes the other parity's),
     * and consumed only at the stores, so that its latency hides under the cells' loads. */
    bool halt = s.control->stop[parity];
    float change2 = 0.0f;
    if (blockIdx.y == 0) {
        if (blockIdx.x < EDGE_BLOCKS) {
            int top = blockIdx.x == 0;
            change2 = edge_row(hh, next, cur, top ? 1 : rows, nx,
                               symcoll_dev_halo_dir(0, top ? -1 : 1, 0), halt, s.failed);
        } else if (blockIdx.x == NORM_BLOCK) {
            finish_norm(hh, s, calc_norm, parity, halt);
        }
    } else {
        int iy = (int)((blockIdx.y - 1) * JACOBI_BLOCK + threadIdx.y) + 2;
        int ix = (int)(blockIdx.x * JACOBI_BLOCK + threadIdx.x) + 1;
        float change = jacobi_cell(next, cur, iy, ix, rows, nx, !halt);
        change2 = change * change;
    }
    if (calc_norm && !halt)
        warp_norm(s.control->sums[parity], change2);
}

typedef struct {
    symcoll_halo_device_t hh;
    dim3 grid;
    norm_state_t norm;
} device_state_t;

static void iteration(jacobi_t *j, void *ctx, float *next, const float *cur, int calc_norm) {
    device_state_t *s = (device_state_t *)ctx;
    int parity = cur == j->a_new;
    fused_kernel<<<s->grid, dim3(JACOBI_BLOCK, JACOBI_BLOCK), 0, j->compute>>>(
        s->hh, next, cur, j->rows, j->nx, calc_norm, parity, s->norm);
    CHECK_CUDA(cudaGetLastError());
}

/* The timed loop: the graphs back to back, the GPU deciding when to stop. Every STOP_POLL
 * launches the host peeks at the norm in the pinned word, without waiting, only to stop
 * launching kernels that would do nothing. Returns the seconds of the loop; afterwards
 * j->a holds the result. */
static double run_graphs(jacobi_t *j, cudaGraphExec_t graphs[2][2], const norm_state_t *s) {
    jacobi_warm_up(j, graphs);
    CHECK_CUDA(cudaMemsetAsync(s->control, 0, sizeof(control_t), j->compute));
    /* No kernel runs: the warm-up's norm must not stop the loop. */
    *(volatile float *)j->norm_host = 1.0f;
    double start = jacobi_start(j);
    for (int iter = 0; iter < j->niter; iter++) {
        if (iter % STOP_POLL == 0 && !(sqrtf(*(volatile float *)j->norm_host) > JACOBI_TOL))
            break;
        CHECK_CUDA(cudaGraphLaunch(graphs[iter % j->nccheck == 0][iter % 2], j->compute));
    }
    double seconds = jacobi_elapsed(start);
    uint32_t iterations = 0;
    CHECK_CUDA(cudaMemcpy(&iterations, &s->control->iterations, sizeof iterations,
                          cudaMemcpyDeviceToHost));
    jacobi_keep_result(j, (int)iterations);
    return seconds;
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
    CHECK_CUDA(cudaMalloc(&s->control, sizeof(control_t)));
    CHECK_CUDA(cudaMalloc(&s->failed, sizeof(int)));
    CHECK_CUDA(cudaMemset(s->control, 0, sizeof(control_t)));
    CHECK_CUDA(cudaMemset(s->failed, 0, sizeof(int)));
    s->team_norm = j->norm_host; /* pinned, so mapped into the device's address space */
    /* Row 0 of blocks: the edges and the norm block (the rest of it has no cells); rows 1 ..:
     * the reference's grid over rows 2 .. rows - 1. */
    unsigned across = (unsigned)(j->nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    unsigned down = (unsigned)(j->rows - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    state.grid = dim3(across > NORM_BLOCK ? across : NORM_BLOCK + 1, down + 1);
    cudaGraphExec_t graphs[2][2];
    jacobi_capture(j, iteration, &state, graphs);
    double seconds = run_graphs(j, graphs, s);
    int failed = 0;
    CHECK_CUDA(cudaMemcpy(&failed, s->failed, sizeof failed, cudaMemcpyDeviceToHost));
    if (failed) {
        fprintf(stderr, "PE %d: a device wait timed out: %s\n", j->me,
                symcoll_team_status(SYMCOLL_TEAM_WORLD) == SYMCOLL_SUCCESS ? "(no record)"
                                                                           : symcoll_last_error());
        exit(1);
    }
    jacobi_destroy_graphs(graphs);
    CHECK_CUDA(cudaFree(s->control));
    CHECK_CUDA(cudaFree(s->failed));
    CHECK_SYMCOLL(symcoll_halo_destroy(plan));
    return seconds;
}
