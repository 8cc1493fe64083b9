#include "args.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "choice.h"
#include "moe_routing.h"

typedef struct {
    perf_args_t *args;
    char *err;
    size_t err_len;
    const char *flag; /* the flag being applied, as the user spelled it */
    bool mode_given, npes_given, nodes_given, iters_given, factor_given, step_given, skew_given;
    bool min_given, max_given;
    unsigned long long given; /* bit i: flags[i] was given */
} parser_t;

static int fail(parser_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser_t *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->err_len, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_int(parser_t *p, const char *value, int lo, int hi, int *out) {
    errno = 0;
    char *end;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < lo || v > hi) {
        return fail(p, "%s: bad value '%s' (expected an integer from %d to %d)", p->flag, value, lo,
                    hi);
    }
    *out = (int)v;
    return 0;
}

static int parse_size_flag(parser_t *p, const char *value, size_t *out) {
    if (symcoll_parse_bytes(value, out) != SYMCOLL_SUCCESS) {
        return fail(p,
                    "%s: bad size '%s' (expected bytes, a fraction too, with an optional k, m, "
                    "g or t suffix and b: 8, 4k, 1.5m, 128MB)",
                    p->flag, value);
    }
    return 0;
}

/* Parses "all" or a comma-separated list of names into selected[0..n). */
static int parse_name_list(parser_t *p, const char *value, bool *selected, int n,
                           int (*from_name)(const char *), const char *what) {
    memset(selected, 0, sizeof(bool) * (size_t)n);
    if (strcmp(value, "all") == 0) {
        for (int i = 0; i < n; i++) {
            selected[i] = true;
        }
        return 0;
    }
    char name[64];
    const char *start = value;
    for (;;) {
        size_t len = strcspn(start, ",");
        int found = -1;
        if (len < sizeof name) {
            memcpy(name, start, len);
            name[len] = '\0';
            found = from_name(name);
        }
        if (found < 0) {
            return fail(p, "%s: unknown %s '%.*s' in '%s'", p->flag, what, (int)len, start, value);
        }
        selected[found] = true;
        if (start[len] == '\0') {
            return 0;
        }
        start += len + 1;
    }
}

static int set_min_bytes(parser_t *p, const char *v) {
    p->min_given = true;
    return parse_size_flag(p, v, &p->args->min_bytes);
}
static int set_max_bytes(parser_t *p, const char *v) {
    p->max_given = true;
    return parse_size_flag(p, v, &p->args->max_bytes);
}
static int set_step_bytes(parser_t *p, const char *v) {
    p->step_given = true;
    return parse_size_flag(p, v, &p->args->step_bytes);
}
static int set_step_factor(parser_t *p, const char *v) {
    int factor = 0;
    p->factor_given = true;
    if (parse_int(p, v, 2, 1 << 20, &factor) != 0) {
        return -1;
    }
    p->args->step_factor = (size_t)factor;
    return 0;
}
static int set_iters(parser_t *p, const char *v) {
    p->iters_given = true;
    return parse_int(p, v, 1, 1 << 24, &p->args->iters);
}
static int set_warmup(parser_t *p, const char *v) {
    return parse_int(p, v, 0, 1 << 24, &p->args->warmup);
}
static int set_timings(parser_t *p, const char *v) {
    return parse_int(p, v, 1, 1000, &p->args->timings);
}
static int set_check(parser_t *p, const char *v) {
    int check = 0;
    if (parse_int(p, v, 0, INT_MAX, &check) != 0) {
        return -1;
    }
    p->args->check = check != 0;
    return 0;
}
static int set_types(parser_t *p, const char *v) {
    return parse_name_list(p, v, p->args->types, SYMCOLL_NUM_DATATYPES, perf_datatype_from_name,
                           "datatype");
}
static int set_redops(parser_t *p, const char *v) {
    return parse_name_list(p, v, p->args->redops, SYMCOLL_NUM_OPS, perf_redop_from_name,
                           "reduction op");
}
/* The operations that run alone, each with its own table. */
static const char *const solo_ops[] = {"halo", "moe", "dev_barrier", "dev_pingpong"};

/* Whether name is one of the items of the comma-separated list. */
static bool lists(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *at = strstr(list, name); at; at = strstr(at + 1, name))
        if ((at == list || at[-1] == ',') && (at[len] == '\0' || at[len] == ','))
            return true;
    return false;
}

