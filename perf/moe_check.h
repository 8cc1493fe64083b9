/* --op moe's check: the CPU reference of the dispatch (the expert-major layout, its counts and
 * offsets, the padding untouched) and of the combine (every token back where it was). Every PE
 * draws every PE's tokens from (seed, pe), so no data is exchanged. Pure. */
#ifndef SYMCOLL_PERF_MOE_CHECK_H
#define SYMCOLL_PERF_MOE_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "moe_routing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One dispatch + combine as every PE runs it: tokens of hidden bytes (uint8 elements), groups
 * aligned to align tokens. */
typedef struct {
    const perf_moe_routing_t *routing;
    size_t hidden, align;
    uint64_t seed; /* check round */
} perf_moe_case_t;

/* Team PE pe's src, perf_moe_src_bytes of it: its tokens in expert order, perf_check_byte's
 * bytes. */
void perf_moe_fill(const perf_moe_case_t *c, int pe, uint8_t *src);
/* Bytes of a PE's src (and of the combine's dst): tokens * topk tokens. */
size_t perf_moe_src_bytes(const perf_moe_case_t *c);

/* Entries of recv_counts and recv_offsets (npes * experts each, [e * npes + i], elements) that
 * PE me's dispatch wrote and that differ from the reference. */
size_t perf_moe_counts_wrong(const perf_moe_case_t *c, int me, const size_t *recv_counts,
                             const size_t *recv_offsets);
/* Bytes of PE me's dispatch dst (bytes of it, poisoned with poison before the calls) that differ
 * from the reference: each source's tokens for each local expert in place, poison elsewhere. */
size_t perf_moe_dispatch_wrong(const perf_moe_case_t *c, int me, const uint8_t *dst, size_t bytes,
                               uint8_t poison);
/* Bytes of PE me's combine dst (perf_moe_src_bytes) that differ from its src. */
size_t perf_moe_combine_wrong(const perf_moe_case_t *c, int me, const uint8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
