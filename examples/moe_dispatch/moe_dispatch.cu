/* A mixture-of-experts layer's communication, all on one stream with no host sync: a router
 * sends each token to its top-2 experts (random, seeded), the tokens are permuted by expert,
 * dispatched to the PEs that hold the experts, scaled by each expert (its "computation"),
 * combined back, and summed by gate weight into each token's output. Every PE checks its
 * output against a one-GPU reference computed on the host.
 *
 *   symcoll-run -n 2 ./moe_dispatch */
#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "symcoll.h"

#define TOKENS 1024    /* per PE */
#define HIDDEN 64      /* floats per token */
#define EXPERTS 8      /* per PE */
#define TOP_K 2        /* experts per token */
#define ALIGN_TOKENS 8 /* each expert's group in dst starts at a multiple of 8 tokens */

static __host__ __device__ uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Copy j of token t of PE pe goes to expert expert_of(...) of the n_experts in the team; the
 * two choices differ. */
static __host__ __device__ int expert_of(int pe, int t, int j, int n_experts) {
    int first = (int)(hash32((uint32_t)(pe * TOKENS + t) * 2654435761u) % (uint32_t)n_experts);
    if (j == 0)
        return first;
    int other =
        (int)(hash32((uint32_t)(pe * TOKENS + t) * 40503u + 7u) % (uint32_t)(n_experts - 1));
    return other >= first ? other + 1 : other;
}
static __host__ __device__ float gate_weight(int j) {
    return j == 0 ? 0.75f : 0.25f;
}
static __host__ __device__ float expert_scale(int g) {
    return (float)(1 + g % 5);
}
static __host__ __device__ float token_value(int pe, int t, int h) {
    return (float)((pe * 7 + t * 3 + h) % 17);
}

/* Each token copy counted for its expert and given its slot in the expert's run of src. */
static __global__ void route(int me, int n_experts, size_t *send_counts, int *slot) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= TOKENS * TOP_K)
        return;
    int g = expert_of(me, c / TOP_K, c % TOP_K, n_experts);
    slot[c] =
        (int)atomicAdd((unsigned long long *)&send_counts[g], (unsigned long long)HIDDEN) / HIDDEN;
}

/* src holds the token copies grouped by expert, in g order, as the dispatch takes them. */
static __global__ void permute(int me, int n_experts, const size_t *send_counts, const int *slot,
                               float *src) {
    int c = blockIdx.x, h = threadIdx.x, t = c / TOP_K;
    int g = expert_of(me, t, c % TOP_K, n_experts);
    size_t start = 0;
    for (int k = 0; k < g; k++)
        start += send_counts[k];
    src[start + (size_t)slot[c] * HIDDEN + h] = token_value(me, t, h);
}

/* Local expert e multiplies every token it received, whichever PE sent it. */
static __global__ void run_experts(int me, int n_pes, const size_t *recv_counts,
                                   const size_t *recv_offsets, float *dst) {
    int e = blockIdx.x;
    for (int i = 0; i < n_pes; i++) {
        size_t count = recv_counts[e * n_pes + i], at = recv_offsets[e * n_pes + i];
        for (size_t k = threadIdx.x; k < count; k += blockDim.x)
            dst[at + k] *= expert_scale(me * EXPERTS + e);
    }
}

/* Each token's output: its copies back from the experts, weighted by gate. */
static __global__ void gather(int me, int n_experts, const size_t *send_counts, const int *slot,
                              const float *back, float *out) {
    int t = blockIdx.x, h = threadIdx.x;
    float sum = 0.0f;
    for (int j = 0; j < TOP_K; j++) {
        int c = t * TOP_K + j, g = expert_of(me, t, j, n_experts);
        size_t start = 0;
        for (int k = 0; k < g; k++)
            start += send_counts[k];
        sum += gate_weight(j) * back[start + (size_t)slot[c] * HIDDEN + h];
    }
    out[(size_t)t * HIDDEN + h] = sum;
}