static int set_ops(parser_t *p, const char *v) {
    for (size_t i = 0; i < sizeof solo_ops / sizeof solo_ops[0]; i++) {
        if (lists(v, solo_ops[i]) && strcmp(v, solo_ops[i]) != 0)
            return fail(p, "%s: %s runs alone (--op %s), not in a list ('%s')", p->flag,
                        solo_ops[i], solo_ops[i], v);
    }
    bool dev_coll = false;
    for (int c = 0; c < PERF_DEV_NUM_COLLS; c++)
        dev_coll = dev_coll || lists(v, perf_dev_coll_name((perf_dev_coll_t)c));
    p->args->halo = strcmp(v, "halo") == 0;
    p->args->moe = strcmp(v, "moe") == 0;
    p->args->dev_op = strcmp(v, "dev_barrier") == 0    ? PERF_DEV_BARRIER
                      : strcmp(v, "dev_pingpong") == 0 ? PERF_DEV_PINGPONG
                      : dev_coll                       ? PERF_DEV_COLL
                                                       : PERF_DEV_NONE;
    if (dev_coll && parse_name_list(p, v, p->args->dev_colls, PERF_DEV_NUM_COLLS,
                                    perf_dev_coll_from_name, "in-kernel collective") != 0)
        return fail(p,
                    "%s: the in-kernel collectives (dev_<collective>) run apart from the other "
                    "ops, alone or listed together ('%s')",
                    p->flag, v);
    if (p->args->halo || p->args->moe || p->args->dev_op != PERF_DEV_NONE)
        return 0;
    return parse_name_list(p, v, p->args->ops, PERF_NUM_OPS, perf_op_from_name, "collective");
}
static int set_root(parser_t *p, const char *v) {
    return parse_int(p, v, 0, SYMCOLL_MAX_PES - 1, &p->args->root);
}
static int set_skew(parser_t *p, const char *v) {
    p->skew_given = true;
    if (strcmp(v, "uniform") == 0) {
        p->args->skew = 0;
        return 0;
    }
    errno = 0;
    char *end;
    double s = strtod(v, &end);
    if (errno != 0 || end == v || *end != '\0' || !isfinite(s) || s <= 0) {
        return fail(p, "%s: bad value '%s' (expected uniform, or a Zipf exponent > 0 such as 1.2)",
                    p->flag, v);
    }
    p->args->skew = s;
    return 0;
}
static int set_tokens(parser_t *p, const char *v) {
    return parse_int(p, v, 1, 1 << 24, &p->args->tokens);
}
static int set_experts(parser_t *p, const char *v) {
    return parse_int(p, v, 1, PERF_MOE_MAX_EXPERTS, &p->args->experts);
}
static int set_topk(parser_t *p, const char *v) {
    return parse_int(p, v, 1, PERF_MOE_MAX_EXPERTS, &p->args->topk);
}
static int set_align(parser_t *p, const char *v) {
    return parse_int(p, v, 1, 1 << 20, &p->args->align);
}
static int set_graph_calls(parser_t *p, const char *v) {
    return parse_int(p, v, 0, 1 << 20, &p->args->graph_calls);
}
static int set_average(parser_t *p, const char *v) {
    int average = 0;
    if (parse_int(p, v, 0, 3, &average) != 0) {
        return -1;
    }
    p->args->average = (perf_average_t)average;
    return 0;
}
static int set_team(parser_t *p, const char *v) {
    p->args->team_peers = strcmp(v, "peers") == 0;
    if (strcmp(v, "world") == 0 || p->args->team_peers) {
        p->args->team = SYMCOLL_TEAM_WORLD;
    } else if (strcmp(v, "node") == 0) {
        p->args->team = SYMCOLL_TEAM_NODE;
    } else {
        return fail(p, "%s: unknown team '%s' (expected world, node or peers)", p->flag, v);
    }
    return 0;
}
static int set_mode(parser_t *p, const char *v) {
    p->mode_given = true;
    if (strcmp(v, "stream") == 0) {
        p->args->modes = PERF_MODE_STREAM;
    } else if (strcmp(v, "graph") == 0) {
        p->args->modes = PERF_MODE_GRAPH;
    } else if (strcmp(v, "both") == 0) {
        p->args->modes = PERF_MODE_STREAM | PERF_MODE_GRAPH;
    } else {
        return fail(p, "%s: unknown mode '%s' (expected stream, graph or both)", p->flag, v);
    }
    return 0;
}
static int set_compare(parser_t *p, const char *v) {
    if (strcmp(v, "nccl") != 0) {
        return fail(p, "%s: cannot compare with '%s' (expected nccl)", p->flag, v);
    }
    p->args->compare_nccl = true;
    return 0;
}
static int set_csv(parser_t *p, const char *v) {
    p->args->csv_path = v;
    return 0;
}
static int set_plot(parser_t *p, const char *v) {
    p->args->plot_path = v;
    return 0;
}
static int set_baseline(parser_t *p, const char *v) {
    p->args->baseline_path = v;
    return 0;
}
static int set_topology_file(parser_t *p, const char *v) {
    p->args->topology_file = v;
    return 0;
}
static int set_npes(parser_t *p, const char *v) {
    p->npes_given = true;
    return parse_int(p, v, 1, SYMCOLL_MAX_PES, &p->args->npes);
}
static int set_nodes(parser_t *p, const char *v) {
    p->nodes_given = true;
    return parse_int(p, v, 1, SYMCOLL_MAX_PES, &p->args->nodes);
}
static int set_sm_share(parser_t *p, const char *v) {
    return parse_int(p, v, 1, 1 << 16, &p->args->sm_share);
}
static int set_help(parser_t *p, const char *v) {
    (void)v;
    p->args->help = true;
    return 0;
}
static int set_topology(parser_t *p, const char *v) {
    (void)v;
    p->args->topology = true;
    return 0;
}
static int set_soak(parser_t *p, const char *v) {
    return parse_int(p, v, 1, 7 * 24 * 3600, &p->args->soak_seconds);
}
static int set_explain(parser_t *p, const char *v) {
    (void)v;
    p->args->explain = true;
    return 0;
}
static int set_tune(parser_t *p, const char *v) {
    if (v != NULL && v[0] == '\0') {
        return fail(p, "%s: empty file name (leave it out to print the table on stdout)", p->flag);
    }
    p->args->tune = true;
    p->args->tune_path = v;
    return 0;
}

