/* symcoll_explain: the algorithm and grid a collective call takes, and why, asked the way the
 * call itself asks tuning, so that tools need no copy of the rules (symcoll-perf --explain
 * plans for jobs it does not run, hence the described job beside the teams of this one). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "env.h"
#include "nodes_plan.h"

#define FN "symcoll_explain"

/* What tuning weighs about the team a query names, and the settings it is asked under. */
typedef struct {
    int size;
    topo_class_t topo;
    int sm_count;
    const symcoll_tuning_file_t *file;
    const char *env_forced; /* SYMCOLL_ALGO_<COLLECTIVE> of those settings, "" for none */
    char whose[32];         /* the team in messages: "team 3", "the described job" */
    int nodes; /* a team across nodes: how many of them (size and topo are then its part of one
                  node's: one PE, or the node); else 0 */
    symcoll_status_t refusal; /* a team across nodes that the call would refuse, and why */
    char refusal_why[256];
} team_view_t;

static symcoll_status_t bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static symcoll_status_t bad(const char *fmt, ...) {
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, FN ": %s", text);
}

static symcoll_status_t check_query(const symcoll_explain_query_t *q) {
    if (q->version != SYMCOLL_EXPLAIN_VERSION)
        return bad("query->version %u: this library fills version %d (set it to "
                   "SYMCOLL_EXPLAIN_VERSION)",
                   (unsigned)q->version, SYMCOLL_EXPLAIN_VERSION);
    if (!symcoll_collective_algorithms(q->collective)[0])
        return bad("query->collective %d (%s) has no algorithms to choose from (give one "
                   "of:" SYMCOLL_COLLECTIVE_NAME_LIST ")",
                   (int)q->collective, symcoll_collective_name(q->collective));
    if (symcoll_collective_flow(q->collective) != SYMCOLL_FLOW_SYNC &&
        !symcoll_datatype_size(q->type))
        return bad("query->type %d is not a symcoll_datatype_t", (int)q->type);
    if (q->team == SYMCOLL_TEAM_INVALID && !q->topology)
        return bad("query->topology is NULL with team SYMCOLL_TEAM_INVALID (give a team of "
                   "this job, or the links of the job to explain)");
    if (q->team != SYMCOLL_TEAM_INVALID && q->topology)
        return bad("query->topology is given with team %d, which has the links of this job (give "
                   "SYMCOLL_TEAM_INVALID to explain a described job)",
                   (int)q->team);
    if (q->team != SYMCOLL_TEAM_INVALID && q->sm_count != 0)
        return bad("query->sm_count %d with team %d, whose SM share init agreed (give 0)",
                   q->sm_count, (int)q->team);
    if (q->sm_count < 0)
        return bad("query->sm_count %d is negative (give 0 for tuning's assumption)", q->sm_count);
    return SYMCOLL_SUCCESS;
}

/* The settings a described job reads: after init the ones init read; before init the
 * environment of now, as init would read it, parsed into *local and left unpublished, since
 * publishing would change the settings under another thread's init or collectives. */
static symcoll_status_t read_settings(symcoll_env_t *local, const symcoll_env_t **settings) {
    *settings = symcoll_g.initialized ? symcoll_env() : local;
    if (symcoll_g.initialized)
        return SYMCOLL_SUCCESS;
    if (symcoll_env_parse(local) == SYMCOLL_SUCCESS)
        return SYMCOLL_SUCCESS;
    char why[256];
    snprintf(why, sizeof why, "%s", symcoll_last_error());
    return bad("%s", why);
}

/* A team across nodes, PEs start + i * stride (i < size) of a job laid out as job, the links of
 * a node's PEs node_topo: the plan's view (how many nodes, and the size and link of the team's
 * part of one node), or the refusal that the call would give, as the calls check it after their
 * own checks. */
static void across_nodes(symcoll_collective_t collective, const symcoll_nodes_layout_t *job,
                         int start, int stride, int size, topo_class_t node_topo,
                         team_view_t *view) {
    int first[SYMCOLL_MAX_PES], per_node = 0;
    view->refusal =
        collective == SYMCOLL_COLL_BARRIER
            ? symcoll_nodes_runs_in(FN, view->whose, job, start, stride, size, first, &view->nodes)
            : symcoll_nodes_parts_in(FN, view->whose, job, start, stride, size, &view->nodes,
                                     &per_node);
    if (view->refusal != SYMCOLL_SUCCESS) {
        snprintf(view->refusal_why, sizeof view->refusal_why, "%s", symcoll_last_error());
        view->nodes = 0;
        return;
    }
    if (collective == SYMCOLL_COLL_BARRIER) /* the node's part: its first one stands for all */
        per_node = view->nodes > 1 ? first[1] : size;
    view->size = per_node;
    /* The node's link where the team holds the node; one PE of it needs no link. */
    view->topo = view->size > 1 ? node_topo : TOPO_SAME_GPU;
}

