/* symcoll_tuning_override: an algorithm and grid per collective, checked here once so that the
 * enqueue path only copies them. */
#include <stdbool.h>
#include <string.h>
#include "coll_algorithms.h"
#include "internal.h"
#include "tuning_override.h"

#define FN "symcoll_tuning_override"

typedef struct {
    const char *algo; /* one of symcoll_collective_algorithms' names; NULL: no override */
    int blocks, threads;
} override_t;

/* By symcoll_collective_t value: every tuned collective of the registry has a slot. */
static override_t overrides[32];
#define HAS_SLOT(id, name, nccl, tuned, flow, algorithms)                                          \
    SYMCOLL_IF_TUNED(tuned,                                                                        \
                     _Static_assert(SYMCOLL_COLL_##id < sizeof overrides / sizeof *overrides,      \
                                    "no override slot for SYMCOLL_COLL_" #id);)
SYMCOLL_COLLECTIVES(HAS_SLOT)
#undef HAS_SLOT

/* " broadcast reduce ...": the collectives that have a choice, from the registry. */
#define TUNED_NAME(id, name, nccl, tuned, flow, algorithms) SYMCOLL_IF_TUNED(tuned, " " #name)
#define TUNED_NAMES SYMCOLL_COLLECTIVES(TUNED_NAME)

static symcoll_status_t check_grid(symcoll_collective_t collective, const char *const *names,
                                   int algo, int blocks, int threads) {
    int max_blocks = 0, max_threads = 0;
    symcoll_algorithm_grid_limits(collective, algo, &max_blocks, &max_threads);
    const char *name = symcoll_collective_name(collective);
    if (blocks < 0 || blocks > max_blocks)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 FN ": blocks %d out of range for %s %s (0 for the tuned grid, "
                                    "or 1 to %d)",
                                 blocks, name, names[algo], max_blocks);
    if (threads < 0 || threads > max_threads || threads % 32 != 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 FN ": threads %d out of range for %s %s (0 for the tuned grid, "
                                    "or a multiple of 32 from 32 to %d)",
                                 threads, name, names[algo], max_threads);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_tuning_override(symcoll_collective_t collective, const char *algorithm,
                                         int blocks, int threads) {
    if (!symcoll_tuning_has_choice(collective))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 FN ": collective %d (%s) has no algorithms to choose from (give "
                                    "one of" TUNED_NAMES ")",
                                 (int)collective, symcoll_collective_name(collective));
    if (!algorithm || !algorithm[0]) {
        if (blocks != 0 || threads != 0)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     FN ": blocks %d and threads %d without an algorithm (an "
                                        "empty algorithm clears the override: give 0 and 0)",
                                     blocks, threads);
        overrides[collective] = (override_t){NULL, 0, 0};
        return SYMCOLL_SUCCESS;
    }
    const char *const *names = symcoll_collective_algorithms(collective);
    int algo = symcoll_algorithm_index(collective, algorithm);
    if (algo < 0) {
        char list[128];
        symcoll_tuning_algorithm_list(collective, list, sizeof list);
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 FN ": algorithm \"%.64s\" names no %s algorithm (%s)", algorithm,
                                 symcoll_collective_name(collective), list);
    }
    symcoll_status_t st = check_grid(collective, names, algo, blocks, threads);
    if (st == SYMCOLL_SUCCESS)
        overrides[collective] = (override_t){names[algo], blocks, threads};
    return st;
}

bool symcoll_tuning_override_apply(symcoll_tuning_query_t *q) {
    if (!symcoll_tuning_has_choice(q->collective) || !overrides[q->collective].algo)
        return false;
    const override_t *o = &overrides[q->collective];
    q->forced = o->algo;
    q->forced_blocks = o->blocks;
    q->forced_threads = o->threads;
    q->forced_by = SYMCOLL_CHOICE_OVERRIDE;
    return true;
}