typedef enum { NO_VALUE, VALUE, OPTIONAL_VALUE } value_kind_t;

/* What one invocation does: the sweep, or the run one flag selects instead. */
typedef enum {
    RUN_SWEEP,
    RUN_EXPLAIN,
    RUN_TOPOLOGY,
    RUN_TUNE,
    RUN_SOAK,
    RUN_HALO,
    RUN_DEV,
    RUN_DEV_COLL,
    RUN_MOE,
    N_RUNS
} run_t;
#define IN(run) (1u << (run))
#define ALL_RUNS (IN(N_RUNS) - 1)

/* Each run as messages name it (a dev run by its op), and why a flag does not apply to it. */
static const struct {
    const char *name, *why;
} runs[N_RUNS] = {
    [RUN_SWEEP] = {"the sweep", "give --explain to plan for another team"},
    [RUN_EXPLAIN] = {"--explain", "it runs nothing: give the team size with --npes, or "
                                  "--topology-file"},
    [RUN_TOPOLOGY] = {"--topology", "it prints the topology matrix after init and exits"},
    [RUN_TUNE] = {"--tune", "it times every algorithm in graph mode and writes a tuning file"},
    [RUN_SOAK] = {"--soak", "it runs random checked traffic instead of the sweep"},
    [RUN_HALO] = {"--op halo", "it runs halo exchanges instead of the sweep"},
    [RUN_DEV] = {NULL, "it times syncs inside one kernel: only -n, -w, --timings, --compare "
                       "nccl and --csv do"},
    [RUN_DEV_COLL] = {"--op dev_<collective>",
                      "it times float32 calls (sum for reduce) inside kernels beside the host "
                      "calls: only -b, -e, -f, -i, -n, -w, --timings, -c, -r, --compare nccl and "
                      "--csv do"},
    [RUN_MOE] = {"--op moe", "it times dispatch + combine of uint8 tokens of -b to -e bytes: "
                             "-d, -o, -r, --plot and --baseline are the sweep's"},
};
#define SWEEPS (ALL_RUNS & ~IN(RUN_DEV) & ~IN(RUN_DEV_COLL))
#define SIZED (SWEEPS | IN(RUN_DEV_COLL)) /* the runs over the sizes -b to -e */

typedef struct {
    char short_name; /* 0: long form only */
    const char *long_name;
    value_kind_t value; /* OPTIONAL_VALUE: "--name=value", or the next argument unless it is a
                           flag; long form only */
    int (*apply)(parser_t *p, const char *value);
    unsigned runs; /* the runs it applies to: bit RUN_* */
} flag_t;

static const flag_t flags[] = {
    {'b', "minbytes", VALUE, set_min_bytes, SIZED},
    {'e', "maxbytes", VALUE, set_max_bytes, SIZED},
    {'i', "stepbytes", VALUE, set_step_bytes, SIZED},
    {'f', "stepfactor", VALUE, set_step_factor, SIZED},
    {'n', "iters", VALUE, set_iters, ALL_RUNS & ~IN(RUN_EXPLAIN)},
    {'w', "warmup_iters", VALUE, set_warmup, ALL_RUNS},
    {0, "timings", VALUE, set_timings, ALL_RUNS},
    {'c', "check", VALUE, set_check, SIZED},
    {'d', "datatype", VALUE, set_types, SWEEPS & ~IN(RUN_MOE)},
    {'o', "redop", VALUE, set_redops, SWEEPS & ~IN(RUN_MOE)},
    {'r', "root", VALUE, set_root, (SWEEPS & ~IN(RUN_MOE)) | IN(RUN_DEV_COLL)},
    {0, "skew", VALUE, set_skew, IN(RUN_SWEEP) | IN(RUN_MOE)},
    {0, "tokens", VALUE, set_tokens, IN(RUN_MOE)},
    {0, "experts", VALUE, set_experts, IN(RUN_MOE)},
    {0, "topk", VALUE, set_topk, IN(RUN_MOE)},
    {0, "align", VALUE, set_align, IN(RUN_MOE)},
    {'G', "cudagraph", VALUE, set_graph_calls, SWEEPS},
    {'a', "average", VALUE, set_average, SWEEPS},
    {0, "op", VALUE, set_ops, ALL_RUNS},
    {0, "team", VALUE, set_team, SWEEPS},
    {0, "mode", VALUE, set_mode, SWEEPS},
    {0, "compare", VALUE, set_compare, ALL_RUNS & ~IN(RUN_TUNE)},
    {0, "csv", VALUE, set_csv, ALL_RUNS & ~IN(RUN_TUNE)},
    {0, "plot", VALUE, set_plot, SWEEPS & ~IN(RUN_TUNE) & ~IN(RUN_MOE)},
    {0, "baseline", VALUE, set_baseline, IN(RUN_SWEEP)},
    {0, "explain", NO_VALUE, set_explain, IN(RUN_EXPLAIN)},
    {0, "tune", OPTIONAL_VALUE, set_tune, IN(RUN_TUNE)},
    {0, "topology-file", VALUE, set_topology_file, IN(RUN_EXPLAIN)},
    {0, "npes", VALUE, set_npes, IN(RUN_EXPLAIN)},
    {0, "nodes", VALUE, set_nodes, IN(RUN_EXPLAIN)},
    {0, "sm-share", VALUE, set_sm_share, IN(RUN_EXPLAIN)},
    {0, "topology", NO_VALUE, set_topology, IN(RUN_TOPOLOGY)},
    {0, "soak", VALUE, set_soak, IN(RUN_SOAK)},
    {'h', "help", NO_VALUE, set_help, ALL_RUNS},
};

