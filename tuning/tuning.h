/* Algorithm selection: pure functions of (collective, bytes, team, topology); no CUDA. */
#ifndef SYMCOLL_TUNING_H
#define SYMCOLL_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include "symcoll.h"
#include "coll_algorithms.h"
#include "topology.h"
#include "tuning_file.h"

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
    int sm_count;       /* the fewest multiprocessors of the job's GPUs (0: assume 132) */
    const char *forced; /* symcoll_tuning_override's or SYMCOLL_ALGO_<COLLECTIVE>'s algorithm,
                           NULL or "" for automatic */
    const symcoll_tuning_file_t *file; /* SYMCOLL_TUNING_FILE's rows, ahead of the built-in
                                          ones; NULL for none */
    int forced_blocks;  /* with forced: the most blocks, as a row gives it; 0: the row's */
    int forced_threads; /* with forced: the block size, as a row gives it; 0: the row's */
    symcoll_choice_source_t forced_by; /* with forced: SYMCOLL_CHOICE_OVERRIDE or _ENV */
} symcoll_tuning_query_t;

typedef struct {
    int algo;         /* index into symcoll_collective_algorithms(collective) (coll_algorithms.h) */
    const char *name; /* that algorithm's name */
    int blocks;       /* grid size (<= SYMCOLL_MAX_BLOCKS; LL: <= SYMCOLL_LL_BLOCKS) */
    int threads;      /* block size: a multiple of 32 from 32 to SYMCOLL_TUNING_MAX_THREADS */
    symcoll_choice_source_t source; /* q->forced_by, or the file, table or model that decided */
    char why[192];                  /* one line: the table row or model terms that decided */
} symcoll_choice_t;

/* Fills *out. Returns SYMCOLL_SUCCESS, or INVALID_ARGUMENT when q->forced names no algorithm
 * of the collective (or the collective has none); out->why then holds the reason. */
symcoll_status_t symcoll_tuning_select(const symcoll_tuning_query_t *q, symcoll_choice_t *out);
/* The same choice as symcoll_tuning_select with why left empty: the enqueue path's version
 * (formatting why costs about as much as the rest of a call's host work). */
symcoll_status_t symcoll_tuning_choose(const symcoll_tuning_query_t *q, symcoll_choice_t *out);
/* Whether tuning chooses among a collective's algorithms (the registry's tuned column); one
 * that does not always takes its only one. */
bool symcoll_tuning_has_choice(symcoll_collective_t collective);
/* Those names as "ll, one_shot, two_shot" in out (len bytes), for messages. */
void symcoll_tuning_algorithm_list(symcoll_collective_t collective, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
