/* Algorithm selection: pure functions of (collective, bytes, team, topology); no CUDA. */
#ifndef SYMCOLL_TUNING_H
#define SYMCOLL_TUNING_H

#include <stddef.h>
#include "symcoll.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    symcoll_collective_t collective;
    size_t bytes;     /* nccl-tests convention: broadcast/reduce count * size, fcollect and
                         alltoall count_per_pe * size * team_size */
    size_t elem_size; /* bytes of one element */
    int team_size;
    topo_class_t topo;  /* slowest link inside the team */
    int sm_count;       /* multiprocessors of the GPU (0: assume 132) */
    const char *forced; /* SYMCOLL_ALGO_<COLLECTIVE> value, NULL or "" for automatic */
} symcoll_tuning_query_t;

typedef struct {
    int algo;         /* index into symcoll_tuning_algorithms(collective) */
    const char *name; /* that algorithm's name */
    int blocks;       /* grid size (<= SYMCOLL_MAX_BLOCKS; LL: <= SYMCOLL_LL_BLOCKS) */
    int threads;      /* block size */
    char why[192];    /* one line: the table row or model terms that decided */
} symcoll_choice_t;

/* Fills *out. Returns SYMCOLL_SUCCESS, or INVALID_ARGUMENT (with symcoll_last_error set)
 * when q->forced names no algorithm of the collective. */
symcoll_status_t symcoll_tuning_select(const symcoll_tuning_query_t *q, symcoll_choice_t *out);
/* NULL-terminated list of the algorithm names of a collective. */
const char *const *symcoll_tuning_algorithms(symcoll_collective_t collective);
const char *symcoll_collective_name(symcoll_collective_t collective);

#ifdef __cplusplus
}
#endif
#endif
