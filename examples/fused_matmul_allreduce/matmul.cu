/* The tiled matmul of both variants. The grid is persistent: block b computes output tiles
 * b, b + grid, b + 2 grid, ... in the same order on every PE, so that its tile reduces meet
 * block b's of every other PE, one after the other, on synchronization slot b. */
#include "fused_matmul.h"
#include "symcoll_device_coll.cuh"

#define MM_SIDE 16                                  /* threads along each axis of a tile */
#define MM_PER_THREAD (MM_TILE / MM_SIDE)           /* outputs per thread along each axis */
#define MM_LOADS (MM_TILE * MM_TILE_K / MM_THREADS) /* elements of A (and of B) per thread */
static_assert(MM_SIDE * MM_SIDE == MM_THREADS, "one thread per 8 x 8 outputs");
static_assert(MM_MAX_GRID <= SYMCOLL_MAX_BLOCKS, "a synchronization slot per block");
static_assert(MM_LOADS * MM_THREADS == MM_TILE * MM_TILE_K, "slices split evenly");

/* One k-slice of the operands, held in registers so that its global loads are in flight while
 * the block computes on the previous slice: A's 128 x 8 and B's 8 x 128, zero outside the
 * matrix (edge tiles and a last partial slice), which adds nothing to the sums. */
typedef struct {
    float a[MM_LOADS], b[MM_LOADS];
} slice_t;

/* Consecutive threads read along a row of each operand, so that the loads coalesce. */
static __device__ void load_slice(slice_t *s, const float *A, const float *B, int n, int row0,
                                  int col0, int k0) {
#pragma unroll
    for (int j = 0; j < MM_LOADS; j++) {
        int e = threadIdx.x + j * MM_THREADS;
        int r = row0 + e / MM_TILE_K, ka = k0 + e % MM_TILE_K;
        s->a[j] = r < n && ka < n ? A[(size_t)r * n + ka] : 0.0f;
        int kb = k0 + e / MM_TILE, c = col0 + e % MM_TILE;
        s->b[j] = kb < n && c < n ? B[(size_t)kb * n + c] : 0.0f;
    }
}

/* acc = the tile at (row0, col0) of A x B. Thread (tx, ty) owns rows ty + 16 i and columns
 * tx + 16 j: a warp's reads of shared memory then hit distinct banks or broadcast. */
