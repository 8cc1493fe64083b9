/* Algorithm selection: a forced name (and grid), else the first fitting row of the tuning file,
 * else of the built-in table, else the cost model; then the grid for the chosen algorithm and
 * message. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "symcoll_sync_layout.h"
#include "tuning.h"
#include "tuning_table.h"

#define DEFAULT_SM_COUNT 132
#define LL_PAYLOAD_BYTES (SYMCOLL_LL_SLOT_BYTES / 2)

void symcoll_tuning_algorithm_list(symcoll_collective_t collective, char *out, size_t len) {
    const char *const *names = symcoll_collective_algorithms(collective);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; names[i] && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

bool symcoll_tuning_has_choice(symcoll_collective_t collective) {
#define TUNED_CASE(id, name, nccl, tuned, flow, algorithms)                                        \
    case SYMCOLL_COLL_##id:                                                                        \
        return SYMCOLL_TUNED_SELECT(tuned, true, false);
    switch ((int)collective) { SYMCOLL_COLLECTIVES(TUNED_CASE) }
#undef TUNED_CASE
    return false;
}

static size_t ceil_div(size_t a, size_t b) {
    return a / b + (a % b != 0);
}

static int clamp_int(size_t value, int lo, int hi) {
    return value < (size_t)lo ? lo : value > (size_t)hi ? hi : (int)value;
}

/* Payload that one PE sends to one peer in the LL algorithms. */
static size_t ll_payload_per_peer(const symcoll_tuning_query_t *q) {
    symcoll_flow_t flow = symcoll_collective_flow(q->collective);
    int exchange = flow == SYMCOLL_FLOW_GATHER || flow == SYMCOLL_FLOW_EXCHANGE ||
                   flow == SYMCOLL_FLOW_REDUCE_SCATTER;
    return exchange && q->team_size > 0 ? q->bytes / (size_t)q->team_size : q->bytes;
}

static void size_grid(const symcoll_tuning_query_t *q, symcoll_grid_kind_t grid, int max_blocks,
                      int threads, symcoll_choice_t *out) {
    int sm_count = q->sm_count > 0 ? q->sm_count : DEFAULT_SM_COUNT;
    threads = clamp_int((size_t)threads / 32 * 32, 32, SYMCOLL_TUNING_MAX_THREADS);
    switch (grid) {
    case SYMCOLL_GRID_SINGLE:
        out->blocks = 1;
        out->threads = 32;
        break;
    case SYMCOLL_GRID_LL: {
        size_t payload = ll_payload_per_peer(q);
        int cap = max_blocks < SYMCOLL_LL_BLOCKS ? max_blocks : SYMCOLL_LL_BLOCKS;
        cap = cap < sm_count ? cap : sm_count;
        out->blocks = clamp_int(ceil_div(payload, LL_PAYLOAD_BYTES), 1, cap);
        size_t per_block = ceil_div(payload, (size_t)out->blocks);
        size_t packets = ceil_div(per_block < LL_PAYLOAD_BYTES ? per_block : LL_PAYLOAD_BYTES, 8);
        out->threads = clamp_int(ceil_div(packets, 32) * 32, 32, threads);
        break;
    }
    case SYMCOLL_GRID_BW: {
        int cap = max_blocks < SYMCOLL_MAX_BLOCKS ? max_blocks : SYMCOLL_MAX_BLOCKS;
        cap = cap < sm_count ? cap : sm_count;
        out->blocks = clamp_int(ceil_div(q->bytes, TUNING_BW_BYTES_PER_BLOCK), 1, cap);
        out->threads = threads;
        break;
    }
    }
}

static void choose(const symcoll_tuning_query_t *q, const tuning_algo_set_t *set, int algo,
                   int max_blocks, int threads, symcoll_choice_t *out) {
    symcoll_grid_kind_t grid = SYMCOLL_GRID_SINGLE;
    symcoll_algorithm_grid(q->collective, algo, &grid);
    out->algo = algo;
    out->name = set->names[algo];
    size_grid(q, grid, max_blocks, threads, out);
}

static int row_fits(const symcoll_tuning_row_t *r, const symcoll_tuning_query_t *q) {
    return r->collective == q->collective && r->topo == q->topo && q->team_size <= r->max_team_size;
}

/* The first of n rows that fits the query and its size; with algo, the first that names algo
 * and fits the size, else the first that names it (its grid serves any size). -1 if none. */