/* Finds the flag of argument arg; *inline_value is set for "--name=value" and "-bVALUE". */
static const flag_t *find_flag(const char *arg, const char **inline_value) {
    *inline_value = NULL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const flag_t *f = &flags[i];
        if (arg[1] == '-') {
            size_t len = strlen(f->long_name);
            if (strncmp(arg + 2, f->long_name, len) == 0 &&
                (arg[2 + len] == '\0' || (arg[2 + len] == '=' && f->value != NO_VALUE))) {
                *inline_value = arg[2 + len] == '=' ? arg + 3 + len : NULL;
                return f;
            }
        } else if (f->short_name != 0 && arg[1] == f->short_name &&
                   (arg[2] == '\0' || f->value == VALUE)) {
            *inline_value = arg[2] != '\0' ? arg + 2 : NULL;
            return f;
        }
    }
    return NULL;
}

static bool reduction_selected(const perf_args_t *a) {
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        if (a->ops[op] && perf_op_reduces((perf_op_t)op)) {
            return true;
        }
    }
    return false;
}

static size_t count_valid_reductions(const perf_args_t *a) {
    size_t n = 0;
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
        for (int op = 0; op < SYMCOLL_NUM_OPS; op++) {
            n += a->types[t] && a->redops[op] &&
                 perf_redop_valid((symcoll_datatype_t)t, (symcoll_op_t)op);
        }
    }
    return n;
}

_Static_assert(sizeof flags / sizeof flags[0] <= 64, "parser_t.given has a bit per flag");

static const char *run_name(const perf_args_t *a, run_t run) {
    if (run != RUN_DEV)
        return runs[run].name;
    return a->dev_op == PERF_DEV_BARRIER ? "--op dev_barrier" : "--op dev_pingpong";
}

/* The run the flags select; two that exclude each other fail, naming both. */
static int select_run(parser_t *p, run_t *out) {
    const perf_args_t *a = p->args;
    const bool selected[N_RUNS] = {
        [RUN_EXPLAIN] = a->explain,
        [RUN_TOPOLOGY] = a->topology,
        [RUN_TUNE] = a->tune,
        [RUN_SOAK] = a->soak_seconds > 0,
        [RUN_HALO] = a->halo,
        [RUN_DEV] = a->dev_op != PERF_DEV_NONE && a->dev_op != PERF_DEV_COLL,
        [RUN_DEV_COLL] = a->dev_op == PERF_DEV_COLL,
        [RUN_MOE] = a->moe,
    };
    *out = RUN_SWEEP;
    for (int r = RUN_SWEEP + 1; r < N_RUNS; r++) {
        if (!selected[r])
            continue;
        /* --tune and --soak run the registry's collectives; moe is perf's own composite. */
        bool registry_run = *out == RUN_TUNE || *out == RUN_SOAK;
        if (*out != RUN_SWEEP)
            return fail(p, "%s and %s exclude each other: give one%s", run_name(a, *out),
                        run_name(a, (run_t)r),
                        r == RUN_MOE && registry_run
                            ? " (moe is no collective of the registry: its dispatch and combine "
                              "run alltoallv's algorithms, which --op alltoallv tunes and soaks)"
                            : "");
        *out = (run_t)r;
    }
    return 0;
}

/* Each given flag applies to the run, or the run says why not. */
static int check_flags_apply(parser_t *p, run_t run) {
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const flag_t *f = &flags[i];
        if (!(p->given >> i & 1) || (f->runs & IN(run)))
            continue;
        char short_form[4] = "";
        if (f->short_name != 0)
            snprintf(short_form, sizeof short_form, "-%c/", f->short_name);
        return fail(p, "%s--%s does not apply to %s: %s", short_form, f->long_name,
                    run_name(p->args, run), runs[run].why);
    }
    return 0;
}

