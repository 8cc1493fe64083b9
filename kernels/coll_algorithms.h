/* The algorithms of each collective's kernel, generated from the registry
 * (kernels/collectives.def): kernels/ implements them, tuning/ chooses. */
#ifndef SYMCOLL_COLL_ALGORITHMS_H
#define SYMCOLL_COLL_ALGORITHMS_H

#include <strings.h>
#include "collectives.def"
#include "symcoll.h"

/* How each algorithm's grid is sized: the one source of the grid limits
 * (symcoll_tuning_grid_limits) that tuning sizes grids within and that tuning files and
 * symcoll_tuning_override are checked against. */
typedef enum {
    SYMCOLL_GRID_SINGLE, /* one block of one warp */
    SYMCOLL_GRID_LL,     /* one LL block per 8 KiB of payload per peer, <= SYMCOLL_LL_BLOCKS */
    SYMCOLL_GRID_BW      /* blocks by message size, <= SYMCOLL_MAX_BLOCKS */
} symcoll_grid_kind_t;

/* What moves between the members of a team in a collective. */
typedef enum {
    SYMCOLL_FLOW_SYNC,            /* nothing: a synchronization */
    SYMCOLL_FLOW_ONE_TO_ALL,      /* the root's src into every member's dst */
    SYMCOLL_FLOW_REDUCE,          /* every member's dst is the reduction of every member's src */
    SYMCOLL_FLOW_GATHER,          /* member m's src into block m of every member's dst */
    SYMCOLL_FLOW_EXCHANGE,        /* block t of member m's src into block m of member t's dst */
    SYMCOLL_FLOW_REDUCE_SCATTER,  /* member m's dst is the reduction of block m of every src */
    SYMCOLL_FLOW_EXCHANGE_COUNTED /* as EXCHANGE, with counts per pair that the kernel learns */
} symcoll_flow_t;

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

#endif