static __device__ void tile_product(float acc[MM_PER_THREAD][MM_PER_THREAD], const float *A,
                                    const float *B, int n, int row0, int col0) {
    /* A's slice transposed, so that the inner loop reads it like B's; the pad spreads the
     * transposing stores over the banks. */
    __shared__ float As[MM_TILE_K][MM_TILE + 4];
    __shared__ float Bs[MM_TILE_K][MM_TILE];
    int tx = threadIdx.x % MM_SIDE, ty = threadIdx.x / MM_SIDE;
#pragma unroll
    for (int i = 0; i < MM_PER_THREAD; i++)
#pragma unroll
        for (int j = 0; j < MM_PER_THREAD; j++)
            acc[i][j] = 0.0f;
    slice_t next;
    load_slice(&next, A, B, n, row0, col0, 0);
    for (int k0 = 0; k0 < n; k0 += MM_TILE_K) {
        __syncthreads(); /* every thread is done with the previous slice (or tile) */
#pragma unroll
        for (int j = 0; j < MM_LOADS; j++) {
            int e = threadIdx.x + j * MM_THREADS;
            As[e % MM_TILE_K][e / MM_TILE_K] = next.a[j];
            Bs[e / MM_TILE][e % MM_TILE] = next.b[j];
        }
        __syncthreads();
        if (k0 + MM_TILE_K < n)
            load_slice(&next, A, B, n, row0, col0, k0 + MM_TILE_K);
#pragma unroll
        for (int k = 0; k < MM_TILE_K; k++) {
            float a[MM_PER_THREAD], b[MM_PER_THREAD];
#pragma unroll
            for (int i = 0; i < MM_PER_THREAD; i++) {
                a[i] = As[k][ty + MM_SIDE * i];
                b[i] = Bs[k][tx + MM_SIDE * i];
            }
#pragma unroll
            for (int i = 0; i < MM_PER_THREAD; i++)
#pragma unroll
                for (int j = 0; j < MM_PER_THREAD; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
}

/* The rows x cols corner of acc into dst at a row stride of ld elements. */
static __device__ void store_tile(const float acc[MM_PER_THREAD][MM_PER_THREAD], float *dst,
                                  size_t ld, int rows, int cols) {
    int tx = threadIdx.x % MM_SIDE, ty = threadIdx.x / MM_SIDE;
#pragma unroll
    for (int i = 0; i < MM_PER_THREAD; i++)
#pragma unroll
        for (int j = 0; j < MM_PER_THREAD; j++) {
            int r = ty + MM_SIDE * i, c = tx + MM_SIDE * j;
            if (r < rows && c < cols)
                dst[(size_t)r * ld + c] = acc[i][j];
        }
}

/* staging NULL: C = A x B. Otherwise every tile goes contiguous into the block's staging slot
 * (the symmetric source that the peers read) and comes back into C as the team's sum. Two
 * blocks fit one SM (128 registers at most): where PEs share a GPU their blocks may share SMs,
 * and a block that waits for a peer's block must never keep that one from starting (with 209
 * registers, one block per SM, 2 PEs under MPS timed out after some hundred tiles). */
static __global__ void __launch_bounds__(MM_THREADS, 2)
    matmul(symcoll_device_t h, const float *A, const float *B, float *C, int n, float *staging,
           int *failed) {
    int side = (n + MM_TILE - 1) / MM_TILE, tiles = side * side;
    float *mine = staging ? staging + (size_t)blockIdx.x * MM_TILE * MM_TILE : NULL;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int row0 = t / side * MM_TILE, col0 = t % side * MM_TILE;
        int rows = min(MM_TILE, n - row0), cols = min(MM_TILE, n - col0);
        float *out = C + (size_t)row0 * n + col0;
        float acc[MM_PER_THREAD][MM_PER_THREAD];
        tile_product(acc, A, B, n, row0, col0);
        if (!mine) {
            store_tile(acc, out, n, rows, cols);
            continue;
        }
        store_tile(acc, mine, cols, rows, cols);
        /* Waits for block b of every PE to stage the same tile, and returns once every PE
         * has read this one's: the slot is free for the next tile. */
        if (!symcoll_dev_tile_reduce_copy_block<float, SYMCOLL_SUM>(h, out, n, mine, rows, cols,
                                                                    blockIdx.x)) {
            if (threadIdx.x == 0)
                atomicExch(failed, 1);
            return; /* the host reads the team's timeout record */
        }
    }
}

int mm_grid(int n, int sm_share) {
    long side = (n + MM_TILE - 1) / MM_TILE, tiles = side * side;
    long grid = sm_share < MM_MAX_GRID ? sm_share : MM_MAX_GRID;
    return (int)(tiles < grid ? tiles : grid);
}

void mm_launch(const mm_t *m, int fused) {
    symcoll_device_t h = m->h;
    const float *a = m->a, *b = m->b;
    float *c = m->c, *staging = fused ? m->staging : NULL;
    int n = m->n, *failed = m->failed;
    void *args[] = {&h, &a, &b, &c, &n, &staging, &failed};
    /* A plain launch: at most sm_share blocks, two of which fit one SM, are all resident. (A
     * cooperative launch would check that too, but under MPS it kept the PEs' kernels from
     * running side by side.) */
    CHECK_CUDA(cudaLaunchKernel((const void *)matmul, dim3(m->grid), dim3(MM_THREADS), args, 0,
                                m->stream));
}