/* Settings that depend on several flags, and the checks between them. */
static int finish(parser_t *p) {
    perf_args_t *a = p->args;
    p->flag = "arguments";
    run_t run;
    if (select_run(p, &run) != 0 || check_flags_apply(p, run) != 0)
        return -1;
    if (run == RUN_DEV) {
        if (!p->iters_given)
            a->iters = PERF_DEV_DEFAULT_ITERS;
        return 0;
    }
    if (run == RUN_DEV_COLL) {
        a->iters = p->iters_given ? a->iters : PERF_DEV_COLL_DEFAULT_ITERS;
        /* One warp or block moves at most 8 KiB per peer an LL round: past 64 KiB a call takes
         * milliseconds, and 200 of them per kernel would take the run's time. */
        a->dev_latency_max_bytes = p->max_given && a->max_bytes < PERF_DEV_LATENCY_MAX_BYTES
                                       ? a->max_bytes
                                       : PERF_DEV_LATENCY_MAX_BYTES;
    }
    if (run == RUN_MOE) {
        a->min_bytes = p->min_given ? a->min_bytes : PERF_MOE_MIN_HIDDEN;
        a->max_bytes = p->max_given ? a->max_bytes : PERF_MOE_MAX_HIDDEN;
        a->step_factor = p->factor_given || p->step_given ? a->step_factor : PERF_MOE_HIDDEN_FACTOR;
    }
    if (p->factor_given && p->step_given) {
        return fail(p, "-f/--stepfactor and -i/--stepbytes exclude each other: give one");
    }
    if (p->step_given) {
        a->step_factor = 1;
        if (a->step_bytes == 0) {
            return fail(p, "-i/--stepbytes: 0 would not advance the sizes");
        }
    } else if (a->min_bytes == 0) {
        return fail(p, "-b/--minbytes 0 with a step factor would not advance: give -b > 0 or -i");
    }
    if (a->min_bytes > a->max_bytes) {
        return fail(p, "-b/--minbytes %zu is larger than -e/--maxbytes %zu", a->min_bytes,
                    a->max_bytes);
    }
    size_t scratch[PERF_MAX_SIZES + 1];
    if (perf_size_list(a, scratch, PERF_MAX_SIZES + 1) > PERF_MAX_SIZES) {
        return fail(p, "-b %zu to -e %zu gives more than %d sizes: raise -f or -i", a->min_bytes,
                    a->max_bytes, PERF_MAX_SIZES);
    }
    if (run == RUN_DEV_COLL) {
        return 0;
    }
    if (p->skew_given && run == RUN_SWEEP && !a->ops[PERF_OP_ALLTOALLV]) {
        return fail(p, "--skew shapes alltoallv's counts: --op selects no alltoallv");
    }
    if (reduction_selected(a) && count_valid_reductions(a) == 0) {
        return fail(p, "-o/--redop: no selected reduction op applies to the selected datatypes "
                       "(and, or, xor are for integer types)");
    }
    if (!p->mode_given) {
        a->modes = a->graph_calls > 0 ? PERF_MODE_GRAPH : PERF_MODE_STREAM;
    }
    if ((a->modes & PERF_MODE_GRAPH) && a->graph_calls == 0) {
        a->graph_calls = a->iters;
    }
    if (a->tune && p->mode_given && a->modes != PERF_MODE_GRAPH) {
        return fail(p, "--tune times graph mode only: leave --mode out or give --mode graph");
    }
    bool tunable = false;
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        tunable = tunable || (a->ops[op] && perf_op_info((perf_op_t)op)->algo_env);
    }
    if (a->tune && !tunable) {
        return fail(p, "--tune: --op selects no collective with algorithms to choose from");
    }
    if (a->tune) {
        a->modes = PERF_MODE_GRAPH;
        a->graph_calls = a->graph_calls > 0 ? a->graph_calls : a->iters;
    }
    if (p->npes_given && a->topology_file != NULL) {
        return fail(p,
                    "--npes %d and --topology-file %s exclude each other: the file gives the "
                    "PE count",
                    a->npes, a->topology_file);
    }
    if (p->nodes_given && a->topology_file != NULL) {
        return fail(p,
                    "--nodes %d and --topology-file %s exclude each other: the file's NET links "
                    "give the nodes",
                    a->nodes, a->topology_file);
    }
    if (a->npes % a->nodes != 0) {
        return fail(p, "--npes %d%s does not split into --nodes %d of the same size", a->npes,
                    p->npes_given ? "" : " (the default)", a->nodes);
    }
    if (a->explain && a->ops[PERF_OP_BROADCAST] && a->root >= a->npes && a->topology_file == NULL) {
        return fail(p, "-r/--root %d out of range for %d PEs", a->root, a->npes);
    }
    return 0;
}

void perf_args_default(perf_args_t *a) {
    memset(a, 0, sizeof *a);
    a->min_bytes = 8;
    a->max_bytes = (size_t)128 << 20;
    a->step_factor = 8;
    a->step_bytes = (size_t)1 << 20;
    a->iters = 20;
    a->warmup = 5;
    a->timings = 7;
    a->check = true;
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        a->ops[op] = true;
    }
    a->types[SYMCOLL_FLOAT32] = true;
    a->redops[SYMCOLL_SUM] = true;
    a->modes = PERF_MODE_STREAM;
    a->average = PERF_AVERAGE_MEAN;
    a->team = SYMCOLL_TEAM_WORLD;
    a->npes = 2;
    a->nodes = 1;
    a->tokens = 4096;
    a->experts = 8;
    a->topk = 2;
    a->align = 1;
}

int perf_args_parse(int argc, char *const argv[], perf_args_t *args, char *err, size_t err_len) {
    parser_t p = {.args = args, .err = err, .err_len = err_len};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value;
        const flag_t *f = arg[0] == '-' && arg[1] != '\0' ? find_flag(arg, &value) : NULL;
        if (f == NULL) {
            p.flag = arg;
            return fail(&p, "%s: unknown %s (see --help)", arg,
                        arg[0] == '-' ? "flag" : "argument");
        }
        p.flag = arg;
        /* "-op reduce" reads as -o with the value "p": say so where a long flag is meant. */
        const char *dashes_missing = NULL;
        if (arg[1] != '-' && value != NULL) {
            char long_form[64];
            snprintf(long_form, sizeof long_form, "-%s", arg);
            const char *long_value;
            const flag_t *long_flag = find_flag(long_form, &long_value);
            dashes_missing = long_flag && long_value == NULL ? long_flag->long_name : NULL;
        }
        if (dashes_missing)
            return fail(&p, "%s: read as -%c with the value '%s'; for --%s write two dashes", arg,
                        f->short_name, value, dashes_missing);
        p.given |= 1ull << (f - flags);
        if (f->value == VALUE && value == NULL) {
            if (i + 1 == argc) {
                return fail(&p, "%s: missing value", arg);
            }
            value = argv[++i];
        } else if (f->value == OPTIONAL_VALUE && value == NULL && i + 1 < argc &&
                   argv[i + 1][0] != '-') {
            value = argv[++i];
        }
        if (f->apply(&p, value) != 0) {
            return -1;
        }
        if (args->help) {
            return 0;
        }
    }
    return finish(&p);
}

