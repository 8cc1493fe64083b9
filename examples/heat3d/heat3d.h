/* Heat diffusion on a periodic 3D grid split over a 3D grid of PEs: each PE owns an n^3 cube
 * with one halo cell on every side; a 7-point stencil (faces only) or a 27-point one (faces,
 * edges and corners). The halos are refreshed before every step by symcoll's exchange or by
 * NCCL send/recv of packed boxes, and the result is checked against one GPU. */
#ifndef HEAT3D_H
#define HEAT3D_H

#include "example_nccl.h"

typedef struct {
    int n, niter, corners;
    int grid[3], coords[3]; /* the PE grid and this PE's place in it */
    int me, npes;
    symcoll_halo_t plan;
    float *u, *v; /* symmetric, (n + 2)^3 each */
    cudaStream_t stream;
} heat_t;

/* Cells of one field with its halos. */
static inline size_t heat_cells(int n) {
    return (size_t)(n + 2) * (n + 2) * (n + 2);
}

/* ---- kernels.cu: fields of ext[0] x ext[1] x ext[2] interior cells plus one halo cell ---- */
/* Sets the interior from global coordinates: origin is the global place of the first interior
 * cell, total the global domain. */
void heat_initialize(float *u, const int ext[3], const int origin[3], const int total[3],
                     cudaStream_t stream);
/* One step u -> v over the interior (the halos of u current). */
void heat_step(float *v, const float *u, const int ext[3], int corners, cudaStream_t stream);
/* Fills every halo cell from the interior cell it wraps onto: a periodic field on one GPU. */
void heat_wrap(float *u, const int ext[3], cudaStream_t stream);

/* ---- the halo refresh of a variant, enqueued on h->stream (and captured) ---- */
typedef struct heat_nccl heat_nccl_t;
/* Packs the boxes of every direction, exchanges them with NCCL send/recv, unpacks. */
heat_nccl_t *heat_nccl_create(const heat_t *h);
void heat_nccl_exchange(heat_nccl_t *x, const heat_t *h, float *field);
void heat_nccl_destroy(heat_nccl_t *x);

double heat_now(void);

#endif
