/* The multi-GPU Jacobi benchmark (the problem of NVIDIA's multi-gpu-programming-models): a
 * float grid of ny rows and nx columns whose rows 1 .. ny-2 are split across PEs, rows 0 and
 * ny-1 periodic halos, left and right columns fixed at sin(2 pi iy / (ny - 1)), a 5-point
 * update, and the L2 norm of the change every nccheck iterations summed over the PEs. */
#ifndef JACOBI_H
#define JACOBI_H

#include "example_nccl.h"

#define JACOBI_TOL 1.0e-8f
#define JACOBI_BLOCK 32 /* 32 x 32 threads, one per cell */

/* This PE's slab: rows 1 .. rows of a (rows + 2) x nx grid, global rows first_row .. */
typedef struct {
    int nx, ny, niter, nccheck;
    int rows, first_row; /* interior rows and the global row of row 1 */
    int me, npes;
    float *a, *a_new;           /* symmetric, (max rows + 2) * nx each */
    float *norm;                /* symmetric: this PE's sum of squared changes */
    float *norm_sum;            /* symmetric: the team's sum */
    float *norm_host;           /* pinned: the team's sum for the host */
    cudaStream_t compute, push; /* push: high priority, for the boundary rows */
} jacobi_t;

/* A variant: runs niter iterations (fewer when the norm drops below tol) on a freshly
 * initialized slab, with warm-up before; returns the seconds of the timed loop. */
typedef double (*jacobi_variant_t)(jacobi_t *j);

double jacobi_host(jacobi_t *j);
double jacobi_device(jacobi_t *j);
double jacobi_nccl(jacobi_t *j);
/* The whole grid on this PE's GPU alone; fills ref (ny * nx floats). */
double jacobi_single(const jacobi_t *j, float *ref);

/* The halo plan of a slab: rows split across the PEs, periodic in y, no halo in x. */
symcoll_halo_t jacobi_plan(const jacobi_t *j);

/* ---- kernels.cu ---- */
/* Zeroes both grids and sets the fixed columns (rows + 2 rows from global row first_row - 1). */
void jacobi_initialize(const jacobi_t *j, float *a, float *a_new, int rows, int first_row,
                       cudaStream_t stream);
/* a_new = 5-point update of a for rows [iy_start, iy_end); adds the squared changes to *norm
 * when calc_norm. */
void jacobi_launch(float *a_new, const float *a, float *norm, int iy_start, int iy_end, int nx,
                   int calc_norm, cudaStream_t stream);
/* Seconds since an arbitrary start. */
double jacobi_now(void);
/* One iteration cur -> next of a variant, enqueued on j->compute (and captured); ctx is the
 * variant's own state. */
typedef void (*jacobi_iteration_t)(jacobi_t *j, void *ctx, float *next, const float *cur,
                                   int calc_norm);
/* Captures graphs[norm iteration][parity] of one iteration each (parity 1: a_new -> a). */
void jacobi_capture(jacobi_t *j, jacobi_iteration_t iteration, void *ctx,
                    cudaGraphExec_t graphs[2][2]);
void jacobi_destroy_graphs(cudaGraphExec_t graphs[2][2]);
/* The reference's iteration (split.cu): exchange enqueues the halo rows' exchange of next on
 * j->push, sum_norm the team's sum of j->norm into j->norm_sum on j->compute. */
typedef struct {
    void (*exchange)(jacobi_t *j, void *ctx, float *next);
    void (*sum_norm)(jacobi_t *j, void *ctx);
    void *ctx;
    cudaEvent_t forked, pushed;
} jacobi_split_t;
void jacobi_split_iteration(jacobi_t *j, void *split, float *next, const float *cur, int calc_norm);
/* Captures, warms up and times the split iteration; returns the seconds of the loop. */
double jacobi_split_run(jacobi_t *j, jacobi_split_t *split);

/* The pieces of a timed loop. warm_up: each graph a few times, then every PE idle. start:
 * the slab re-initialized (after whatever the caller enqueued on j->compute), every PE idle,
 * and the clock's start. elapsed: the seconds since start once the device is idle.
 * keep_result: swaps the grids when an odd count of iterations left the result in a_new, so
 * that j->a holds it, and checks the team. */
void jacobi_warm_up(jacobi_t *j, cudaGraphExec_t graphs[2][2]);
double jacobi_start(jacobi_t *j);
double jacobi_elapsed(double start);
void jacobi_keep_result(jacobi_t *j, int iterations);

/* The reference's timed loop, of the host and nccl variants: one graphs[norm iteration]
 * [iteration parity] per iteration, the host waiting for and reading the team's norm after
 * each norm iteration. Returns the seconds of the loop; afterwards j->a holds the result. */
double jacobi_run_graphs(jacobi_t *j, cudaGraphExec_t graphs[2][2]);

#endif
