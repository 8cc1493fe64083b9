#include "choice.h"

#include <stdlib.h>
#include <string.h>

/* SYMCOLL_ALGO_<COLLECTIVE> of op as the library reads it: a name in any case stands for the
 * algorithm's own name, which the rows name; anything else goes to tuning, which says why not. */
static const char *forced_algorithm(const perf_op_info_t *info) {
    const char *value = info->algo_env ? getenv(info->algo_env) : NULL;
    int algo = value ? symcoll_algorithm_index(info->collective, value) : -1;
    return algo >= 0 ? symcoll_collective_algorithms(info->collective)[algo] : value;
}

symcoll_status_t perf_choose(perf_op_t op, size_t bytes, size_t elem_size, int team_size,
                             topo_class_t topo, int sm_count, const symcoll_tuning_file_t *file,
                             symcoll_choice_t *out) {
    const perf_op_info_t *info = perf_op_info(op);
    symcoll_tuning_query_t query = {
        .collective = info->collective,
        .bytes = bytes,
        .elem_size = elem_size,
        .team_size = team_size,
        .topo = topo,
        .sm_count = sm_count,
        .forced = forced_algorithm(info),
        .file = file != NULL && file->n_rows > 0 ? file : NULL,
    };
    return symcoll_tuning_select(&query, out);
}

int perf_load_tuning_file(symcoll_tuning_file_t *file, int n_pes, topo_class_t topo, FILE *err) {
    memset(file, 0, sizeof *file);
    const char *path = getenv("SYMCOLL_TUNING_FILE");
    if (path == NULL || path[0] == '\0') {
        return 0;
    }
    char why[384];
    if (symcoll_tuning_file_load(path, file, why, sizeof why) != 0 ||
        (n_pes > 0 && symcoll_tuning_file_check(file, n_pes, topo, why, sizeof why) != 0)) {
        fprintf(err, "symcoll-perf: SYMCOLL_TUNING_FILE %s\n", why);
        symcoll_tuning_file_free(file);
        return -1;
    }
    return 0;
}

void perf_print_algorithms(FILE *out, const char *prefix) {
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        const perf_op_info_t *info = perf_op_info((perf_op_t)op);
        if (info->algo_env == NULL) {
            continue;
        }
        fprintf(out, "%s%s=", prefix, info->algo_env);
        const char *const *names = symcoll_collective_algorithms(info->collective);
        for (int i = 0; names[i] != NULL; i++) {
            fprintf(out, "%s%s", i ? "|" : "", names[i]);
        }
        fputc('\n', out);
    }
}
