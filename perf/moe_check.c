#include "moe_check.h"

#include "check.h"

size_t perf_moe_src_bytes(const perf_moe_case_t *c) {
    return c->routing->tokens * (size_t)c->routing->topk * c->hidden;
}

void perf_moe_fill(const perf_moe_case_t *c, int pe, uint8_t *src) {
    size_t bytes = perf_moe_src_bytes(c);
    for (size_t b = 0; b < bytes; b++) {
        src[b] = perf_check_byte(c->seed, pe, b);
    }
}

/* PE me's layout in tokens: received[i * experts + e] and offsets alike. */
static void layout_in_tokens(const perf_moe_case_t *c, int me, size_t *received, size_t *offsets) {
    const perf_moe_routing_t *r = c->routing;
    perf_moe_received(r, me, received);
    perf_moe_layout(received, r->npes, r->experts, c->align, offsets);
}

size_t perf_moe_counts_wrong(const perf_moe_case_t *c, int me, const size_t *recv_counts,
                             const size_t *recv_offsets) {
    const perf_moe_routing_t *r = c->routing;
    size_t received[PERF_MOE_MAX_EXPERTS], offsets[PERF_MOE_MAX_EXPERTS], wrong = 0;
    layout_in_tokens(c, me, received, offsets);
    for (int e = 0; e < r->experts; e++) {
        for (int i = 0; i < r->npes; i++) {
            size_t mine = (size_t)i * (size_t)r->experts + (size_t)e;
            size_t theirs = (size_t)e * (size_t)r->npes + (size_t)i;
            wrong += recv_counts[theirs] != received[mine] * c->hidden;
            wrong += recv_offsets[theirs] != offsets[mine] * c->hidden;
        }
    }
    return wrong;
}

size_t perf_moe_dispatch_wrong(const perf_moe_case_t *c, int me, const uint8_t *dst, size_t bytes,
                               uint8_t poison) {
    const perf_moe_routing_t *r = c->routing;
    size_t received[PERF_MOE_MAX_EXPERTS], offsets[PERF_MOE_MAX_EXPERTS], wrong = 0;
    layout_in_tokens(c, me, received, offsets);
    /* Segments in dst order (groups by expert, sources by PE), poison in the gaps. */
    size_t at = 0;
    for (int e = 0; e < r->experts; e++) {
        for (int i = 0; i < r->npes; i++) {
            size_t k = (size_t)i * (size_t)r->experts + (size_t)e;
            size_t start = offsets[k] * c->hidden, length = received[k] * c->hidden;
            size_t from = perf_moe_src_offset(r, i, me * r->experts + e) * c->hidden;
            for (; at < start && at < bytes; at++) {
                wrong += dst[at] != poison;
            }
            for (size_t b = 0; b < length; b++, at++) {
                wrong += at >= bytes || dst[at] != perf_check_byte(c->seed, i, from + b);
            }
        }
    }
    for (; at < bytes; at++) {
        wrong += dst[at] != poison;
    }
    return wrong;
}

size_t perf_moe_combine_wrong(const perf_moe_case_t *c, int me, const uint8_t *dst) {
    size_t bytes = perf_moe_src_bytes(c), wrong = 0;
    for (size_t b = 0; b < bytes; b++) {
        wrong += dst[b] != perf_check_byte(c->seed, me, b);
    }
    return wrong;
}
