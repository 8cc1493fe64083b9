#include "choice.h"

#include <stdlib.h>

symcoll_status_t perf_choose(perf_op_t op, size_t bytes, size_t elem_size, int team_size,
                             topo_class_t topo, int sm_count, symcoll_choice_t *out) {
    const perf_op_info_t *info = perf_op_info(op);
    symcoll_tuning_query_t query = {
        .collective = info->collective,
        .bytes = bytes,
        .elem_size = elem_size,
        .team_size = team_size,
        .topo = topo,
        .sm_count = sm_count,
        .forced = info->algo_env ? getenv(info->algo_env) : NULL,
    };
    return symcoll_tuning_select(&query, out);
}

void perf_print_algorithms(FILE *out, const char *prefix) {
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        const perf_op_info_t *info = perf_op_info((perf_op_t)op);
        if (info->algo_env == NULL) {
            continue;
        }
        fprintf(out, "%s%s=", prefix, info->algo_env);
        const char *const *names = symcoll_tuning_algorithms(info->collective);
        for (int i = 0; names[i] != NULL; i++) {
            fprintf(out, "%s%s", i ? "|" : "", names[i]);
        }
        fputc('\n', out);
    }
}
