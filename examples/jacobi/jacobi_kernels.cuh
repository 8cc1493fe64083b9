/* Device pieces of the Jacobi update shared by the plain and the fused kernels. */
#ifndef JACOBI_KERNELS_CUH
#define JACOBI_KERNELS_CUH

/* Updates cell (iy, ix) when it is inside [.., iy_end) x [1, nx - 1) and store is set;
 * returns the change. store is consumed only at the store, so that a flag loaded just before
 * the call costs no latency of its own. */
static __device__ __forceinline__ float jacobi_cell(float *a_new, const float *a, int iy, int ix,
                                                    int iy_end, int nx, bool store) {
    if (iy >= iy_end || ix >= nx - 1)
        return 0.0f;
    size_t at = (size_t)iy * nx + ix;
    float old = a[at], v = 0.25f * (a[at + 1] + a[at - 1] + a[at + nx] + a[at - nx]);
    if (store)
        a_new[at] = v;
    return v - old;
}

/* The warp's sum of v (one value per lane), in lane 0; every lane calls. */
template <typename T> static __device__ __forceinline__ T jacobi_warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* The block's sum of v (one value per thread), in thread 0; every thread calls, once per
 * kernel for each T (the shared array is not guarded against a second call). */
template <typename T> static __device__ __forceinline__ T jacobi_block_sum(T v) {
    __shared__ T warp_sums[32];
    T s = jacobi_warp_sum(v);
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y, warps = blockDim.x * blockDim.y / 32;
    if (t % 32 == 0)
        warp_sums[t / 32] = s;
    __syncthreads();
    if (t < 32)
        s = jacobi_warp_sum(t < warps ? warp_sums[t] : (T)0);
    return s;
}

/* Adds the block's sum of change2 to *norm, one atomic per block; every thread calls. */
static __device__ __forceinline__ void jacobi_block_norm(float change2, float *norm) {
    float s = jacobi_block_sum(change2);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        atomicAdd(norm, s);
}

#endif