static long find_in(const symcoll_tuning_row_t *rows, size_t n, const symcoll_tuning_query_t *q,
                    const char *algo) {
    long named = -1;
    for (size_t i = 0; i < n; i++) {
        const symcoll_tuning_row_t *r = &rows[i];
        if (!row_fits(r, q) || (algo && strcmp(r->algo, algo)))
            continue;
        if (q->bytes <= r->max_bytes)
            return (long)i;
        if (named < 0 && algo)
            named = (long)i;
    }
    return named;
}

/* Where a row came from: the tuning file's rows first, then the built-in ones. */
typedef struct {
    const symcoll_tuning_file_t *file; /* NULL: the built-in table */
    long index;                        /* -1: no row fits */
} row_ref_t;

static row_ref_t find_row(const symcoll_tuning_query_t *q, const char *algo) {
    row_ref_t ref = {q->file, -1};
    if (q->file)
        ref.index = find_in(q->file->rows, q->file->n_rows, q, algo);
    if (ref.index < 0) {
        ref.file = NULL;
        ref.index = find_in(symcoll_tuning_rows, symcoll_tuning_n_rows, q, algo);
    }
    return ref;
}

static const symcoll_tuning_row_t *row_of(row_ref_t ref) {
    if (ref.index < 0)
        return NULL;
    return ref.file ? &ref.file->rows[ref.index] : &symcoll_tuning_rows[ref.index];
}

static double model_cost_us(const symcoll_tuning_query_t *q, const tuning_algo_model_t *m) {
    const tuning_link_model_t *link = symcoll_tuning_link_model(q->topo);
    double n = q->team_size > 0 ? q->team_size : 1, bytes = (double)q->bytes;
    double link_bytes = 0;
    switch (m->traffic) {
    case TUNING_TRAFFIC_NONE:
        break;
    case TUNING_TRAFFIC_EACH_PEER:
        link_bytes = (n - 1) * bytes;
        break;
    case TUNING_TRAFFIC_SHARE:
        link_bytes = (n - 1) / n * bytes;
        break;
    case TUNING_TRAFFIC_TWO_SHOT:
        link_bytes = 2 * (n - 1) / n * bytes;
        break;
    }
    /* GB/s is bytes per ns: bytes / GBps / 1000 is microseconds. */
    double move_us = link_bytes / link->link_gbps / 1000 + bytes / link->local_gbps / 1000;
    return m->syncs * link->sync_us + move_us / m->efficiency;
}

static int cheapest_by_model(const symcoll_tuning_query_t *q, const tuning_algo_set_t *set) {
    int best = 0;
    double best_cost = 0;
    for (int i = 0; set->names[i]; i++) {
        double cost = model_cost_us(q, &set->models[i]);
        if (i == 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
        }
    }
    return best;
}

/* SYMCOLL_ALGO_<COLLECTIVE> of a collective. */
static void algo_variable(symcoll_collective_t collective, char *out, size_t len) {
    int prefix = snprintf(out, len, "SYMCOLL_ALGO_");
    snprintf(out + prefix, len - (size_t)prefix, "%s", symcoll_collective_name(collective));
    for (char *c = out + prefix; *c; c++)
        *c = (char)toupper((unsigned char)*c);
}

