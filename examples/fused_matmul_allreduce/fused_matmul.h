/* A matmul whose output is all-reduced over the PEs, fused and unfused: each PE computes
 * C_pe = A_pe x B_pe (float, row-major n x n) and every PE's C must end up holding the sum over
 * the PEs of C_pe. The fused kernel reduces each output tile across the team as soon as it is
 * computed; the baseline runs the same matmul, then symcoll_reduce_on_stream on all of C. */
#ifndef FUSED_MATMUL_H
#define FUSED_MATMUL_H

#include <stdint.h>
#include "example_check.h"
#include "symcoll.h"

#define MM_TILE 128     /* a block's output tile: 128 x 128 */
#define MM_TILE_K 8     /* the slice of A's columns and B's rows in shared memory per step */
#define MM_THREADS 256  /* 16 x 16 threads of 8 x 8 outputs each */
#define MM_MAX_N 65536  /* 4 * n * SYMCOLL_MAX_PES <= 2^24: every sum stays exact (below) */
#define MM_MAX_GRID 128 /* SYMCOLL_MAX_BLOCKS: a synchronization slot per block */

typedef struct {
    int n, niter, me, npes;
    int grid; /* blocks of both matmul launches, each walking tiles b, b + grid, ... */
    symcoll_device_t h;
    float *a, *b;   /* this PE's operands */
    float *c;       /* symmetric: the result */
    float *staging; /* symmetric: one tile per block, the fused kernel's reduce source */
    int *failed;    /* set by a block of the fused kernel whose tile reduce failed */
    cudaStream_t stream;
} mm_t;

/* Entries are integers in -2 .. 2 times 2^-3, hashed from (pe, matrix, row, col): every
 * product is an integer times 2^-6 of magnitude at most 4, so any sum of them, in any order,
 * stays below 4 n n_pes units, which n <= MM_MAX_N keeps within float's 24 bits: the fused,
 * the unfused and the reference results must agree bit for bit. matrix: 0 for A, 1 for B. */
static __host__ __device__ inline float mm_value(int pe, int matrix, int row, int col) {
    uint32_t x = ((uint32_t)(pe * 2 + matrix) * 0x9e3779b9u) ^ (uint32_t)row;
    x = (x ^ (x >> 16)) * 0x7feb352du;
    x = (x ^ (x >> 15) ^ (uint32_t)col) * 0x846ca68bu;
    x ^= x >> 16;
    return (float)((int)(x % 5u) - 2) * 0.125f;
}

/* ---- matmul.cu ---- */
/* The blocks of the matmul: one per tile, at most MM_MAX_GRID (one synchronization slot
 * each) and at most sm_share (symcoll_gpu_sharing: every block of every PE resident). */
int mm_grid(int n, int sm_share);
/* Enqueues C = A x B on m->stream (a launch of m->grid blocks, all resident); fused: each tile
 * goes through m->staging and leaves as the team's sum, else C holds this PE's product. */
void mm_launch(const mm_t *m, int fused);

/* ---- reference.cu ---- */
/* dst (n x n) = matrix (0: A, 1: B) of PE pe. */
void mm_fill(float *dst, int n, int pe, int matrix, cudaStream_t stream);
/* ref = sum over the PEs of A_p x B_p by a plain one-GPU kernel; m->a and m->b are scratch
 * (call before filling them). */
void mm_reference(const mm_t *m, float *ref);
/* Elements of C that differ from ref; prints the first few, named by variant. */
size_t mm_compare(const mm_t *m, const float *ref, const char *variant);

/* ---- timing.cu ---- */
typedef void (*mm_step_t)(const mm_t *m);
/* The median milliseconds of m->niter steps, each timed by events after a warm-up: launched
 * one by one (*eager_ms) and as the replay of a CUDA graph of one step (*graph_ms). */
void mm_time(const mm_t *m, mm_step_t step, float *eager_ms, float *graph_ms);

#endif
