#include "explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "choice.h"
#include "gpu_sharing.h"

/* NVLinks between two H200s of an HGX board, for the assumed all-NVLink topology. */
#define ASSUMED_NVLINKS 18

/* A topology of SYMCOLL_TOPO_MAX_PES PEs takes well under this. */
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

/* The text of npes PEs joined pairwise by NVLink, in symcoll_topology_parse's format. */
static char *all_nvlink_text(int npes) {
    size_t cap = 16 + (size_t)npes * npes * 8;
    char *text = malloc(cap);
    if (text == NULL) {
        return NULL;
    }
    size_t len = (size_t)snprintf(text, cap, "%d\n", npes);
    for (int i = 0; i < npes; i++) {
        for (int j = 0; j < npes; j++) {
            len += i == j ? (size_t)snprintf(text + len, cap - len, "X ")
                          : (size_t)snprintf(text + len, cap - len, "NV%d ", ASSUMED_NVLINKS);
        }
        len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    return text;
}

static int load_topology(const perf_args_t *a, symcoll_topology_t *topo, FILE *err) {
    const char *source = a->topology_file ? a->topology_file : "the assumed all-NVLink topology";
    char *text = a->topology_file ? read_file(a->topology_file, err) : all_nvlink_text(a->npes);
    if (text == NULL) {
        return -1;
    }
    char why[256];
    int rc = symcoll_topology_parse(text, topo, why, sizeof why);
    free(text);
    if (rc != 0) {
        fprintf(err, "symcoll-perf: --topology-file %s: %s\n", source, why);
    }
    return rc;
}

void perf_print_topology(FILE *out, const symcoll_topology_t *topo, const char *prefix) {
    size_t cap = 4096;
    char *text = malloc(cap);
    size_t needed;
    while (text != NULL && (needed = symcoll_topology_format(topo, text, cap)) >= cap) {
        free(text);
        cap = needed + 1;
        text = malloc(cap);
    }
    if (text == NULL) {
        return;
    }
    char *rest;
    for (char *line = strtok_r(text, "\n", &rest); line != NULL;
         line = strtok_r(NULL, "\n", &rest)) {
        fprintf(out, "%s%s\n", prefix, line);
    }
    free(text);
}

/* What every row of the explanation shares. */
typedef struct {
    FILE *out, *err;
    int npes;
    topo_class_t cls;
    int sm_share; /* 0: tuning's default */
    const symcoll_tuning_file_t *file;
} explainer_t;

static int explain_row(const explainer_t *x, perf_op_t op, const char *type_name, size_t bytes,
                       size_t count, size_t elem_size) {
    FILE *out = x->out, *err = x->err;
    symcoll_choice_t choice;
    symcoll_status_t st =
        perf_choose(op, bytes, elem_size, x->npes, x->cls, x->sm_share, x->file, &choice);
    if (st != SYMCOLL_SUCCESS) {
        fprintf(err, "symcoll-perf: %s: %s\n", perf_op_info(op)->name, choice.why);
        return -1;
    }
    fprintf(out, "  %9s %12zu %12zu %9s  %-16s %6d %7d  %s\n", perf_op_info(op)->name, bytes, count,
            type_name, choice.name, choice.blocks, choice.threads, choice.why);
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
            if (explain_row(x, PERF_OP_BARRIER, "none", 0, 0, 0) != 0) {
                return 1;
            }
            continue;
        }
        for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
            if (!a->types[t]) {
                continue;
            }
            size_t elem = symcoll_datatype_size((symcoll_datatype_t)t);
            const char *type_name = symcoll_datatype_name((symcoll_datatype_t)t);
            for (size_t s = 0; s < n_sizes; s++) {
                size_t count = perf_op_count((perf_op_t)op, sizes[s], elem, x->npes);
                if (count == 0) {
                    continue;
                }
                size_t bytes = perf_op_bytes((perf_op_t)op, count, elem, x->npes);
                if (explain_row(x, (perf_op_t)op, type_name, bytes, count, elem) != 0) {
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* The PEs per GPU come from the topology; the SM share, which only a run can learn from the
 * library, from --sm-share. */
static void print_gpu_sharing(FILE *out, const symcoll_topology_t *topo, int sm_share) {
    int pes = perf_topology_pes_per_gpu(topo);
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

int perf_explain(const perf_args_t *a, FILE *out, FILE *err) {
    symcoll_topology_t topo;
    if (load_topology(a, &topo, err) != 0) {
        return 2;
    }
    int npes = topo.n_pes;
    if (a->ops[PERF_OP_BROADCAST] && a->root >= npes) {
        fprintf(err, "symcoll-perf: -r/--root %d out of range for %d PEs\n", a->root, npes);
        return 2;
    }
    topo_class_t cls = symcoll_topology_team_class(&topo, 0, 1, npes);
    symcoll_tuning_file_t file;
    if (perf_load_tuning_file(&file, npes, cls, err) != 0) {
        return 2;
    }
    fprintf(out, "# symcoll-perf --explain: %d PEs, slowest link %s, topology from %s\n", npes,
            symcoll_topo_class_name(cls),
            a->topology_file ? a->topology_file : "--npes (all NVLink, assumed)");
    perf_print_topology(out, &topo, "#   ");
    print_gpu_sharing(out, &topo, a->sm_share);
    if (file.n_rows > 0) {
        fprintf(out,
                "# rows: tuning file %s (%zu rows, measured on %d PEs over %s) ahead of the "
                "built-in table\n",
                file.path, file.n_rows, file.n_pes, symcoll_topo_class_name(file.topo));
    } else {
        fputs("# rows: the built-in table (SYMCOLL_TUNING_FILE unset)\n", out);
    }
    fputs("# SYMCOLL_ALGO_<COLLECTIVE> forces a choice:\n", out);
    perf_print_algorithms(out, "#   ");
    fprintf(out, "# %9s %12s %12s %9s  %-16s %6s %7s  %s\n", "op", "size (B)", "count", "type",
            "algorithm", "blocks", "threads", "why");
    explainer_t x = {out, err, npes, cls, a->sm_share, &file};
    int rc = explain_rows(a, &x);
    symcoll_tuning_file_free(&file);
    return rc;
}