bool perf_args_first_call(const perf_args_t *a, perf_op_t op, perf_call_t *call) {
    *call = (perf_call_t){.op = op, .root = a->root};
    if (op == PERF_OP_BARRIER) {
        return true;
    }
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
        for (int r = 0; r < SYMCOLL_NUM_OPS && a->types[t]; r++) {
            call->type = (symcoll_datatype_t)t;
            call->redop = (symcoll_op_t)r;
            if (perf_op_reduces(op) ? a->redops[r] && perf_redop_valid(call->type, call->redop)
                                    : r == 0) {
                return true;
            }
        }
    }
    return false;
}

bool perf_args_root_fits(const perf_args_t *a, int npes, bool reporter) {
    bool broadcast = a->dev_op == PERF_DEV_COLL ? a->dev_colls[PERF_DEV_COLL_BROADCAST]
                                                : a->ops[PERF_OP_BROADCAST];
    if (broadcast && a->root >= npes) {
        if (reporter) {
            fprintf(stderr, "symcoll-perf: -r/--root %d out of range for a team of %d PEs\n",
                    a->root, npes);
        }
        return false;
    }
    return true;
}

size_t perf_size_list(const perf_args_t *a, size_t *sizes, size_t max) {
    size_t n = 0;
    size_t size = a->min_bytes;
    while (n < max && size <= a->max_bytes) {
        sizes[n++] = size;
        size_t next = a->step_factor > 1 ? size * a->step_factor : size + a->step_bytes;
        if (next <= size || (a->step_factor > 1 && next / a->step_factor != size)) {
            break; /* overflow */
        }
        size = next;
    }
    return n;
}

size_t perf_buffer_bytes(const size_t *sizes, size_t n_sizes) {
    const size_t min_bytes = 256;
    return n_sizes > 0 && sizes[n_sizes - 1] > min_bytes ? sizes[n_sizes - 1] : min_bytes;
}

