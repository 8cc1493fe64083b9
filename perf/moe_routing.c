#include "moe_routing.h"

#include <math.h>
#include <stdbool.h>

#include "random.h"

/* A uniform double in [0, 1) from the next state. */
static double uniform(uint64_t *state) {
    *state = perf_mix64(*state);
    return (double)(*state >> 11) * 0x1.0p-53;
}

/* The experts' weights: 1, or Zipf by a rank that one permutation (from seed) gives them. */
static void weights_of(const perf_moe_routing_t *r, uint64_t seed, double *weight) {
    int n = r->npes * r->experts;
    int rank_of[PERF_MOE_MAX_EXPERTS];
    uint64_t state = perf_mix64(seed);
    perf_permutation(rank_of, n, &state);
    for (int g = 0; g < n; g++) {
        weight[g] = r->skew > 0 ? pow(rank_of[g] + 1, -r->skew) : 1.0;
    }
}

/* One token's topk distinct experts, added to row: each pick walks the weights of the experts
 * not picked yet (at most 512), which stays exact and bounded however skewed they are. */
static void route_token(const perf_moe_routing_t *r, const double *weight, uint64_t *state,
                        size_t *row) {
    int n = r->npes * r->experts;
    bool picked[PERF_MOE_MAX_EXPERTS] = {false};
    for (int k = 0; k < r->topk; k++) {
        double left = 0;
        for (int g = 0; g < n; g++) {
            left += picked[g] ? 0 : weight[g];
        }
        double u = uniform(state) * left;
        int last = -1; /* rounding can leave u past the sum: the last free expert takes it */
        int g = 0;
        for (; g < n; g++) {
            if (picked[g]) {
                continue;
            }
            last = g;
            if (u < weight[g]) {
                break;
            }
            u -= weight[g];
        }
        g = g < n ? g : last;
        picked[g] = true;
        row[g]++;
    }
}

void perf_moe_route(perf_moe_routing_t *r, uint64_t seed) {
    int n = r->npes * r->experts;
    double weight[PERF_MOE_MAX_EXPERTS];
    weights_of(r, seed, weight);
    for (int i = 0; i < r->npes; i++) {
        size_t *row = r->sent + (size_t)i * (size_t)n;
        for (int g = 0; g < n; g++) {
            row[g] = 0;
        }
        uint64_t state = perf_mix64(seed ^ perf_mix64((uint64_t)i + 1));
        for (size_t t = 0; t < r->tokens; t++) {
            route_token(r, weight, &state, row);
        }
    }
}

size_t perf_moe_sent(const perf_moe_routing_t *r, int i, int g) {
    return r->sent[(size_t)i * (size_t)r->npes * (size_t)r->experts + (size_t)g];
}

size_t perf_moe_src_offset(const perf_moe_routing_t *r, int i, int g) {
    size_t offset = 0;
    for (int k = 0; k < g; k++) {
        offset += perf_moe_sent(r, i, k);
    }
    return offset;
}

size_t perf_moe_layout(const size_t *received, int npes, int experts, size_t align,
                       size_t *offsets) {
    size_t start = 0;
    for (int e = 0; e < experts; e++) {
        size_t length = 0;
        for (int i = 0; i < npes; i++) {
            offsets[i * experts + e] = start + length;
            length += received[i * experts + e];
        }
        if (align > 1) {
            length = length == 0 ? align : (length + align - 1) / align * align;
        }
        start += length;
    }
    return start;
}

void perf_moe_received(const perf_moe_routing_t *r, int j, size_t *received) {
    for (int i = 0; i < r->npes; i++) {
        for (int e = 0; e < r->experts; e++) {
            received[i * r->experts + e] = perf_moe_sent(r, i, j * r->experts + e);
        }
    }
}

size_t perf_moe_dispatch_capacity(const perf_moe_routing_t *r, size_t align) {
    size_t received[PERF_MOE_MAX_EXPERTS], offsets[PERF_MOE_MAX_EXPERTS], capacity = 0;
    for (int j = 0; j < r->npes; j++) {
        perf_moe_received(r, j, received);
        size_t length = perf_moe_layout(received, r->npes, r->experts, align, offsets);
        capacity = length > capacity ? length : capacity;
    }
    return capacity;
}
