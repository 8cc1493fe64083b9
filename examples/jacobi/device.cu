/* Variant "device": one fused kernel per iteration (in CUDA graphs). The first row of blocks
 * holds two edge blocks, dispatched first, that compute the first and last rows, send each into
 * the neighbour's halo as soon as it is done, and wait for their own halos; the other rows of
 * blocks compute the interior exactly as the reference's kernel does. The kernel is held to
 * 32 registers a thread so that two 1024-thread blocks fit on an SM, as the reference's kernel
 * does (at 52 registers only one fitted, which halved the interior's throughput).
 *
 * On norm iterations every block stores its sum with the norm iteration's number in one
 * 64-bit word of its own slot (no atomics, no fences: a block leaves at once), and edge block
 * 0, resident from the start, gathers the slots in a fixed order, adds the sum over the team
 * in the same kernel and stores it straight into the host's pinned word. */
#include "jacobi.h"
#include "jacobi_kernels.cuh"
#include "symcoll_halo_device.cuh"

#define EDGE_BLOCKS 2
#define THREADS (JACOBI_BLOCK * JACOBI_BLOCK)

typedef struct {
    uint64_t *slots;  /* per block: (norm iteration << 32) | float bits of its sum */
    uint32_t *epoch;  /* norm iterations done */
    float *team_norm; /* the team's sum: the host's pinned word */
    int *failed;      /* set when a device wait timed out */
} norm_state_t;

/* Block 0, after its own slot: waits for every block's slot of norm iteration e, adds them in
 * a fixed order, adds the result over the team and publishes it. */
static __device__ void finish_norm(const symcoll_halo_device_t &hh, norm_state_t s, uint32_t e) {
    __shared__ double warp_sums[THREADS / 32];
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    unsigned blocks = gridDim.x * gridDim.y;
    uint64_t want = (uint64_t)e << 32;
    double mine = 0.0;
    bool ok = true;
    for (unsigned b = t; b < blocks && ok; b += THREADS) {
        const uint64_t *slot = s.slots + b;
        /* Mostly there already: the acquiring wait (with its timeout) only on a miss. */
        if (*(const volatile uint64_t *)slot < want)
            ok = symcoll_dev_signal_wait_until(hh.team, slot, SYMCOLL_CMP_GE, want);
        mine += __uint_as_float((uint32_t) * (const volatile uint64_t *)slot);
    }
    for (int o = 16; o > 0; o >>= 1)
        mine += __shfl_down_sync(0xffffffffu, mine, o);
    if (t % 32 == 0)
        warp_sums[t / 32] = mine;
    if (!__syncthreads_and(ok)) {
        if (t == 0)
            *s.failed = 1;
        return;
    }
    double local = 0.0, total = 0.0;
    for (int w = 0; w < THREADS / 32; w++)
        local += warp_sums[w];
    if (!symcoll_dev_halo_sum_block(hh, &local, &total, 1)) {
        if (t == 0)
            *s.failed = 1;
        return;
    }
    if (t == 0) {
        *(volatile float *)s.team_norm = (float)total;
        *s.epoch = e;
    }
}

/* Every block: its sum into its slot; block 0 then finishes the norm. */
static __device__ void block_norm(const symcoll_halo_device_t &hh, norm_state_t s, float change2) {
    /* Read before this block's slot is written, so before block 0 can advance it. */
    uint32_t e = *(const volatile uint32_t *)s.epoch + 1;
    float sum = jacobi_block_sum(change2);
    unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    if (threadIdx.x == 0 && threadIdx.y == 0)
        *(volatile uint64_t *)(s.slots + b) = (uint64_t)e << 32 | __float_as_uint(sum);
    if (b == 0)
        finish_norm(hh, s, e);
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

static __global__ void __launch_bounds__(THREADS, 2)
    fused_kernel(symcoll_halo_device_t hh, float *next, const float *cur, int rows, int nx,
                 int calc_norm, norm_state_t s) {
    float change2 = 0.0f;
    if (blockIdx.y == 0) {
        if (blockIdx.x < EDGE_BLOCKS) {
            int top = blockIdx.x == 0;
            change2 = edge_row(hh, next, cur, top ? 1 : rows, nx,
                               symcoll_dev_halo_dir(0, top ? -1 : 1, 0), s.failed);
        }
    } else {
        int iy = (int)((blockIdx.y - 1) * JACOBI_BLOCK + threadIdx.y) + 2;
        int ix = (int)(blockIdx.x * JACOBI_BLOCK + threadIdx.x) + 1;
        float change = jacobi_cell(next, cur, iy, ix, rows, nx);
        change2 = change * change;
    }
    if (calc_norm)
        block_norm(hh, s, change2);
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
    CHECK_CUDA(cudaMalloc(&s->epoch, sizeof(uint32_t)));
    CHECK_CUDA(cudaMalloc(&s->failed, sizeof(int)));
    CHECK_CUDA(cudaMemset(s->epoch, 0, sizeof(uint32_t)));
    CHECK_CUDA(cudaMemset(s->failed, 0, sizeof(int)));
    s->team_norm = j->norm_host; /* pinned, so mapped into the device's address space */
    /* Row 0 of blocks: the edges (the rest of it exits at once); rows 1 ..: the reference's
     * grid over rows 2 .. rows - 1. */
    unsigned across = (unsigned)(j->nx + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    unsigned down = (unsigned)(j->rows - 2 + JACOBI_BLOCK - 1) / JACOBI_BLOCK;
    state.grid = dim3(across > EDGE_BLOCKS ? across : EDGE_BLOCKS, down + 1);
    size_t slots = (size_t)state.grid.x * state.grid.y * sizeof(uint64_t);
    CHECK_CUDA(cudaMalloc(&s->slots, slots));
    CHECK_CUDA(cudaMemset(s->slots, 0, slots));
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
    CHECK_CUDA(cudaFree(s->slots));
    CHECK_CUDA(cudaFree(s->epoch));
    CHECK_CUDA(cudaFree(s->failed));
    CHECK_SYMCOLL(symcoll_halo_destroy(plan));
    return seconds;
}
