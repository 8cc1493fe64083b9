#include "choice.h"

#include "topology_text.h"

/* The count symcoll_explain takes for call: the call's, but alltoallv's dst_capacity (its
 * counts' capacity, or with none a uniform one: count from each PE of the team). */
static size_t explain_count(const perf_call_t *call, symcoll_team_t team, const char *topology) {
    if (call->op != PERF_OP_ALLTOALLV) {
        return call->count;
    }
    if (call->counts != NULL) {
        return call->counts->capacity;
    }
    int npes = team != SYMCOLL_TEAM_INVALID ? symcoll_team_n_pes(team)
                                            : perf_topology_n_pes(topology ? topology : "");
    return npes > 0 ? call->count * (size_t)npes : call->count; /* else explain refuses team */
}

symcoll_status_t perf_choose(const perf_call_t *call, symcoll_team_t team, const char *topology,
                             int sm_count, symcoll_explanation_t *out) {
    symcoll_explain_query_t query = {
        .version = SYMCOLL_EXPLAIN_VERSION,
        .collective = perf_op_info(call->op)->collective,
        .count = explain_count(call, team, topology),
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