/* Returns status with the reason in out->why. */
static symcoll_status_t fail(symcoll_choice_t *out, symcoll_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static symcoll_status_t fail(symcoll_choice_t *out, symcoll_status_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
    return status;
}

static symcoll_status_t unknown_forced(const symcoll_tuning_query_t *q, symcoll_choice_t *out) {
    char names[128];
    symcoll_tuning_algorithm_list(q->collective, names, sizeof names);
    char variable[32];
    algo_variable(q->collective, variable, sizeof variable);
    return fail(out, SYMCOLL_ERROR_INVALID_ARGUMENT, "%s \"%s\" names no %s algorithm (%s)",
                variable, q->forced, symcoll_collective_name(q->collective), names);
}

/* How a choice was made: forced, by a table row, or (no row) by the model. */
typedef struct {
    bool forced;
    row_ref_t row;
} decision_t;

static symcoll_status_t decide(const symcoll_tuning_query_t *q, symcoll_choice_t *out,
                               decision_t *how) {
    const tuning_algo_set_t set = symcoll_tuning_algo_set(q->collective);
    if (!set.models)
        return fail(out, SYMCOLL_ERROR_INVALID_ARGUMENT, "collective %d (%s) has no algorithms",
                    (int)q->collective, symcoll_collective_name(q->collective));
    out->why[0] = '\0';
    if (!symcoll_tuning_has_choice(q->collective)) {
        how->forced = false;
        choose(q, &set, 0, SYMCOLL_MAX_BLOCKS, SYMCOLL_TUNING_MAX_THREADS, out);
        out->source = SYMCOLL_CHOICE_FIXED;
        return SYMCOLL_SUCCESS;
    }
    how->forced = q->forced && q->forced[0];
    if (how->forced) {
        int algo = symcoll_algorithm_index(q->collective, q->forced);
        if (algo < 0)
            return unknown_forced(q, out);
        how->row = find_row(q, q->forced);
        const symcoll_tuning_row_t *r = row_of(how->row);
        int blocks = q->forced_blocks > 0 ? q->forced_blocks : r ? r->blocks : SYMCOLL_MAX_BLOCKS;
        int threads = q->forced_threads > 0 ? q->forced_threads
                      : r                   ? r->threads
                                            : SYMCOLL_TUNING_MAX_THREADS;
        choose(q, &set, algo, blocks, threads, out);
        out->source = q->forced_by;
        return SYMCOLL_SUCCESS;
    }
    how->row = find_row(q, NULL);
    const symcoll_tuning_row_t *r = row_of(how->row);
    if (!r) {
        choose(q, &set, cheapest_by_model(q, &set), SYMCOLL_MAX_BLOCKS, SYMCOLL_TUNING_MAX_THREADS,
               out);
        out->source = SYMCOLL_CHOICE_MODEL;
        return SYMCOLL_SUCCESS;
    }
    int algo = symcoll_algorithm_index(q->collective, r->algo);
    if (algo < 0)
        return fail(out, SYMCOLL_ERROR_INTERNAL,
                    "table row %ld names unknown algorithm \"%s\" for %s", how->row.index, r->algo,
                    symcoll_collective_name(q->collective));
    choose(q, &set, algo, r->blocks, r->threads, out);
    out->source = how->row.file ? SYMCOLL_CHOICE_TUNING_FILE : SYMCOLL_CHOICE_TABLE;
    return SYMCOLL_SUCCESS;
}

static void explain(const symcoll_tuning_query_t *q, const decision_t *how, symcoll_choice_t *out) {
    char *why = out->why;
    const size_t len = sizeof out->why;
    if (out->source == SYMCOLL_CHOICE_FIXED) {
        snprintf(why, len, "the only algorithm");
    } else if (how->forced) {
        char variable[32] = "symcoll_tuning_override";
        if (q->forced_by == SYMCOLL_CHOICE_ENV)
            algo_variable(q->collective, variable, sizeof variable);
        snprintf(why, len, "forced by %s", variable);
    } else if (row_of(how->row)) {
        const symcoll_tuning_row_t *r = row_of(how->row);
        char bytes[32] = "any size";
        if (r->max_bytes != SIZE_MAX)
            snprintf(bytes, sizeof bytes, "bytes <= %zu", r->max_bytes);
        /* A parsed file's rows go by their line, as the parser's messages name them. */
        const int *lines = how->row.file ? how->row.file->lines : NULL;
        snprintf(why, len, "%s%.96s %s %ld: %s on %s, team <= %d, %s",
                 how->row.file ? "tuning file " : "built-in table",
                 how->row.file ? how->row.file->path : "", lines ? "line" : "row",
                 lines ? (long)lines[how->row.index] : how->row.index,
                 symcoll_collective_name(r->collective), symcoll_topo_class_name(r->topo),
                 r->max_team_size, bytes);
    } else {
        const tuning_algo_set_t set = symcoll_tuning_algo_set(q->collective);
        size_t used = (size_t)snprintf(why, len, "model (%s, %d PEs, no table row):",
                                       symcoll_topo_class_name(q->topo), q->team_size);
        for (int i = 0; set.names[i] && used < len; i++)
            used += (size_t)snprintf(why + used, len - used, " %s %.1f us", set.names[i],
                                     model_cost_us(q, &set.models[i]));
    }
}

symcoll_status_t symcoll_tuning_choose(const symcoll_tuning_query_t *q, symcoll_choice_t *out) {
    decision_t how;
    return decide(q, out, &how);
}

symcoll_status_t symcoll_tuning_select(const symcoll_tuning_query_t *q, symcoll_choice_t *out) {
    decision_t how;
    symcoll_status_t st = decide(q, out, &how);
    if (st == SYMCOLL_SUCCESS)
        explain(q, &how, out);
    return st;
}