int main(void) {
    example_init(NULL);
    const int me = symcoll_my_pe(), n = symcoll_n_pes(), n_experts = n * EXPERTS;
    const size_t copies = (size_t)TOKENS * TOP_K * HIDDEN, align = ALIGN_TOKENS * HIDDEN;
    /* The most any PE can receive: every copy of every PE, plus the padding of its groups. */
    const size_t capacity = (size_t)n * copies + EXPERTS * align;
    float *src = (float *)symcoll_malloc(copies * sizeof(float));
    float *dst = (float *)symcoll_malloc(capacity * sizeof(float));
    float *back = (float *)symcoll_malloc(copies * sizeof(float));
    if (!src || !dst || !back) {
        fprintf(stderr, "symcoll_malloc: %s\n", symcoll_last_error());
        return 1;
    }
    size_t *counts;
    int *slot;
    float *out, *host;
    CHECK_CUDA(cudaMalloc((void **)&counts, 3 * (size_t)n_experts * sizeof(size_t)));
    CHECK_CUDA(cudaMalloc((void **)&slot, TOKENS * TOP_K * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void **)&out, (size_t)TOKENS * HIDDEN * sizeof(float)));
    CHECK_CUDA(cudaMallocHost((void **)&host, (size_t)TOKENS * HIDDEN * sizeof(float)));
    size_t *send_counts = counts, *recv_counts = counts + n_experts,
           *recv_offsets = counts + 2 * n_experts;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    CHECK_CUDA(cudaMemsetAsync(send_counts, 0, n_experts * sizeof(size_t), stream));
    route<<<(TOKENS * TOP_K + 255) / 256, 256, 0, stream>>>(me, n_experts, send_counts, slot);
    CHECK_CUDA(cudaGetLastError());
    permute<<<TOKENS * TOP_K, HIDDEN, 0, stream>>>(me, n_experts, send_counts, slot, src);
    CHECK_CUDA(cudaGetLastError());
    CHECK_SYMCOLL(symcoll_moe_dispatch_on_stream(SYMCOLL_TEAM_WORLD, dst, capacity, src,
                                                 send_counts, recv_counts, recv_offsets, EXPERTS,
                                                 align, SYMCOLL_FLOAT32, stream));
    run_experts<<<EXPERTS, 256, 0, stream>>>(me, n, recv_counts, recv_offsets, dst);
    CHECK_CUDA(cudaGetLastError());
    CHECK_SYMCOLL(symcoll_moe_combine_on_stream(SYMCOLL_TEAM_WORLD, back, copies, dst, send_counts,
                                                EXPERTS, align, SYMCOLL_FLOAT32, stream));
    gather<<<TOKENS, HIDDEN, 0, stream>>>(me, n_experts, send_counts, slot, back, out);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(host, out, (size_t)TOKENS * HIDDEN * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    /* The one-GPU reference: the same routing, scales and weights, without the exchange. The
     * values are small integers times 0.25 and 0.75, exact in float32. */
    size_t wrong = 0;
    for (int t = 0; t < TOKENS; t++)
        for (int h = 0; h < HIDDEN; h++) {
            float want = 0.0f;
            for (int j = 0; j < TOP_K; j++)
                want += gate_weight(j) * expert_scale(expert_of(me, t, j, n_experts)) *
                        token_value(me, t, h);
            wrong += host[(size_t)t * HIDDEN + h] != want;
        }
    printf("PE %d of %d: %d tokens x %d floats, top-%d of %d experts: dispatch, experts, combine: "
           "%s (%zu wrong)\n",
           me, n, TOKENS, HIDDEN, TOP_K, n_experts, wrong ? "WRONG" : "correct", wrong);

    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFreeHost(host));
    CHECK_CUDA(cudaFree(out));
    CHECK_CUDA(cudaFree(slot));
    CHECK_CUDA(cudaFree(counts));
    symcoll_free(back);
    symcoll_free(dst);
    symcoll_free(src);
    CHECK_SYMCOLL(symcoll_finalize());
    return wrong ? 1 : 0;
}