/* The slowest link inside any node of a described job laid out as job. */
static topo_class_t nodes_class(const symcoll_topology_t *topo, const symcoll_nodes_layout_t *job) {
    topo_class_t worst = TOPO_SAME_GPU;
    for (int k = 0; k < job->n_nodes; k++) {
        topo_class_t c =
            symcoll_topology_team_class(topo, job->leaders[k], 1, symcoll_nodes_size(job, k));
        worst = c > worst ? c : worst;
    }
    return worst;
}

/* A described job: every PE of topology in the team, across the nodes its NET links make; its
 * tuning file is loaded into *file, checked against the whole job as init checks it. */
static symcoll_status_t described_team(const symcoll_explain_query_t *q, team_view_t *view,
                                       symcoll_tuning_file_t *file) {
    symcoll_env_t local;
    const symcoll_env_t *settings;
    symcoll_status_t st = read_settings(&local, &settings);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_topology_t *topo = malloc(sizeof *topo);
    if (!topo)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, FN ": out of host memory");
    char why[256];
    if (symcoll_topology_parse(q->topology, topo, why, sizeof why) != 0) {
        free(topo);
        return bad("query->topology does not parse: %s", why);
    }
    *view = (team_view_t){
        .size = topo->n_pes,
        .topo = symcoll_topology_team_class(topo, 0, 1, topo->n_pes),
        .sm_count = q->sm_count,
        .file = file,
        .env_forced = symcoll_env_algo_in(settings, q->collective),
        .whose = "the described job",
    };
    st = symcoll_tuning_file_open(FN, settings->tuning_file, view->size, view->topo, file);
    int leaders[SYMCOLL_TOPO_MAX_PES];
    symcoll_nodes_layout_t job = {symcoll_topology_nodes(topo, leaders), topo->n_pes, leaders};
    if (st == SYMCOLL_SUCCESS && job.n_nodes != 1)
        across_nodes(q->collective, &job, 0, 1, topo->n_pes, nodes_class(topo, &job), view);
    free(topo);
    return st;
}

