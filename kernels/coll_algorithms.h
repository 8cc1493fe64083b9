/* The algorithms of each collective's kernel: kernels/ implements them, tuning/ chooses. */
#ifndef SYMCOLL_COLL_ALGORITHMS_H
#define SYMCOLL_COLL_ALGORITHMS_H

/* The algorithms the kernels implement, as indices (symcoll_coll_args_t.algo, tuning's
 * symcoll_choice_t.algo), in symcoll_collective_algorithms order. "ll": LL
 * packets through the team's scratch, no entry synchronization; the others use many blocks,
 * 16-byte accesses straight to and from peer memory, between an entry and an exit sync. */
enum { SYMCOLL_BARRIER_FLAGS = 0 };
enum {
    SYMCOLL_BROADCAST_LL = 0,
    SYMCOLL_BROADCAST_PULL = 1,
    SYMCOLL_BROADCAST_PUSH = 2,
    SYMCOLL_BROADCAST_CE = 3 /* copy engines between two barrier kernels */
};
enum { SYMCOLL_REDUCE_LL = 0, SYMCOLL_REDUCE_ONE_SHOT = 1, SYMCOLL_REDUCE_TWO_SHOT = 2 };
enum { SYMCOLL_FCOLLECT_LL = 0, SYMCOLL_FCOLLECT_PUSH = 1, SYMCOLL_FCOLLECT_PULL = 2 };
enum { SYMCOLL_ALLTOALL_LL = 0, SYMCOLL_ALLTOALL_PUSH = 1, SYMCOLL_ALLTOALL_PULL = 2 };

/* Their names, in the same order: what SYMCOLL_ALGO_<COLLECTIVE> and symcoll_tuning_override
 * accept (tuning/ chooses by them, src/env.c checks the variables against them). */
#define SYMCOLL_BARRIER_ALGORITHM_NAMES                                                            \
    { "flags", NULL }
#define SYMCOLL_BROADCAST_ALGORITHM_NAMES                                                          \
    { "ll", "pull", "push", "ce", NULL }
#define SYMCOLL_REDUCE_ALGORITHM_NAMES                                                             \
    { "ll", "one_shot", "two_shot", NULL }
#define SYMCOLL_EXCHANGE_ALGORITHM_NAMES                                                           \
    { "ll", "push", "pull", NULL } /* fcollect, alltoall */

/* How each algorithm's grid is sized, in the same order: the one source of the grid limits
 * (symcoll_tuning_grid_limits) that tuning sizes grids within and that tuning files and
 * symcoll_tuning_override are checked against. */
typedef enum {
    SYMCOLL_GRID_SINGLE, /* one block of one warp */
    SYMCOLL_GRID_LL,     /* one LL block per 8 KiB of payload per peer, <= SYMCOLL_LL_BLOCKS */
    SYMCOLL_GRID_BW      /* blocks by message size, <= SYMCOLL_MAX_BLOCKS */
} symcoll_grid_kind_t;
#define SYMCOLL_BARRIER_ALGORITHM_GRIDS                                                            \
    { SYMCOLL_GRID_SINGLE }
#define SYMCOLL_BROADCAST_ALGORITHM_GRIDS                                                          \
    { SYMCOLL_GRID_LL, SYMCOLL_GRID_BW, SYMCOLL_GRID_BW, SYMCOLL_GRID_SINGLE }
#define SYMCOLL_REDUCE_ALGORITHM_GRIDS                                                             \
    { SYMCOLL_GRID_LL, SYMCOLL_GRID_BW, SYMCOLL_GRID_BW }
#define SYMCOLL_EXCHANGE_ALGORITHM_GRIDS                                                           \
    { SYMCOLL_GRID_LL, SYMCOLL_GRID_BW, SYMCOLL_GRID_BW }

/* The largest block of every collective kernel (their launch bounds); no grid asks for more. */
#define SYMCOLL_TUNING_MAX_THREADS 512

#endif
