/* --op moe's routing: which expert each token of each PE goes to, drawn the same on every PE
 * (each PE needs every row to know what it receives and the capacity every PE passes), and the
 * expert-major layout of symcoll_moe_dispatch_on_stream that the check compares against. Pure,
 * so that the CPU tests reach it. Counts here are tokens unless a name says elements. */
#ifndef SYMCOLL_PERF_MOE_ROUTING_H
#define SYMCOLL_PERF_MOE_ROUTING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seed of every run's routing: runs compare (--baseline) and a result can be reproduced. */
#define PERF_MOE_SEED 0x30e0d15eull

/* The most experts a team may hold (npes * experts), as symcoll_moe_dispatch_on_stream takes. */
#define PERF_MOE_MAX_EXPERTS 512

typedef struct {
    int npes, experts; /* experts per PE: npes * experts experts in all, PE j holding experts
                          j * experts .. (j + 1) * experts - 1 */
    int topk;          /* distinct experts per token, at most npes * experts */
    size_t tokens;     /* per PE */
    double skew;       /* 0: uniform; else the Zipf exponent over the experts */
    size_t *sent;      /* npes x (npes * experts): sent[i * npes * experts + g] tokens PE i
                          routes to expert g (the caller's) */
} perf_moe_routing_t;

/* Fills r->sent from r's other fields and seed: every PE's every token picks topk distinct
 * experts, one after the other, each with a probability proportional to its weight among the
 * experts not yet picked: weight 1 (skew 0), or 1 / (rank + 1)^skew with the ranks a
 * permutation of the experts drawn from seed alone, so that the same experts are popular on
 * every PE, as a router's load imbalance makes them. PE i's tokens draw from (seed, i). */
void perf_moe_route(perf_moe_routing_t *r, uint64_t seed);

/* Tokens PE i routes to expert g. */
size_t perf_moe_sent(const perf_moe_routing_t *r, int i, int g);
/* Where PE i's tokens for expert g start in its src: those for lower experts (the permuted
 * layout, expert order). */
size_t perf_moe_src_offset(const perf_moe_routing_t *r, int i, int g);

/* The dispatch's layout on one PE from what it receives, in any unit: received[i * experts + e]
 * is what PE i sends to its local expert e; group e (the sources in PE order) starts where
 * group e - 1 ends, rounded up to a multiple of align, and an empty group is align long when
 * align > 1. Writes offsets[i * experts + e], where PE i's segment for expert e starts, and
 * returns the length of every group together, the last one's padding included. */
size_t perf_moe_layout(const size_t *received, int npes, int experts, size_t align,
                       size_t *offsets);

/* PE j's column of the routing in perf_moe_layout's form: received[i * experts + e] =
 * perf_moe_sent(r, i, j * experts + e). */
void perf_moe_received(const perf_moe_routing_t *r, int j, size_t *received);

/* The dispatch's dst_capacity in tokens, the same on every PE: the longest layout over the PEs
 * (align in tokens). */
size_t perf_moe_dispatch_capacity(const perf_moe_routing_t *r, size_t align);

#ifdef __cplusplus
}
#endif
#endif
