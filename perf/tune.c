#include "tune.h"

#include <stdlib.h>
#include <string.h>

#include "alltoallv_device.h"
#include "call.h"
#include "choice.h"
#include "exchange.h"
#include "fail.h"
#include "gpu_sharing.h"
#include "stats.h"
#include "timing.h"
#include "tune_rows.h"

/* A grid with fewer than 1/8 of the blocks its algorithm can use at a size is not timed
 * there: it only loses, and at large sizes it would take most of the tuning time. */
#define BLOCK_SPAN 8
#define MAX_ALGORITHMS 8

typedef struct {
    const perf_args_t *args;
    symcoll_team_t team;
    int npes, me;                  /* team numbering */
    bool reporter;                 /* world PE 0 prints and writes */
    symcoll_gpu_sharing_t sharing; /* its sm_share, the same on every PE, sizes the grids */
    /* The slowest links of the team and of the job as symcoll_explain names them: the rows'
     * link and the file's signature. */
    char team_link[sizeof(((symcoll_explanation_t *)0)->link)];
    char world_link[sizeof(((symcoll_explanation_t *)0)->link)];
    cudaStream_t stream;
    perf_exchange_t ex;
    perf_bench_t bench;
    void *src, *dst;       /* symmetric */
    perf_counts_t counts;  /* alltoallv's, uniform, where --op has it (matrix NULL else) */
    perf_tune_row_t *rows; /* reporter: every collective's rows so far */
    size_t n_rows;
} tune_t;

/* One collective's times over the sizes, and the library's own choice beside them. */
typedef struct {
    perf_call_t call;
    size_t elem;
    perf_tune_candidate_t *candidates;
    size_t n_candidates;
    size_t *sizes;  /* the distinct sizes that hold an element, ascending, nccl-tests bytes */
    size_t *counts; /* the call's count at each size */
    size_t n_sizes;
    double *times;      /* sizes x candidates, as perf_tune_times_t */
    double *library_us; /* per size */
} collective_times_t;

/* A grid as it runs at one size (what the library makes of a candidate), and its time. */
typedef struct {
    int algo, blocks, threads; /* algo: index into the op's algorithm names */
    double us;
} grid_t;

typedef struct {
    const tune_t *tn;
    perf_call_t call;
} tune_case_t;

static int enqueue(void *ctx, cudaStream_t stream) {
    const tune_case_t *k = ctx;
    symcoll_status_t st = perf_call_enqueue(&k->call, k->tn->team, k->tn->dst, k->tn->src, stream);
    return perf_symcoll_check(st, perf_op_info(k->call.op)->name);
}

/* The index of an algorithm the library named among op's (the registry's names, which the
 * library uses too); -1 if none. */
