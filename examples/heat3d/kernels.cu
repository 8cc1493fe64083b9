/* Heat kernels, the same arithmetic on one GPU and on many. */
#include <math.h>
#include <time.h>
#include "heat3d.h"

typedef struct {
    int x, y, z;
} ext3_t;

static ext3_t ext_of(const int ext[3]) {
    ext3_t e = {ext[0], ext[1], ext[2]};
    return e;
}

static __device__ __forceinline__ size_t at(ext3_t e, int x, int y, int z) {
    return ((size_t)z * (e.y + 2) + y) * (e.x + 2) + x;
}

static __global__ void initialize_kernel(float *u, ext3_t e, ext3_t origin, ext3_t total) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= e.x)
        return;
    double gx = origin.x + x, gy = origin.y + y, gz = origin.z + z;
    u[at(e, x + 1, y + 1, z + 1)] =
        (float)(sin(2 * M_PI * gx / total.x) * cos(2 * M_PI * gy / total.y) +
                0.5 * sin(2 * M_PI * gz / total.z));
}

void heat_initialize(float *u, const int ext[3], const int origin[3], const int total[3],
                     cudaStream_t stream) {
    dim3 grid((ext[0] + 127) / 128, ext[1], ext[2]);
    initialize_kernel<<<grid, 128, 0, stream>>>(u, ext_of(ext), ext_of(origin), ext_of(total));
    CHECK_CUDA(cudaGetLastError());
}

/* Sums the 26 neighbours of a cell in a fixed order, weighted by how many coordinates
 * differ: faces 1, edges 1/2, corners 1/4 (27-point); faces only for the 7-point stencil. */
static __global__ void step_kernel(float *v, const float *u, ext3_t e, int corners) {
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1, y = blockIdx.y + 1, z = blockIdx.z + 1;
    if (x > e.x)
        return;
    float c = u[at(e, x, y, z)];
    float faces = u[at(e, x - 1, y, z)] + u[at(e, x + 1, y, z)] + u[at(e, x, y - 1, z)] +
                  u[at(e, x, y + 1, z)] + u[at(e, x, y, z - 1)] + u[at(e, x, y, z + 1)];
    if (!corners) {
        v[at(e, x, y, z)] = c + 0.1f * (faces - 6.0f * c);
        return;
    }
    float edges = 0.0f, vertices = 0.0f;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int moved = (dx != 0) + (dy != 0) + (dz != 0);
                float w = u[at(e, x + dx, y + dy, z + dz)];
                if (moved == 2)
                    edges += w;
                else if (moved == 3)
                    vertices += w;
            }
    v[at(e, x, y, z)] = c + 0.05f * (faces + 0.5f * edges + 0.25f * vertices - 14.0f * c);
}

void heat_step(float *v, const float *u, const int ext[3], int corners, cudaStream_t stream) {
    dim3 grid((ext[0] + 127) / 128, ext[1], ext[2]);
    step_kernel<<<grid, 128, 0, stream>>>(v, u, ext_of(ext), corners);
    CHECK_CUDA(cudaGetLastError());
}

static __device__ __forceinline__ int wrap(int c, int n) {
    return c == 0 ? n : c == n + 1 ? 1 : c;
}

static __global__ void wrap_kernel(float *u, ext3_t e) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x > e.x + 1)
        return;
    int wx = wrap(x, e.x), wy = wrap(y, e.y), wz = wrap(z, e.z);
    if (wx != x || wy != y || wz != z)
        u[at(e, x, y, z)] = u[at(e, wx, wy, wz)];
}

void heat_wrap(float *u, const int ext[3], cudaStream_t stream) {
    dim3 grid((ext[0] + 2 + 127) / 128, ext[1] + 2, ext[2] + 2);
    wrap_kernel<<<grid, 128, 0, stream>>>(u, ext_of(ext));
    CHECK_CUDA(cudaGetLastError());
}

double heat_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
