/* Threshold rows as data, and tuning files: the same rows measured on one machine and read
 * from SYMCOLL_TUNING_FILE, with the topology signature they were measured on. Pure parsing
 * and checks; the runtime keeps the loaded file, tuning/ chooses by it. */
#ifndef SYMCOLL_TUNING_FILE_H
#define SYMCOLL_TUNING_FILE_H

#include <limits.h>
#include <stddef.h>
#include "coll_algorithms.h"
#include "symcoll.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* First row that matches (collective, topo, team_size <= max_team_size, bytes <= max_bytes)
 * decides; blocks is the most the grid may use, threads its block size. */
typedef struct {
    symcoll_collective_t collective;
    topo_class_t topo;
    int max_team_size;
    size_t max_bytes;
    const char *algo;
    int blocks;
    int threads;
} symcoll_tuning_row_t;

typedef struct {
    char path[PATH_MAX]; /* any path that opens: messages and --explain name it whole */
    int n_pes;           /* signature: the PEs of the job it was measured in */
    topo_class_t topo;   /* signature: that job's slowest link */
    symcoll_tuning_row_t *rows;
    int *lines; /* the file's line of each row (NULL: rows made, not read, as --tune's) */
    size_t n_rows;
} symcoll_tuning_file_t;

/* The algorithm names of a collective (NULL-terminated, index order; empty for a collective
 * without algorithms), for the checks of settings and files. */
const char *const *symcoll_collective_algorithms(symcoll_collective_t collective);
/* The index of the algorithm of a collective called name, in any case (as SYMCOLL_ALGO_*,
 * symcoll_tuning_override and tuning files take it); -1 if it has none of that name. */
int symcoll_algorithm_index(symcoll_collective_t collective, const char *name);
/* Parses the text of a tuning file:
 *   symcoll-tuning 1
 *   signature <PEs> <link class>
 *   <collective> <link class> <max team size> <max bytes|any> <algorithm> <blocks> <threads>
 * one row per line, in the built-in table's order of precedence; '#' starts a comment; link
 * classes as symcoll_topo_class_name writes them; collectives, link classes, algorithms and
 * "any" in any case; bytes in decimal; blocks and threads within symcoll_algorithm_grid_limits.
 * Returns 0, or -1 with "path:line: reason" in err. Free with symcoll_tuning_file_free. */
int symcoll_tuning_file_parse(const char *text, const char *path, symcoll_tuning_file_t *out,
                              char *err, size_t err_len);
/* Reads and parses the file at path; 0, or -1 with the reason in err. */
int symcoll_tuning_file_load(const char *path, symcoll_tuning_file_t *out, char *err,
                             size_t err_len);
/* 0 when the file was measured on n_pes PEs whose slowest link is topo; else -1 with both
 * signatures in err. */
int symcoll_tuning_file_check(const symcoll_tuning_file_t *file, int n_pes, topo_class_t topo,
                              char *err, size_t err_len);
void symcoll_tuning_file_free(symcoll_tuning_file_t *file);

#ifdef __cplusplus
}
#endif
#endif