static int algorithm_index(perf_op_t op, const char *name) {
    const char *const *names = perf_op_info(op)->algorithms;
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* The grid the library launches for the collective at size index s with candidate k forced
 * through symcoll_tuning_override, or, k NULL, by its own choice (the built-in table, or this
 * run's SYMCOLL_TUNING_FILE or SYMCOLL_ALGO_*), as symcoll_explain reports it for the team.
 * 0, or -1 after reporting. */
static int grid_for(const tune_t *tn, const collective_times_t *ct, size_t s,
                    const perf_tune_candidate_t *k, grid_t *out) {
    symcoll_collective_t coll = perf_op_info(ct->call.op)->collective;
    perf_call_t call = ct->call;
    call.count = ct->counts[s];
    call.counts = NULL; /* alltoallv's are uniform here: its capacity follows count */
    if (k != NULL) {
        PERF_SYMCOLL(symcoll_tuning_override(coll, k->algo, k->blocks, k->threads));
    }
    symcoll_explanation_t e;
    symcoll_status_t st = perf_choose(&call, tn->team, NULL, 0, &e);
    if (k != NULL) {
        PERF_SYMCOLL(symcoll_tuning_override(coll, NULL, 0, 0));
    }
    if (perf_symcoll_check(st, "symcoll_explain") != 0) {
        return -1;
    }
    *out = (grid_t){algorithm_index(call.op, e.algorithm), e.blocks, e.threads, -1};
    return out->algo >= 0 ? 0 : perf_fail("symcoll_explain: unknown algorithm %s", e.algorithm);
}

/* The index in grids of g, added when new. */
static size_t grid_index(grid_t *grids, size_t *n, const grid_t *g) {
    for (size_t i = 0; i < *n; i++) {
        if (grids[i].algo == g->algo && grids[i].blocks == g->blocks &&
            grids[i].threads == g->threads) {
            return i;
        }
    }
    grids[*n] = *g;
    return (*n)++;
}

/* Times call with its collective forced to the grid g; *us is the slowest PE's time on team
 * PE 0, this PE's elsewhere. */
static int time_grid(tune_t *tn, const perf_call_t *call, const grid_t *g, double *us) {
    symcoll_collective_t coll = perf_op_info(call->op)->collective;
    const char *name = perf_op_info(call->op)->algorithms[g->algo];
    tune_case_t k = {tn, *call};
    double mine = -1;
    /* A failure here is this PE's alone: it reaches the agreement below, which fails the
     * tuning on every PE, instead of leaving the others in the next exchange. */
    int rc = perf_symcoll_check(symcoll_tuning_override(coll, name, g->blocks, g->threads),
                                "symcoll_tuning_override");
    if (rc == 0) {
        rc = perf_bench_begin(&tn->bench, tn->args->graph_calls, enqueue, &k);
    }
    if (rc == 0) {
        rc = perf_bench_measure(&tn->bench, &mine);
        perf_bench_end(&tn->bench);
    }
    rc |= perf_symcoll_check(symcoll_tuning_override(coll, NULL, 0, 0), "symcoll_tuning_override");
    double all[SYMCOLL_MAX_PES];
    if (perf_exchange_agree(&tn->ex, rc) != 0 ||
        perf_exchange_gather(&tn->ex, &mine, sizeof mine, all) != 0) {
        return -1;
    }
    *us = tn->me == 0 ? perf_combine_times(all, tn->npes, 1, PERF_AVERAGE_MAX) : mine;
    return 0;
}

/* Times every candidate worth timing at size index s (the same grids on every PE) and the
 * library's own choice; fills row s of ct->times and ct->library_us. cand_grids receives each
 * candidate's grid at s. */
static int time_size(tune_t *tn, collective_times_t *ct, size_t s, grid_t *grids,
                     grid_t *cand_grids, size_t *grid_of) {
    size_t n_grids = 0;
    int widest[MAX_ALGORITHMS] = {0};
    for (size_t c = 0; c < ct->n_candidates; c++) {
        grid_t *g = &cand_grids[c];
        if (grid_for(tn, ct, s, &ct->candidates[c], g) != 0) {
            return -1;
        }
        widest[g->algo] = g->blocks > widest[g->algo] ? g->blocks : widest[g->algo];
    }
    for (size_t c = 0; c < ct->n_candidates; c++) {
        const grid_t *g = &cand_grids[c];
        grid_of[c] = ct->candidates[c].blocks * BLOCK_SPAN < widest[g->algo]
                         ? SIZE_MAX
                         : grid_index(grids, &n_grids, g);
    }
    grid_t library;
    if (grid_for(tn, ct, s, NULL, &library) != 0) {
        return -1;
    }
    size_t library_grid = grid_index(grids, &n_grids, &library);
    for (size_t i = 0; i < n_grids; i++) {
        if (time_grid(tn, &ct->call, &grids[i], &grids[i].us) != 0) {
            return -1;
        }
    }
    for (size_t c = 0; c < ct->n_candidates; c++) {
        ct->times[s * ct->n_candidates + c] = grid_of[c] == SIZE_MAX ? -1 : grids[grid_of[c]].us;
    }
    ct->library_us[s] = grids[library_grid].us;
    return 0;
}

static void print_grid(perf_op_t op, const grid_t *g, double us) {
    char grid[48];
    snprintf(grid, sizeof grid, "%s %d x %d", perf_op_info(op)->algorithms[g->algo], g->blocks,
             g->threads);
    printf("  %-22s %9.2f", grid, us);
}

/* The reporter's table: per size the tuned grid beside the library's own (comment lines, so
 * that stdout stays a valid tuning file). 0, or -1 after reporting. */
static int print_choices(const tune_t *tn, const collective_times_t *ct, const size_t *picks) {
    perf_op_t op = ct->call.op;
    printf("# %s, %s: %d PEs over %s, graph mode (%d calls per graph)\n", perf_op_info(op)->name,
           symcoll_datatype_name(ct->call.type), tn->npes, tn->team_link, tn->args->graph_calls);
    printf("# %12s  %-22s %9s  %-22s %9s  %s\n", "bytes", "tuned", "us", "library", "us",
           "library/tuned");
    for (size_t s = 0; s < ct->n_sizes; s++) {
        grid_t tuned, library;
        if (grid_for(tn, ct, s, &ct->candidates[picks[s]], &tuned) != 0 ||
            grid_for(tn, ct, s, NULL, &library) != 0) {
            return -1;
        }
        double us = ct->times[s * ct->n_candidates + picks[s]];
        printf("# %12zu", ct->sizes[s]);
        print_grid(op, &tuned, us);
        print_grid(op, &library, ct->library_us[s]);
        printf("  %.2f\n", ct->library_us[s] / us);
    }
    fflush(stdout);
    return 0;
}

/* The reporter turns the times into rows and keeps them. */
static int add_rows(tune_t *tn, const collective_times_t *ct) {
    perf_tune_times_t t = {
        .collective = perf_op_info(ct->call.op)->collective,
        .link = tn->team_link,
        .team_size = tn->npes,
        .sizes = ct->sizes,
        .n_sizes = ct->n_sizes,
        .candidates = ct->candidates,
        .n_candidates = ct->n_candidates,
        .times = ct->times,
    };
    size_t *picks = malloc(sizeof *picks * (ct->n_sizes + 1));
    perf_tune_row_t *rows = realloc(tn->rows, sizeof *rows * (tn->n_rows + ct->n_sizes + 1));
    if (rows != NULL) {
        tn->rows = rows;
    }
    if (picks == NULL || rows == NULL) {
        free(picks);
        return perf_fail("--tune: out of host memory");
    }
    size_t n = perf_tune_rows(&t, PERF_TUNE_TOLERANCE, picks, rows + tn->n_rows);
    int rc = n > 0 || ct->n_sizes == 0 ? 0 : perf_fail("--tune: a size without a time");
    if (n > 0) {
        rc = print_choices(tn, ct, picks);
        tn->n_rows += n;
    }
    free(picks);
    return rc;
}

static int tune_op(tune_t *tn, perf_op_t op, const size_t *sizes, size_t n_sizes) {
    collective_times_t ct = {0};
    perf_args_first_call(tn->args, op, &ct.call);
    ct.elem = symcoll_datatype_size(ct.call.type);
    ct.n_candidates = perf_tune_candidates(op, tn->sharing.sm_share, NULL, 0);
    ct.candidates = malloc(sizeof *ct.candidates * ct.n_candidates);
    ct.sizes = malloc(sizeof *ct.sizes * n_sizes);
    ct.counts = malloc(sizeof *ct.counts * n_sizes);
    ct.times = malloc(sizeof *ct.times * n_sizes * ct.n_candidates);
    ct.library_us = malloc(sizeof *ct.library_us * n_sizes);
    grid_t *grids = malloc(sizeof *grids * (ct.n_candidates + 1));
    grid_t *cand_grids = malloc(sizeof *cand_grids * ct.n_candidates);
    size_t *grid_of = malloc(sizeof *grid_of * ct.n_candidates);
    int rc = ct.candidates && ct.sizes && ct.counts && ct.times && ct.library_us && grids &&
                     cand_grids && grid_of
                 ? 0
                 : perf_fail("--tune: out of host memory");
    if (rc == 0) {
        perf_tune_candidates(op, tn->sharing.sm_share, ct.candidates, ct.n_candidates);
    }
    /* Every step that one PE can fail alone ends in an agreement, so that all PEs stop
     * together. */
    rc = perf_exchange_agree(&tn->ex, rc);
    for (size_t s = 0; s < n_sizes && rc == 0; s++) {
        ct.call.count = perf_op_count(op, sizes[s], ct.elem, tn->npes);
        size_t bytes = perf_op_bytes(op, ct.call.count, ct.elem, tn->npes);
        /* With a step (-i) neighbouring sizes can round down to one count: time it once, as
         * rows need strictly ascending sizes. */
        if (ct.call.count > 0 && (ct.n_sizes == 0 || bytes > ct.sizes[ct.n_sizes - 1])) {
            ct.sizes[ct.n_sizes] = bytes;
            ct.counts[ct.n_sizes] = ct.call.count;
            /* Uniform counts: alltoallv's capacity is then the size, which tuning rows key on. */
            rc = perf_exchange_agree(&tn->ex,
                                     perf_counts_set(&tn->counts, &ct.call, tn->me, 0, tn->stream));
            if (rc == 0) {
                rc = time_size(tn, &ct, ct.n_sizes++, grids, cand_grids, grid_of);
            }
        }
    }
    if (rc == 0) {
        rc = perf_exchange_agree(&tn->ex, tn->reporter ? add_rows(tn, &ct) : 0);
    }
    free(grid_of);
    free(cand_grids);
    free(grids);
    free(ct.library_us);
    free(ct.times);
    free(ct.counts);
    free(ct.sizes);
    free(ct.candidates);
    return rc;
}

/* The slowest link of team as the library classes it: a barrier's explanation names it. */
static int team_link(symcoll_team_t team, char *link, size_t len) {
    perf_call_t barrier = {.op = PERF_OP_BARRIER};
    symcoll_explanation_t e;
    PERF_SYMCOLL(perf_choose(&barrier, team, NULL, 0, &e));
    snprintf(link, len, "%s", e.link);
    return 0;
}

static int setup(tune_t *tn, size_t buffer_bytes) {
    /* The candidates depend on the SM count: the library's share is what it launches with
     * when PEs share a GPU. */
    PERF_SYMCOLL(symcoll_gpu_sharing(&tn->sharing));
    PERF_CUDA(cudaStreamCreateWithFlags(&tn->stream, cudaStreamNonBlocking));
    if (tn->args->ops[PERF_OP_ALLTOALLV] && perf_counts_init(&tn->counts, tn->npes) != 0) {
        return -1;
    }
    tn->src = symcoll_malloc(buffer_bytes);
    tn->dst = tn->src ? symcoll_malloc(buffer_bytes) : NULL;
    if (tn->dst == NULL) {
        return perf_fail("symcoll_malloc(%zu): %s", buffer_bytes, symcoll_last_error());
    }
    PERF_CUDA(cudaMemsetAsync(tn->src, 0, buffer_bytes, tn->stream));
    if (perf_exchange_init(&tn->ex, tn->team, tn->stream) != 0 ||
        perf_bench_init(&tn->bench, tn->args, tn->team, tn->stream) != 0) {
        return -1;
    }
    if (team_link(tn->team, tn->team_link, sizeof tn->team_link) != 0 ||
        team_link(SYMCOLL_TEAM_WORLD, tn->world_link, sizeof tn->world_link) != 0) {
        return -1;
    }
    return 0;
}

/* 0, or -1 after reporting a failed release. After a failure the symmetric buffers stay for
 * symcoll_finalize, as the sweep's do: freeing them is collective. */
static int teardown(tune_t *tn, bool failed) {
    int rc = perf_bench_fini(&tn->bench);
    rc |= perf_counts_fini(&tn->counts);
    if (!failed) {
        rc |= perf_exchange_fini(&tn->ex);
        symcoll_free(tn->dst);
        symcoll_free(tn->src);
    }
    rc |= perf_cuda_check(cudaStreamDestroy(tn->stream), "cudaStreamDestroy");
    free(tn->rows);
    return rc;
}

/* The reporter's tuning file, to --tune's FILE or stdout. */
static int write_file(const tune_t *tn) {
    const char *path = tn->args->tune_path;
    FILE *out = path != NULL ? fopen(path, "w") : stdout;
    if (out == NULL) {
        return perf_fail("--tune %s: cannot create it", path);
    }
    perf_tune_write(out, symcoll_n_pes(), tn->world_link, tn->rows, tn->n_rows);
    if (path == NULL) {
        return fflush(stdout) == 0 ? 0 : perf_fail("--tune: cannot write to stdout");
    }
    if (fclose(out) != 0) {
        return perf_fail("--tune %s: cannot write it", path);
    }
    printf("# %zu rows written to %s (load them with SYMCOLL_TUNING_FILE=%s)\n", tn->n_rows, path,
           path);
    return 0;
}

int perf_tune(const perf_args_t *a) {
    tune_t tn = {.args = a,
                 .team = a->team,
                 .npes = symcoll_team_n_pes(a->team),
                 .me = symcoll_team_my_pe(a->team),
                 .reporter = symcoll_my_pe() == 0};
    if (!perf_args_root_fits(a, tn.npes, tn.reporter)) {
        return 2;
    }
    size_t sizes[PERF_MAX_SIZES];
    size_t n_sizes = perf_size_list(a, sizes, PERF_MAX_SIZES);
    if (setup(&tn, perf_buffer_bytes(sizes, n_sizes)) != 0) {
        return -1;
    }
    if (tn.reporter) {
        perf_print_gpu_sharing(stdout, &tn.sharing);
    }
    bool failed = false;
    for (int op = 0; op < PERF_NUM_OPS && !failed; op++) {
        failed = a->ops[op] && perf_op_info((perf_op_t)op)->algo_env &&
                 tune_op(&tn, (perf_op_t)op, sizes, n_sizes) != 0;
    }
    int rc = failed ? -1 : tn.reporter ? write_file(&tn) : 0;
    return teardown(&tn, failed) != 0 ? -1 : rc;
}
