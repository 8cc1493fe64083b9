/* symcoll-perf --op moe: a mixture-of-experts layer's token exchange, dispatch then combine,
 * timed as one operation beside what a NCCL user runs for it. */
#ifndef SYMCOLL_PERF_MOE_H
#define SYMCOLL_PERF_MOE_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For each hidden size H of the size list (bytes per token, uint8 elements): every PE routes
 * its --tokens tokens to --topk of the team's experts (--experts per PE; uniform or --skew,
 * from PERF_MOE_SEED), and symcoll_moe_dispatch_on_stream then symcoll_moe_combine_on_stream
 * move them out to the experts (groups aligned to --align tokens) and back; stream and graph
 * mode as the flags ask; the dispatch's layout and the combined tokens checked. 0, 1 on wrong
 * results, 2 when the team cannot hold the experts, or -1 after reporting a failure. */
int perf_moe(const perf_args_t *args);

/* Symmetric heap bytes per PE for args' run: src and the combine's dst of tokens * topk tokens
 * of the largest size, and a dispatch dst twice that plus the alignment's padding (the fullest
 * PE's share; a routing skewed past it asks for SYMCOLL_SYMMETRIC_SIZE), and room for the
 * library's own state. */
size_t perf_moe_heap_bytes(const perf_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