static symcoll_status_t job_team(symcoll_team_t team, symcoll_collective_t collective,
                                 team_view_t *view) {
    symcoll_team_state_t *t = NULL;
    symcoll_status_t st = symcoll_team_for_call(FN, team, &t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *view = (team_view_t){
        .size = t->size,
        .topo = t->topo_class,
        .sm_count = symcoll_g.sm_count,
        .file = &symcoll_g.tuning_file,
        .env_forced = symcoll_env_algo(collective),
    };
    snprintf(view->whose, sizeof view->whose, "team %d", (int)t->handle);
    if (symcoll_nodes_spans(t)) {
        symcoll_nodes_layout_t job = symcoll_nodes_job();
        across_nodes(collective, &job, t->start, t->stride, t->size,
                     symcoll_g.teams[SYMCOLL_TEAM_NODE].topo_class, view);
    }
    return SYMCOLL_SUCCESS;
}

/* The plan of a collective on a team across nodes (collectives/nodes_*.c). */
static const char *nodes_plan(symcoll_collective_t collective) {
    switch (collective) {
    case SYMCOLL_COLL_BARRIER:
        return "node barrier, leaders meet through the proxy, node barrier";
    case SYMCOLL_COLL_BROADCAST:
        return "root to its peer on each node, then each node broadcasts";
    case SYMCOLL_COLL_REDUCE:
        return "node reduce, shards swapped with peers and combined, node shares them";
    case SYMCOLL_COLL_REDUCE_SCATTER:
        return "node reduce_scatter per node, parts to peers, combined";
    case SYMCOLL_COLL_FCOLLECT:
        return "blocks to peers of other nodes, node fcollects";
    case SYMCOLL_COLL_ALLTOALL:
        return "blocks straight to other nodes' PEs, node alltoall";
    case SYMCOLL_COLL_ALLTOALLV:
        return "counts to every PE, then segments: node peers by stores, other nodes through the "
               "proxy";
    default:
        return NULL;
    }
}

/* Bytes in the convention tuning decides by (collective_common.h's tuning_bytes). */
static symcoll_status_t tuning_bytes(const symcoll_explain_query_t *q, int team_size,
                                     size_t *bytes) {
    *bytes = 0;
    switch (symcoll_collective_flow(q->collective)) {
    case SYMCOLL_FLOW_SYNC:
        return SYMCOLL_SUCCESS;
    case SYMCOLL_FLOW_GATHER:
    case SYMCOLL_FLOW_EXCHANGE:
    case SYMCOLL_FLOW_REDUCE_SCATTER:
        return symcoll_check_count(FN, "query->count", q->count,
                                   symcoll_datatype_size(q->type) * (size_t)team_size, bytes);
    case SYMCOLL_FLOW_ONE_TO_ALL:
    case SYMCOLL_FLOW_REDUCE:
    case SYMCOLL_FLOW_EXCHANGE_COUNTED: /* alltoallv's count is dst_capacity, as it decides */
        break;
    }
    return symcoll_check_count(FN, "query->count", q->count, symcoll_datatype_size(q->type), bytes);
}

static void describe(const team_view_t *view, const char *algorithm, int blocks, int threads,
                     symcoll_choice_source_t source, const char *why, symcoll_explanation_t *out) {
    snprintf(out->algorithm, sizeof out->algorithm, "%s", algorithm);
    out->blocks = blocks;
    out->threads = threads;
    out->source = source;
    snprintf(out->link, sizeof out->link, "%s", symcoll_topo_class_name(view->topo));
    snprintf(out->why, sizeof out->why, "%s", why);
}

/* In the order the call itself checks: a data collective of count 0 returns before it looks
 * at the team's links, so it succeeds on a team without load/store paths too. alltoallv
 * launches whatever its capacity: its counts are on the device, and recv_counts are written. */
static symcoll_status_t choose(const symcoll_explain_query_t *q, const team_view_t *view,
                               symcoll_explanation_t *out) {
    size_t bytes;
    symcoll_status_t st = tuning_bytes(q, view->size, &bytes);
    if (st != SYMCOLL_SUCCESS)
        return st;
    const symcoll_flow_t flow = symcoll_collective_flow(q->collective);
    if (!bytes && flow != SYMCOLL_FLOW_SYNC && flow != SYMCOLL_FLOW_EXCHANGE_COUNTED) {
        describe(view, "", 0, 0, SYMCOLL_CHOICE_FIXED, "nothing to move (count 0)", out);
        return SYMCOLL_SUCCESS;
    }
    if (view->refusal != SYMCOLL_SUCCESS)
        return symcoll_set_error(view->refusal, "%s", view->refusal_why);
    const char *plan = view->nodes ? nodes_plan(q->collective) : NULL;
    st = symcoll_check_p2p(FN, view->whose, view->nodes && !plan ? TOPO_NO_P2P : view->topo);
    if (st != SYMCOLL_SUCCESS)
        return st;
    char why[sizeof out->why] = "";
    if (plan && q->collective == SYMCOLL_COLL_ALLTOALLV) {
        snprintf(why, sizeof why, "across %d nodes (%s): fixed kernels, no algorithm to choose",
                 view->nodes, plan);
        describe(view, "", 0, 0, SYMCOLL_CHOICE_FIXED, why, out);
        return SYMCOLL_SUCCESS;
    }
    if (plan && view->size == 1 && flow != SYMCOLL_FLOW_SYNC) {
        snprintf(why, sizeof why, "across %d nodes (%s); one PE per node: its steps are copies",
                 view->nodes, plan);
        describe(view, "", 0, 0, SYMCOLL_CHOICE_FIXED, why, out);
        return SYMCOLL_SUCCESS;
    }
    size_t elem_size = bytes ? symcoll_datatype_size(q->type) : 0;
    symcoll_tuning_query_t query =
        symcoll_coll_query(q->collective, bytes, elem_size, view->size, view->topo, view->sm_count,
                           view->env_forced, view->file);
    symcoll_choice_t choice;
    st = symcoll_tuning_select(&query, &choice);
    if (st != SYMCOLL_SUCCESS)
        return symcoll_set_error(st, FN ": %s", choice.why);
    if (plan) {
        snprintf(why, sizeof why, "across %d nodes (%s); in each node: ", view->nodes, plan);
        strncat(why, choice.why, sizeof why - strlen(why) - 1);
    }
    describe(view, choice.name, choice.blocks, choice.threads, choice.source,
             plan ? why : choice.why, out);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_explain(const symcoll_explain_query_t *query, symcoll_explanation_t *out) {
    if (!out)
        return bad("out is NULL");
    memset(out, 0, sizeof *out);
    if (!query)
        return bad("query is NULL");
    symcoll_status_t st = check_query(query);
    if (st != SYMCOLL_SUCCESS)
        return st;
    team_view_t view;
    if (query->team != SYMCOLL_TEAM_INVALID) {
        st = job_team(query->team, query->collective, &view);
        return st == SYMCOLL_SUCCESS ? choose(query, &view, out) : st;
    }
    symcoll_tuning_file_t file;
    memset(&file, 0, sizeof file);
    st = described_team(query, &view, &file);
    if (st == SYMCOLL_SUCCESS)
        st = choose(query, &view, out);
    symcoll_tuning_file_free(&file);
    return st;
}
