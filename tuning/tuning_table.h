/* The data behind algorithm selection: each collective's algorithms with their cost-model
 * terms, the threshold table per topology class, and the link model per class. */
#ifndef SYMCOLL_TUNING_TABLE_H
#define SYMCOLL_TUNING_TABLE_H

#include <stddef.h>
#include "symcoll.h"
#include "symcoll_sync_layout.h"
#include "topology.h"
#include "tuning_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes that cross the busiest link direction, as a multiple of the message bytes B. */
typedef enum {
    TUNING_TRAFFIC_NONE,      /* 0 */
    TUNING_TRAFFIC_EACH_PEER, /* (n - 1) B: the whole message to or from every peer */
    TUNING_TRAFFIC_SHARE,     /* (n - 1) / n B: one PE's share to or from every peer */
    TUNING_TRAFFIC_TWO_SHOT   /* 2 (n - 1) / n B: reduce-scatter, then all-gather */
} tuning_traffic_t;

/* Cost-model terms; how an algorithm sizes its grid is in coll_algorithms.h. */
typedef struct {
    double syncs;      /* team synchronizations on the critical path */
    double efficiency; /* fraction of the link bandwidth the algorithm reaches */
    tuning_traffic_t traffic;
} tuning_algo_model_t;

/* The algorithms of a collective: names (NULL-terminated, symcoll_collective_algorithms) and
 * model terms, in index order. */
typedef struct {
    const char *const *names;
    const tuning_algo_model_t *models;
} tuning_algo_set_t;

/* models is NULL for a collective without algorithms. */
tuning_algo_set_t symcoll_tuning_algo_set(symcoll_collective_t collective);

/* The built-in rows (symcoll_tuning_row_t: tuning_file.h), in order of precedence. */
extern const symcoll_tuning_row_t symcoll_tuning_rows[];
extern const size_t symcoll_tuning_n_rows;

/* The link model of a topology class, where no row fits. */
typedef struct {
    double sync_us;    /* one team synchronization */
    double link_gbps;  /* GB/s of one link direction */
    double local_gbps; /* GB/s of a copy inside one GPU */
} tuning_link_model_t;

const tuning_link_model_t *symcoll_tuning_link_model(topo_class_t topo);

/* Work per block the bandwidth grids (SYMCOLL_GRID_BW) aim at. */
#define TUNING_BW_BYTES_PER_BLOCK ((size_t)32 * 1024)

#ifdef __cplusplus
}
#endif
#endif
