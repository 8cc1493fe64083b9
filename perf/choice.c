#include "choice.h"

symcoll_status_t perf_choose(const perf_call_t *call, symcoll_team_t team, const char *topology,
                             int sm_count, symcoll_explanation_t *out) {
    symcoll_explain_query_t query = {
        .collective = perf_op_info(call->op)->collective,
        .count = call->count,
        .type = call->type,
        .team = team,
        .topology = topology,
        .sm_count = sm_count,
    };
    return symcoll_explain(&query, out);
}

void perf_print_algorithms(FILE *out, const char *prefix) {
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        const perf_op_info_t *info = perf_op_info((perf_op_t)op);
        if (info->algo_env == NULL) {
            continue;
        }
        fprintf(out, "%s%s=", prefix, info->algo_env);
        for (int i = 0; info->algorithms[i] != NULL; i++) {
            fprintf(out, "%s%s", i ? "|" : "", info->algorithms[i]);
        }
        fputc('\n', out);
    }
}