void perf_args_usage(FILE *out) {
    fputs("Usage: symcoll-run -n <PEs> symcoll-perf [flags]\n"
          "       symcoll-run -n <PEs> symcoll-perf --tune [FILE] [flags]\n"
          "       symcoll-perf --explain [--topology-file FILE | --npes PEs] [flags]\n"
          "\n"
          "Times symcoll's collectives over a range of sizes, like nccl-tests. Without flags\n"
          "it sweeps every collective from 8 B to 128 MiB (factor 8), float32, sum, with a\n"
          "correctness check. Output (rank 0 only): size, count, type, redop, root, time (us),\n"
          "algbw and busbw (GB/s, nccl-tests conventions), #wrong, and the chosen algorithm,\n"
          "after a 'launch' row: an empty kernel launched the same way (the floor).\n"
          "First, a first-call table: each collective's first call in this process (cold,\n"
          "at the smallest size) beside the median of 20 later calls timed alike (warm),\n"
          "each one call + stream sync on the host clock; CSV modes cold and warm-single.\n"
          "\n"
          "Sizes (bytes; k, m, g suffixes are powers of 1024):\n"
          "  -b, --minbytes SIZE      smallest size (default 8)\n"
          "  -e, --maxbytes SIZE      largest size (default 128m)\n"
          "  -f, --stepfactor N       multiply the size by N each step (default 8)\n"
          "  -i, --stepbytes SIZE     add SIZE each step instead of multiplying\n"
          "      Sizes count as in nccl-tests: broadcast and reduce the per-PE buffer,\n"
          "      fcollect, alltoall and alltoallv the whole destination (alltoallv's with\n"
          "      uniform counts); a size that holds less than one element (per PE) is skipped.\n"
          "\n"
          "What to run:\n"
          "      --op LIST            comma-separated, or all (default all); NCCL's names work\n"
          "                           too (allreduce, allgather, reducescatter):\n"
          "                             barrier    team barrier (NCCL has none)\n"
          "                             broadcast  ncclBroadcast\n"
          "                             reduce     ncclAllReduce: every PE gets the result\n"
          "                             fcollect   ncclAllGather\n"
          "                             alltoall   ncclAlltoAll\n"
          "                             reduce_scatter ncclReduceScatter: every PE gets the\n"
          "                                        reduction of its block (sizes: the whole\n"
          "                                        source, as nccl-tests)\n"
          "                             alltoallv  counts in device memory (--skew), beside what\n"
          "                                        a NCCL user pays: ncclAlltoAll of the counts,\n"
          "                                        a copy to the host and a stream sync, then\n"
          "                                        ncclSend/ncclRecv per peer in a group, all\n"
          "                                        timed as NCCL's call (n/a in graph mode: the\n"
          "                                        host sync cannot be captured)\n"
          "                             moe        alone: symcoll_moe_dispatch_on_stream then\n"
          "                                        symcoll_moe_combine_on_stream, timed as one\n"
          "                                        op (see MoE below), beside NCCL: ncclAlltoAll\n"
          "                                        of the counts, copy to the host + sync, then\n"
          "                                        ncclSend/ncclRecv per (PE, expert) in a\n"
          "                                        group, and back in another (n/a in graph mode)\n"
          "                             halo       alone: the halo exchange of 2 float faces\n"
          "                                        per PE (sizes: face bytes) for 2D rows, 2D\n"
          "                                        columns and 3D faces, beside NCCL send/recv\n"
          "                                        (--compare nccl) and cudaMemcpy2DAsync\n"
          "                             dev_barrier alone: in-kernel barriers of one block of\n"
          "                                        128 threads per GPU, -n syncs per kernel\n"
          "                                        (default 20000): symcoll_dev_barrier\n"
          "                                        (acq_rel) and symcoll_dev_barrier_relaxed\n"
          "                                        beside NCCL's device-API LSA barrier\n"
          "                                        (ncclLsaBarrierSession::sync, acq_rel and\n"
          "                                        relaxed); us per sync\n"
          "                             dev_pingpong alone, 2 PEs or more: PE 0 and PE 1 bounce\n"
          "                                        an 8-byte put_signal + signal_wait_until by\n"
          "                                        one thread, beside the same through an NCCL\n"
          "                                        window (store, release flag, acquire wait),\n"
          "                                        and a 64 KiB put_signal_block; -n round trips\n"
          "                                        per kernel (default 20000); us per one-way\n"
          "                                        trip\n"
          "                                        Both: NCCL always measured beside; -w warm-up\n"
          "                                        kernels, --timings kernels (median and min of\n"
          "                                        the slowest PE); only -n, -w, --timings,\n"
          "                                        --csv and --compare nccl apply\n"
          "                             dev_reduce, dev_broadcast, dev_fcollect, dev_alltoall\n"
          "                                        alone or listed together: float32 calls (sum\n"
          "                                        for reduce) of symcoll_device_coll.cuh, -n\n"
          "                                        in a loop in one kernel (default 200), beside\n"
          "                                        the host call at the same size\n"
          "                                        (symcoll_<op>_on_stream, a CUDA graph of -n\n"
          "                                        calls); both checked (-c). Latency table, us\n"
          "                                        per call: symcoll_dev_<op>_warp (one warp)\n"
          "                                        and _block (one block of 128 threads) from\n"
          "                                        -b to -e (64 KiB at most), beside\n"
          "                                        symcoll_dev_barrier (one block of 128).\n"
          "                                        Bandwidth table, time and busbw:\n"
          "                                        symcoll_dev_<op>_grid, a kernel\n"
          "                                        of min(128, sm_share, SMs) blocks of 512\n"
          "                                        threads, from -b to -e (default 128 MiB).\n"
          "                                        -w warm-up kernels (host: -w calls, a replay\n"
          "                                        at least), --timings kernels (replays), the\n"
          "                                        slowest PE; -r is dev_broadcast's root.\n"
          "                                        NCCL's device API has no such collective:\n"
          "                                        its column reads n/a\n"
          "  -d, --datatype LIST      int8 uint8 int32 uint32 int64 uint64 float16 bfloat16\n"
          "                           float32 float64 (also half float double int), or all\n"
          "                           (default float32)\n"
          "  -o, --redop LIST         sum prod min max and or xor, or all (default sum);\n"
          "                           and/or/xor run on integer types only\n"
          "  -r, --root PE            broadcast root, a team PE (default 0)\n"
          "      --skew uniform|S     alltoallv's counts, the same matrix on every PE and in\n"
          "                           every run (default uniform: count per PE to every PE,\n"
          "                           alltoall's traffic); S > 0: each PE spreads the same\n"
          "                           total over the PEs with Zipf weights 1/(rank+1)^S, the\n"
          "                           ranks a permutation drawn per PE. dst_capacity is the\n"
          "                           most any PE receives, which picks the algorithm\n"
          "                           With --op moe: Zipf weights over the experts, one\n"
          "                           ranking on every PE (the same experts are popular)\n"
          "      --team world|node|peers\n"
          "                           team to run on (default world); peers: the PEs of one\n"
          "                           local rank, one of each node (a team per local rank, all\n"
          "                           running at once; PE 0's team reports)\n"
          "\n"
          "MoE (--op moe: uint8 tokens of H bytes; the sizes are H, default 1k to 16k, -f 2):\n"
          "      --tokens T           tokens per PE (default 4096)\n"
          "      --experts E          experts per PE, at most 512 in the team (default 8)\n"
          "      --topk K             distinct experts per token (default 2)\n"
          "      --align A            each expert's group starts at a multiple of A tokens\n"
          "                           (PyTorch's major_align; the call gets A x H elements;\n"
          "                           default 1)\n"
          "                           The routing comes from a fixed seed (the same on every PE\n"
          "                           and run); each PE's src holds its tokens in expert order;\n"
          "                           dst_capacity is the fullest PE's aligned groups. The\n"
          "                           check covers the dispatch's layout, padding, recv_counts\n"
          "                           and recv_offsets and the combine's tokens. size: T x K x H\n"
          "                           (sent by each PE each way); time: dispatch + combine;\n"
          "                           algbw 2 x size / time, busbw algbw x (n-1)/n. --tune and\n"
          "                           --soak refuse it (they run alltoallv's algorithms)\n"
          "\n"
          "Timing (device events; the PEs meet in a barrier before each timing):\n"
          "  -n, --iters N            back-to-back calls per timing (default 20), as in\n"
          "                           nccl-tests; the number of PEs is symcoll-run's -n\n"
          "  -w, --warmup_iters N     calls before the timings (default 5)\n"
          "      --timings N          timings per case; the median is reported (default 7)\n"
          "  -G, --cudagraph N        graph mode: capture N calls per CUDA graph and time its\n"
          "                           replays (time per call is reported)\n"
          "      --mode stream|graph|both  which modes to run (default: graph when -G > 0,\n"
          "                           else stream; graph without -G captures -n calls)\n"
          "  -a, --average 0|1|2|3    time across PEs: 0 PE 0's, 1 mean (default), 2 min, 3 max\n"
          "  -c, --check 0|1          check results against a CPU reference on fresh random\n"
          "                           data on every PE (default 1); #wrong sums all PEs\n"
          "\n"
          "Soak:\n"
          "      --soak SECONDS       instead of the sweep: two streams on two teams run random\n"
          "                           collectives (random size, type, op, root; alltoallv with\n"
          "                           uniform counts; some captured in CUDA graphs and\n"
          "                           replayed), put_signals and halo exchanges for SECONDS,\n"
          "                           every result checked; fails on a wrong element, a leak\n"
          "                           of device memory or file descriptors (from the 50th\n"
          "                           round on), or when the median of the later half of a\n"
          "                           fixed probe's timings (8-byte reduces) is more than 25%\n"
          "                           above the earlier half's\n"
          "\n"
          "Tuning:\n"
          "      --tune [FILE]        instead of the sweep: time every algorithm of every\n"
          "                           collective that has several (those --op selects;\n"
          "                           alltoallv with uniform counts) with blocks 1, 2, 4, ...\n"
          "                           up to the SM count (at most 128, 16 for ll) and 128,\n"
          "                           256 or 512 threads, at every size, in\n"
          "                           graph mode, on the first -d type and -o op, unchecked;\n"
          "                           grids with under 1/8 of the blocks the size can use are\n"
          "                           skipped. Per size the fastest grid (slowest PE's time;\n"
          "                           within 2 % counts as fastest) wins, consecutive sizes\n"
          "                           with one winner merge into a row, and the rows go to\n"
          "                           FILE (default stdout) as a tuning file for\n"
          "                           SYMCOLL_TUNING_FILE, after a table of each choice beside\n"
          "                           the built-in one (lines starting with #)\n"
          "\n"
          "Comparison and output:\n"
          "      --compare nccl       time the same collective through NCCL in the same run,\n"
          "                           on plain buffers and on symmetric windows, and print our\n"
          "                           time over the better of the two (ratio < 1: we are faster)\n"
          "                           NCCL refuses two PEs on one GPU: where PEs share a GPU\n"
          "                           its columns read n/a (empty in the CSV), here and in\n"
          "                           --op halo, dev_barrier and dev_pingpong\n"
          "      --csv FILE           one row per (op, size, type, redop, mode)\n"
          "      --plot FILE.png      plot latency and bus bandwidth (python3 + matplotlib; the\n"
          "                           script is symcoll-perf-plot.py next to this program, or\n"
          "                           $SYMCOLL_PERF_PLOT)\n"
          "      --baseline FILE.csv  compare each stream and graph point with the same (op,\n"
          "                           size, type, redop, mode) in a --csv file saved earlier on\n"
          "                           this machine; print the points more than 5 % slower and\n"
          "                           those found on one side only; exit 1 if any is slower\n"
          "\n"
          "Without running anything:\n"
          "      --explain            for each size, the algorithm and grid that tuning picks,\n"
          "                           and why (no GPU, no launcher needed)\n"
          "      --topology-file FILE topology for --explain, as --topology and\n"
          "                           symcoll_topology_text print it: the PE count, then one\n"
          "                           row per PE of X, SAME, NV<k>, PIX, - or NET (a PE of\n"
          "                           another node: the job is planned across its nodes)\n"
          "      --npes N             team size for --explain without a topology file, all\n"
          "                           NVLink (default 2)\n"
          "      --nodes K            with --npes: the PEs on K nodes of contiguous ranks,\n"
          "                           NVLink inside each (default 1)\n"
          "      --sm-share N         SMs per PE for --explain (default: tuning's assumption):\n"
          "                           what symcoll_gpu_sharing reports when PEs share a GPU\n"
          "                           (a run's header prints it)\n"
          "      --topology           print the topology matrix after init (the form\n"
          "                           --topology-file reads), then exit\n"
          "  -h, --help               this text\n"
          "\n"
          "Environment: SYMCOLL_SYMMETRIC_SIZE (set to 3 x maxbytes + 64 MiB when unset);\n"
          "SYMCOLL_TUNING_FILE, a tuning table measured on this machine, goes before the\n"
          "built-in one (--explain names the source of each row);\n"
          "SYMCOLL_ALGO_<COLLECTIVE> forces an algorithm (--explain shows the effect):\n",
          out);
    perf_print_algorithms(out, "  ");
    fputs("Exit status: 0 success, 1 failure, wrong results or --baseline regressions, 2 bad\n"
          "flags, 77 no GPU.\n",
          out);
}
