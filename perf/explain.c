#include "explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "choice.h"
#include "topology_text.h"

/* NVLinks between two H200s of an HGX board, for the assumed all-NVLink topology. */
#define ASSUMED_NVLINKS 18

/* A topology of SYMCOLL_MAX_PES PEs takes well under this. */
#define MAX_TOPOLOGY_FILE_BYTES (1 << 20)

static char *read_file(const char *path, FILE *err) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(err, "symcoll-perf: --topology-file %s: cannot open it: %s\n", path,
                strerror(errno));
        return NULL;
    }
    char *text = malloc(MAX_TOPOLOGY_FILE_BYTES + 1);
    size_t len = text ? fread(text, 1, MAX_TOPOLOGY_FILE_BYTES, f) : 0;
    bool complete = text != NULL && feof(f) && !ferror(f);
    fclose(f);
    if (!complete) {
        fprintf(err, "symcoll-perf: --topology-file %s: cannot read it (at most %d bytes)\n", path,
                MAX_TOPOLOGY_FILE_BYTES);
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* The text of npes PEs on `nodes` nodes of contiguous ranks, joined pairwise by NVLink inside a
 * node and NET across, in symcoll_topology_text's form. */
static char *assumed_text(int npes, int nodes) {
    size_t cap = 16 + (size_t)npes * npes * 8;
    char *text = malloc(cap);
    if (text == NULL) {
        return NULL;
    }
    size_t len = (size_t)snprintf(text, cap, "%d\n", npes);
    const int per_node = npes / nodes;
    for (int i = 0; i < npes; i++) {
        for (int j = 0; j < npes; j++) {
            const char *sep = j + 1 < npes ? " " : "\n";
            len += i == j ? (size_t)snprintf(text + len, cap - len, "X%s", sep)
                   : i / per_node != j / per_node
                       ? (size_t)snprintf(text + len, cap - len, "NET%s", sep)
                       : (size_t)snprintf(text + len, cap - len, "NV%d%s", ASSUMED_NVLINKS, sep);
        }
    }
    return text;
}

/* The text of the topology to explain (the library checks it); NULL after saying why on err. */
static char *load_topology(const perf_args_t *a, FILE *err) {
    if (a->topology_file == NULL) {
        char *text = assumed_text(a->npes, a->nodes);
        if (text == NULL) {
            fprintf(err, "symcoll-perf: --explain: out of host memory\n");
        }
        return text;
    }
    return read_file(a->topology_file, err);
}

/* What every row of the explanation shares. */
typedef struct {
    FILE *out, *err;
    int npes;
    const char *topology; /* the text the library explains for */
    int sm_share;         /* 0: tuning's default */
} explainer_t;

static int explain_row(const explainer_t *x, const perf_call_t *call, const char *type_name,
                       size_t bytes) {
    const char *name = perf_op_info(call->op)->name;
    symcoll_explanation_t choice;
    if (perf_choose(call, SYMCOLL_TEAM_INVALID, x->topology, x->sm_share, &choice) !=
        SYMCOLL_SUCCESS) {
        fprintf(x->err, "symcoll-perf: %s: %s\n", name, symcoll_last_error());
        return -1;
    }
    fprintf(x->out, "  %9s %12zu %12zu %9s  %-16s %6d %7d  %s\n", name, bytes, call->count,
            type_name, choice.algorithm, choice.blocks, choice.threads, choice.why);
    return 0;
}

/* The header and one row per op, type and size. */
static int explain_rows(const perf_args_t *a, const explainer_t *x) {
    size_t sizes[PERF_MAX_SIZES];
    size_t n_sizes = perf_size_list(a, sizes, PERF_MAX_SIZES);
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        if (!a->ops[op]) {
            continue;
        }
        if (op == PERF_OP_BARRIER) {
            perf_call_t barrier = {.op = PERF_OP_BARRIER};
            if (explain_row(x, &barrier, "none", 0) != 0) {
                return 1;
            }
            continue;
        }
        for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
            if (!a->types[t]) {
                continue;
            }
            perf_call_t call = {.op = (perf_op_t)op, .type = (symcoll_datatype_t)t};
            size_t elem = symcoll_datatype_size(call.type);
            for (size_t s = 0; s < n_sizes; s++) {
                call.count = perf_op_count(call.op, sizes[s], elem, x->npes);
                if (call.count == 0) {
                    continue;
                }
                size_t bytes = perf_op_bytes(call.op, call.count, elem, x->npes);
                if (explain_row(x, &call, symcoll_datatype_name(call.type), bytes) != 0) {
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* The PEs per GPU come from the topology; the SM share, which only a run can learn from the
 * library, from --sm-share. */
static void print_gpu_sharing(FILE *out, const char *topology, int sm_share) {
    int pes = perf_topology_pes_per_gpu(topology);
    fprintf(out, "# gpu sharing: ");
    if (pes > 1) {
        fprintf(out, "up to %d PEs on one GPU (SAME in the topology; NCCL cannot run), ", pes);
    } else {
        fprintf(out, "a GPU per PE, ");
    }
    if (sm_share > 0) {
        fprintf(out, "SM share %d (--sm-share)\n", sm_share);
    } else {
        fprintf(out, "SM share: tuning's default (--sm-share gives the library's)\n");
    }
}

/* Where the rows come from: the library has checked SYMCOLL_TUNING_FILE against the topology. */
static void print_rows_source(FILE *out) {
    const char *path = getenv("SYMCOLL_TUNING_FILE");
    if (path != NULL && path[0] != '\0') {
        fprintf(out, "# rows: tuning file %s ahead of the built-in table\n", path);
    } else {
        fputs("# rows: the built-in table (SYMCOLL_TUNING_FILE unset)\n", out);
    }
}

int perf_explain(const perf_args_t *a, FILE *out, FILE *err) {
    char *text = load_topology(a, err);
    if (text == NULL) {
        return 2;
    }
    const char *source = a->topology_file ? a->topology_file
                         : a->nodes > 1   ? "--npes and --nodes (NVLink inside a node, assumed)"
                                          : "--npes (all NVLink, assumed)";
    /* A barrier has no size: its explanation checks the topology, the settings and the tuning
     * file once, before any row, and names the team's slowest link. */
    perf_call_t barrier = {.op = PERF_OP_BARRIER};
    symcoll_explanation_t job;
    int rc = 0;
    if (perf_choose(&barrier, SYMCOLL_TEAM_INVALID, text, a->sm_share, &job) != SYMCOLL_SUCCESS) {
        fprintf(err, "symcoll-perf: --explain (topology from %s): %s\n", source,
                symcoll_last_error());
        rc = 2;
    }
    int npes = perf_topology_n_pes(text);
    if (rc == 0 && a->ops[PERF_OP_BROADCAST] && a->root >= npes) {
        fprintf(err, "symcoll-perf: -r/--root %d out of range for %d PEs\n", a->root, npes);
        rc = 2;
    }
    if (rc == 0) {
        /* A job across nodes: symcoll_explain's why starts "across N nodes". */
        int nodes = 1;
        if (sscanf(job.why, "across %d nodes", &nodes) == 1 && nodes == npes) {
            fprintf(out,
                    "# symcoll-perf --explain: %d PEs on %d nodes, one PE per node, topology "
                    "from %s\n",
                    npes, nodes, source);
        } else if (nodes > 1) {
            fprintf(out,
                    "# symcoll-perf --explain: %d PEs on %d nodes, slowest link inside a node %s, "
                    "topology from %s\n",
                    npes, nodes, job.link, source);
        } else {
            fprintf(out, "# symcoll-perf --explain: %d PEs, slowest link %s, topology from %s\n",
                    npes, job.link, source);
        }
        perf_print_topology(out, text, "#   ");
        print_gpu_sharing(out, text, a->sm_share);
        print_rows_source(out);
        fputs("# SYMCOLL_ALGO_<COLLECTIVE> forces a choice:\n", out);
        perf_print_algorithms(out, "#   ");
        fprintf(out, "# %9s %12s %12s %9s  %-16s %6s %7s  %s\n", "op", "size (B)", "count", "type",
                "algorithm", "blocks", "threads", "why");
        explainer_t x = {out, err, npes, text, a->sm_share};
        rc = explain_rows(a, &x);
    }
    free(text);
    return rc;
}
