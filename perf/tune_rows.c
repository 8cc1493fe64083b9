#include "tune_rows.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define N_THREAD_CHOICES 3
#define MAX_BLOCK_CHOICES 32

static const int thread_choices[N_THREAD_CHOICES] = {512, 256, 128};

/* The block counts to try under widest: widest, then the powers of two below it. */
static int block_choices(int widest, int *out) {
    int n = 0;
    out[n++] = widest;
    int power = 1;
    while (power * 2 < widest) {
        power *= 2;
    }
    for (; widest > 1 && power >= 1; power /= 2) {
        out[n++] = power;
    }
    return n;
}

size_t perf_tune_candidates(perf_op_t op, int sm_count, perf_tune_candidate_t *out, size_t max) {
    const perf_op_info_t *info = perf_op_info(op);
    const char *const *names = info->algorithms;
    size_t n = 0;
    for (int algo = 0; names[algo] != NULL; algo++) {
        int max_blocks = 0, max_threads = 0;
        symcoll_algorithm_grid_limits(info->collective, algo, &max_blocks, &max_threads);
        int blocks[MAX_BLOCK_CHOICES];
        int n_blocks =
            block_choices(sm_count > 0 && sm_count < max_blocks ? sm_count : max_blocks, blocks);
        int threads[N_THREAD_CHOICES], n_threads = 0;
        for (int i = 0; i < N_THREAD_CHOICES; i++) {
            if (thread_choices[i] <= max_threads) {
                threads[n_threads++] = thread_choices[i];
            }
        }
        if (n_threads == 0) {
            threads[n_threads++] = max_threads; /* one warp */
        }
        for (int b = 0; b < n_blocks; b++) {
            for (int i = 0; i < n_threads; i++, n++) {
                if (n < max) {
                    out[n] = (perf_tune_candidate_t){names[algo], blocks[b], threads[i]};
                }
            }
        }
    }
    return n;
}

static bool within(const perf_tune_times_t *t, size_t s, size_t c, double limit) {
    double us = t->times[s * t->n_candidates + c];
    return us >= 0 && us <= limit;
}

/* The time within tolerance of the fastest at size s; negative when nothing was timed. */
static double acceptable_limit(const perf_tune_times_t *t, size_t s, double tolerance) {
    double best = -1;
    for (size_t c = 0; c < t->n_candidates; c++) {
        double us = t->times[s * t->n_candidates + c];
        if (us >= 0 && (best < 0 || us < best)) {
            best = us;
        }
    }
    return best < 0 ? best : best * (1 + tolerance);
}

/* Of the candidates marked in ok, the one with the least total time over sizes [first, last]. */
static size_t cheapest(const perf_tune_times_t *t, const bool *ok, size_t first, size_t last) {
    size_t best = SIZE_MAX;
    double best_total = 0;
    for (size_t c = 0; c < t->n_candidates; c++) {
        if (!ok[c]) {
            continue;
        }
        double total = 0;
        for (size_t s = first; s <= last; s++) {
            total += t->times[s * t->n_candidates + c];
        }
        if (best == SIZE_MAX || total < best_total) {
            best = c;
            best_total = total;
        }
    }
    return best;
}

/* Whether some candidate in ok is also acceptable at size s; if so, ok keeps only those. */
static bool narrow(const perf_tune_times_t *t, size_t s, double tolerance, bool *ok,
                   bool *scratch) {
    double limit = acceptable_limit(t, s, tolerance);
    bool any = false;
    for (size_t c = 0; c < t->n_candidates; c++) {
        scratch[c] = ok[c] && limit >= 0 && within(t, s, c, limit);
        any = any || scratch[c];
    }
    for (size_t c = 0; any && c < t->n_candidates; c++) {
        ok[c] = scratch[c];
    }
    return any;
}

/* Rows end at a size and the next starts above it, which needs sizes that only grow. */
static bool strictly_ascending(const size_t *sizes, size_t n) {
    for (size_t s = 1; s < n; s++) {
        if (sizes[s] <= sizes[s - 1]) {
            return false;
        }
    }
    return true;
}

size_t perf_tune_rows(const perf_tune_times_t *t, double tolerance, size_t *picks,
                      perf_tune_row_t *rows) {
    if (!strictly_ascending(t->sizes, t->n_sizes)) {
        return 0;
    }
    bool *ok = calloc(2 * t->n_candidates + 1, sizeof *ok);
    if (ok == NULL) {
        return 0;
    }
    bool *scratch = ok + t->n_candidates;
    size_t n_rows = 0;
    for (size_t first = 0; first < t->n_sizes;) {
        /* Greedy from the smallest size: a row grows while one candidate stays acceptable at
         * every size, which gives the fewest rows. */
        for (size_t c = 0; c < t->n_candidates; c++) {
            ok[c] = true;
        }
        if (!narrow(t, first, tolerance, ok, scratch)) {
            n_rows = 0;
            break;
        }
        size_t last = first;
        while (last + 1 < t->n_sizes && narrow(t, last + 1, tolerance, ok, scratch)) {
            last++;
        }
        size_t pick = cheapest(t, ok, first, last);
        const perf_tune_candidate_t *c = &t->candidates[pick];
        rows[n_rows++] = (perf_tune_row_t){
            .collective = t->collective,
            .link = t->link,
            .max_team_size = t->team_size,
            .max_bytes = last + 1 == t->n_sizes ? SIZE_MAX : t->sizes[last],
            .algo = c->algo,
            .blocks = c->blocks,
            .threads = c->threads,
        };
        for (size_t s = first; s <= last; s++) {
            picks[s] = pick;
        }
        first = last + 1;
    }
    free(ok);
    return n_rows;
}

void perf_tune_write(FILE *out, int n_pes, const char *link, const perf_tune_row_t *rows,
                     size_t n_rows) {
    fprintf(out, "symcoll-tuning 1\nsignature %d %s\n", n_pes, link);
    fprintf(out, "# collective  link      max-team  max-bytes   algorithm  blocks  threads\n");
    for (size_t i = 0; i < n_rows; i++) {
        const perf_tune_row_t *r = &rows[i];
        char bytes[24] = "any";
        if (r->max_bytes != SIZE_MAX) {
            snprintf(bytes, sizeof bytes, "%zu", r->max_bytes);
        }
        fprintf(out, "%-12s  %-8s  %-8d  %-10s  %-9s  %-6d  %d\n",
                symcoll_collective_name(r->collective), r->link, r->max_team_size, bytes, r->algo,
                r->blocks, r->threads);
    }
}
