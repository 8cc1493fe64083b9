#include "choice_digest.h"
#include <ctype.h>
#include "coll_algorithms.h"
#include "env.h"

static uint64_t mix(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* A name in any case, and its end, so that "ll" then "" differs from "l" then "l". */
static uint64_t mix_name(uint64_t h, const char *name) {
    for (; *name; name++) {
        unsigned char c = (unsigned char)tolower((unsigned char)*name);
        h = mix(h, &c, 1);
    }
    return mix(h, "", 1);
}

uint64_t symcoll_choice_digest(const symcoll_tuning_file_t *file) {
    uint64_t h = 1469598103934665603ull;
#define MIX_FORCED(id, name, nccl, tuned, flow, algorithms)                                        \
    SYMCOLL_IF_TUNED(tuned, h = mix_name(h, symcoll_env_algo(SYMCOLL_COLL_##id));)
    SYMCOLL_COLLECTIVES(MIX_FORCED)
#undef MIX_FORCED
    h = mix(h, &file->n_pes, sizeof file->n_pes);
    h = mix(h, &file->topo, sizeof file->topo);
    for (size_t i = 0; i < file->n_rows; i++) {
        const symcoll_tuning_row_t *r = &file->rows[i];
        int64_t numbers[] = {r->collective,         r->topo,   r->max_team_size,
                             (int64_t)r->max_bytes, r->blocks, r->threads};
        h = mix(h, numbers, sizeof numbers);
        h = mix_name(h, r->algo);
    }
    return h;
}
