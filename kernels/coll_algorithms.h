/* The algorithms of each collective's kernel, generated from the registry
 * (kernels/collectives.def): kernels/ implements them, tuning/ chooses. */
#ifndef SYMCOLL_COLL_ALGORITHMS_H
#define SYMCOLL_COLL_ALGORITHMS_H

#include <strings.h>
#include "collectives.def"
#include "symcoll.h"
#include "symcoll_sync_layout.h"
#include "symcoll/detail/coll_args.h"

/* How each algorithm's grid is sized: the one source of the grid limits
 * (symcoll_algorithm_grid_limits) that tuning sizes grids within, that tuning files and
 * symcoll_tuning_override are checked against and that symcoll-perf --tune times grids under. */
typedef enum {
    SYMCOLL_GRID_SINGLE, /* one block of one warp */
    SYMCOLL_GRID_LL,     /* one LL block per 8 KiB of payload per peer, <= SYMCOLL_LL_BLOCKS */
    SYMCOLL_GRID_BW      /* blocks by message size, <= SYMCOLL_MAX_BLOCKS */
} symcoll_grid_kind_t;

/* The algorithms as indices (symcoll_coll_args_t.algo, tuning's symcoll_choice_t.algo), in
 * symcoll_collective_algorithms order: SYMCOLL_<COLLECTIVE>_<ALGORITHM>, and
 * SYMCOLL_<COLLECTIVE>_ALGORITHM_COUNT. "ll": LL packets through the team's scratch, no
 * entry synchronization; the bandwidth ones use many blocks, 16-byte accesses straight to and
 * from peer memory, between an entry and an exit sync. */
#define SYMCOLL_ALGORITHM_INDEX(coll, id, name, grid, syncs, efficiency, traffic)                  \
    SYMCOLL_##coll##_##id,
#define SYMCOLL_ALGORITHM_ENUM(id, name, nccl, tuned, flow, algorithms)                            \
    enum { algorithms(SYMCOLL_ALGORITHM_INDEX) SYMCOLL_##id##_ALGORITHM_COUNT };
SYMCOLL_COLLECTIVES(SYMCOLL_ALGORITHM_ENUM)
#undef SYMCOLL_ALGORITHM_ENUM
#undef SYMCOLL_ALGORITHM_INDEX

/* The flow of a collective of the registry; SYMCOLL_FLOW_SYNC for any other value. (The
 * kernels switch on the collective itself: coll_flow in coll_move.cuh.) */
static inline symcoll_flow_t symcoll_collective_flow(int collective) {
#define SYMCOLL_FLOW_CASE(id, name, nccl, tuned, flow, algorithms)                                 \
    case SYMCOLL_COLL_##id:                                                                        \
        return SYMCOLL_FLOW_##flow;
    switch (collective) { SYMCOLL_COLLECTIVES(SYMCOLL_FLOW_CASE) }
#undef SYMCOLL_FLOW_CASE
    return SYMCOLL_FLOW_SYNC;
}

/* The collective of the registry called name, in any case; SYMCOLL_COLL_NONE if none is. */
static inline symcoll_collective_t symcoll_collective_by_name(const char *name) {
#define SYMCOLL_BY_NAME(id, text, nccl, tuned, flow, algorithms)                                   \
    if (!strcasecmp(name, #text))                                                                  \
        return SYMCOLL_COLL_##id;
    SYMCOLL_COLLECTIVES(SYMCOLL_BY_NAME)
#undef SYMCOLL_BY_NAME
    return SYMCOLL_COLL_NONE;
}

/* The registry's collectives as text, for messages: " barrier broadcast ...". */
#define SYMCOLL_NAME_TEXT(id, name, nccl, tuned, flow, algorithms) " " #name
#define SYMCOLL_COLLECTIVE_NAME_LIST SYMCOLL_COLLECTIVES(SYMCOLL_NAME_TEXT)

/* Expands to its arguments when a registry row's tuned column is 1 (an X-macro's filter). */
#define SYMCOLL_IF_TUNED_1(...) __VA_ARGS__
#define SYMCOLL_IF_TUNED_0(...)
#define SYMCOLL_IF_TUNED(tuned, ...) SYMCOLL_IF_TUNED_##tuned(__VA_ARGS__)
/* yes when a registry row's tuned column is 1, else no. */
#define SYMCOLL_TUNED_SELECT_1(yes, no) yes
#define SYMCOLL_TUNED_SELECT_0(yes, no) no
#define SYMCOLL_TUNED_SELECT(tuned, yes, no) SYMCOLL_TUNED_SELECT_##tuned(yes, no)

/* The largest block of every collective kernel (their launch bounds); no grid asks for more. */
#define SYMCOLL_TUNING_MAX_THREADS 512

/* How algorithm algo (SYMCOLL_<COLLECTIVE>_<ALGORITHM>) of a collective of the registry sizes
 * its grid; -1 for an algorithm the collective does not have. */
static inline int symcoll_algorithm_grid(int collective, int algo, symcoll_grid_kind_t *out) {
#define SYMCOLL_GRID_OF(coll, id, name, grid, syncs, efficiency, traffic)                          \
    if (collective == SYMCOLL_COLL_##coll && algo == SYMCOLL_##coll##_##id) {                      \
        *out = SYMCOLL_GRID_##grid;                                                                \
        return 0;                                                                                  \
    }
#define SYMCOLL_GRIDS_OF(id, name, nccl, tuned, flow, algorithms) algorithms(SYMCOLL_GRID_OF)
    SYMCOLL_COLLECTIVES(SYMCOLL_GRIDS_OF)
#undef SYMCOLL_GRIDS_OF
#undef SYMCOLL_GRID_OF
    return -1;
}

/* The grid algorithm algo of a collective can take: at most *max_blocks blocks of at most
 * *max_threads threads (a single-warp algorithm: 1 x 32). -1 for an algorithm the collective
 * does not have. Header-only, so that symcoll-perf --tune, which links only the public
 * library, picks its grids under the limits that tuning files are checked against. */
static inline int symcoll_algorithm_grid_limits(int collective, int algo, int *max_blocks,
                                                int *max_threads) {
    symcoll_grid_kind_t grid;
    if (symcoll_algorithm_grid(collective, algo, &grid) != 0)
        return -1;
    *max_blocks = grid == SYMCOLL_GRID_SINGLE ? 1
                  : grid == SYMCOLL_GRID_LL   ? SYMCOLL_LL_BLOCKS
                                              : SYMCOLL_MAX_BLOCKS;
    *max_threads = grid == SYMCOLL_GRID_SINGLE ? 32 : SYMCOLL_TUNING_MAX_THREADS;
    return 0;
}

#endif
