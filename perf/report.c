#include "report.h"

#include <string.h>

double perf_row_ratio(const perf_row_t *row) {
    double best = row->nccl_us;
    if (row->nccl_sym_us >= 0 && (best < 0 || row->nccl_sym_us < best)) {
        best = row->nccl_sym_us;
    }
    return best > 0 ? row->time_us / best : -1.0;
}

/* Algorithm names come from tuning/; quote one that would break the CSV. */
static void csv_text(FILE *out, const char *text) {
    if (strpbrk(text, ",\"\n") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"') {
            fputc('"', out);
        }
        fputc(*c, out);
    }
    fputc('"', out);
}

/* A measured value, or an empty field. */
static void csv_number(FILE *out, bool present, double value) {
    if (present) {
        fprintf(out, "%.3f", value);
    }
}

void perf_csv_header(FILE *out) {
    fputs("op,bytes,count,type,redop,root,mode,npes,algorithm,time_us,algbw_gbps,busbw_gbps,"
          "wrong,nccl_time_us,nccl_sym_time_us\n",
          out);
}

FILE *perf_csv_create(const char *path) {
    FILE *out = fopen(path, "w");
    if (out != NULL) {
        perf_csv_header(out);
    }
    return out;
}

void perf_csv_row(FILE *out, const perf_row_t *r) {
    fprintf(out, "%s,%zu,%zu,%s,%s,%d,%s,%d,", r->op, r->bytes, r->count, r->type, r->redop,
            r->root, r->mode, r->npes);
    csv_text(out, r->algorithm);
    fputc(',', out);
    csv_number(out, true, r->time_us);
    fputc(',', out);
    csv_number(out, r->has_bandwidth, r->algbw_gbps);
    fputc(',', out);
    csv_number(out, r->has_bandwidth, r->busbw_gbps);
    fputc(',', out);
    if (r->wrong >= 0) {
        fprintf(out, "%lld", r->wrong);
    }
    fputc(',', out);
    csv_number(out, r->nccl_us >= 0, r->nccl_us);
    fputc(',', out);
    csv_number(out, r->nccl_sym_us >= 0, r->nccl_sym_us);
    fputc('\n', out);
    fflush(out);
}

/* A number in a column of width, or a dash when absent. */
static void table_number(FILE *out, int width, int decimals, bool present, double value) {
    if (present) {
        fprintf(out, " %*.*f", width, decimals, value);
    } else {
        fprintf(out, " %*s", width, "-");
    }
}

/* A count of wrong elements in a column of width, or N/A when not checked (wrong < 0). */
static void table_wrong(FILE *out, int width, long long wrong) {
    if (wrong >= 0) {
        fprintf(out, " %*lld", width, wrong);
    } else {
        fprintf(out, " %*s", width, "N/A");
    }
}

void perf_nccl_number(FILE *out, perf_nccl_columns_t nccl, int width, int decimals, bool present,
                      double value) {
    if (nccl == PERF_NCCL_NA) {
        fprintf(out, " %*s", width, "n/a");
    } else {
        table_number(out, width, decimals, present, value);
    }
}

void perf_nccl_na_line(FILE *out) {
    fputs("# nccl: n/a: PEs share a GPU\n", out);
}

void perf_nccl_uncapturable_line(FILE *out, const char *op) {
    fprintf(out,
            "# nccl: n/a for %s: cannot be captured (host sync: NCCL needs the counts on the "
            "host)\n",
            op);
}

void perf_table_header(FILE *out, const char *mode, perf_nccl_columns_t nccl) {
    bool compare = nccl != PERF_NCCL_OFF;
    fprintf(out, "#\n# %s mode\n", mode);
    if (nccl == PERF_NCCL_NA) {
        perf_nccl_na_line(out);
    }
    fprintf(out, "# %9s %12s %12s %9s %6s %5s %9s %8s %8s %7s", "op", "size", "count", "type",
            "redop", "root", "time", "algbw", "busbw", "#wrong");
    if (compare) {
        fprintf(out, " %9s %9s %6s", "nccl", "nccl-sym", "ratio");
    }
    fputs("  algorithm\n", out);
    fprintf(out, "# %9s %12s %12s %9s %6s %5s %9s %8s %8s %7s", "", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)", "");
    if (compare) {
        fprintf(out, " %9s %9s %6s", "(us)", "(us)", "");
    }
    fputs("  (blocks x threads)\n", out);
}

void perf_table_row(FILE *out, const perf_row_t *r, perf_nccl_columns_t nccl) {
    fprintf(out, "  %9s %12zu %12zu %9s %6s %5d", r->op, r->bytes, r->count, r->type, r->redop,
            r->root);
    table_number(out, 9, 2, true, r->time_us);
    table_number(out, 8, 2, r->has_bandwidth, r->algbw_gbps);
    table_number(out, 8, 2, r->has_bandwidth, r->busbw_gbps);
    table_wrong(out, 7, r->wrong);
    if (nccl != PERF_NCCL_OFF) {
        double ratio = perf_row_ratio(r);
        perf_nccl_columns_t row_nccl = r->nccl_na ? PERF_NCCL_NA : nccl;
        perf_nccl_number(out, row_nccl, 9, 2, r->nccl_us >= 0, r->nccl_us);
        perf_nccl_number(out, row_nccl, 9, 2, r->nccl_sym_us >= 0, r->nccl_sym_us);
        perf_nccl_number(out, row_nccl, 6, 2, ratio >= 0, ratio);
    }
    fprintf(out, "  %s", r->algorithm);
    if (r->blocks > 0) {
        fprintf(out, " (%dx%d)", r->blocks, r->threads);
    }
    fputc('\n', out);
    fflush(out);
}

void perf_first_call_header(FILE *out) {
    fputs("#\n# first calls: the first call of each collective in this process (cold) and the "
          "median of\n# later calls (warm), each one call + stream sync on the host clock, "
          "slowest PE\n",
          out);
    fprintf(out, "# %9s %12s %9s %9s %9s %9s\n", "op", "size", "type", "cold", "warm", "cold-warm");
    fprintf(out, "# %9s %12s %9s %9s %9s %9s\n", "", "(B)", "", "(us)", "(us)", "(us)");
}

void perf_first_call_row(FILE *out, const char *op, size_t bytes, const char *type, double cold_us,
                         double warm_us) {
    fprintf(out, "  %9s %12zu %9s %9.2f %9.2f %9.2f\n", op, bytes, type, cold_us, warm_us,
            cold_us - warm_us);
    fflush(out);
}

void perf_dev_table_header(FILE *out, const char *units, perf_nccl_columns_t nccl) {
    if (nccl == PERF_NCCL_NA) {
        perf_nccl_na_line(out);
    }
    fprintf(out,
            "# times: %s of the slowest PE, median and min over the timed kernels; ratio: "
            "symcoll over nccl-lsa (< 1: we are faster)\n",
            units);
    fprintf(out, "# %12s %16s %7s %9s %9s %7s %9s %9s %7s %6s\n", "op", "kind", "bytes", "symcoll",
            "min", "#wrong", "nccl-lsa", "min", "#wrong", "ratio");
    fprintf(out, "# %12s %16s %7s %9s %9s %7s %9s %9s %7s %6s\n", "", "", "(B)", "(us)", "(us)", "",
            "(us)", "(us)", "", "");
}

static void dev_time_columns(FILE *out, const perf_dev_time_t *t, perf_nccl_columns_t nccl) {
    perf_nccl_number(out, nccl, 9, 2, t->us >= 0, t->us);
    perf_nccl_number(out, nccl, 9, 2, t->us >= 0, t->min_us);
    if (nccl == PERF_NCCL_NA) {
        fprintf(out, " %7s", "n/a");
    } else {
        table_wrong(out, 7, t->wrong);
    }
}

void perf_dev_table_row(FILE *out, const perf_dev_row_t *r, perf_nccl_columns_t nccl) {
    fprintf(out, "  %12s %16s %7zu", r->op, r->kind, r->bytes);
    dev_time_columns(out, &r->symcoll, PERF_NCCL_ON);
    dev_time_columns(out, &r->nccl, nccl);
    bool ratio = r->symcoll.us >= 0 && r->nccl.us > 0;
    perf_nccl_number(out, nccl, 6, 2, ratio, ratio ? r->symcoll.us / r->nccl.us : 0);
    fputc('\n', out);
    fflush(out);
}

static void dev_csv_row(FILE *out, const perf_dev_row_t *r, const char *impl,
                        const perf_dev_time_t *t, double nccl_us) {
    perf_row_t row = {.op = r->op,
                      .mode = r->kind,
                      .bytes = r->bytes,
                      .count = (size_t)r->iters,
                      .type = "none",
                      .redop = "none",
                      .root = -1,
                      .npes = r->npes,
                      .algorithm = impl,
                      .time_us = t->us,
                      .wrong = t->wrong,
                      .nccl_us = nccl_us,
                      .nccl_sym_us = -1};
    perf_csv_row(out, &row);
}

void perf_dev_csv_rows(FILE *out, const perf_dev_row_t *r) {
    dev_csv_row(out, r, "symcoll", &r->symcoll, r->nccl.us);
    if (r->nccl.us >= 0) {
        dev_csv_row(out, r, "nccl-lsa", &r->nccl, -1);
    }
}

void perf_dev_coll_nccl_line(FILE *out, const bool selected[PERF_DEV_NUM_COLLS]) {
    fputs("# nccl: n/a: NCCL's device API has no in-kernel collective (", out);
    const char *separator = "";
    for (int c = 0; c < PERF_DEV_NUM_COLLS; c++) {
        if (selected[c]) {
            fprintf(out, "%s%s", separator,
                    perf_op_info(perf_dev_coll_op((perf_dev_coll_t)c))->nccl_name);
            separator = ", ";
        }
    }
    fputs(") to call, only building blocks (barriers, LSA and multimem pointers, GIN, "
          "ncclLLA2ASession); --op dev_barrier times its LSA barrier\n",
          out);
}

/* The columns of the in-kernel collectives' tables, and their units. */
#define DEV_COLL_COLUMNS "# %13s %5s %12s %11s %9s %9s %9s %8s %9s %10s %9s %10s %5s\n"

void perf_dev_coll_table_header(FILE *out) {
    fprintf(out, DEV_COLL_COLUMNS, "op", "scope", "size", "count", "dev", "dev-min", "host",
            "dev/host", "dev-busbw", "host-busbw", "dev-wrong", "host-wrong", "nccl");
    fprintf(out, DEV_COLL_COLUMNS, "", "", "(B)", "(elements)", "(us)", "(us)", "(us)", "",
            "(GB/s)", "(GB/s)", "", "", "");
}

/* "dev_reduce", ...: the row's op as --op names it. */
static void dev_coll_op_name(const perf_dev_coll_row_t *r, char *name, size_t len) {
    snprintf(name, len, "dev_%s", perf_op_info(r->op)->name);
}

static size_t dev_coll_bytes(const perf_dev_coll_row_t *r) {
    return perf_op_bytes(r->op, r->count, sizeof(float), r->npes);
}

/* The bus bandwidth of the row's call in us; negative when the op moves no data or was not
 * measured. */
static double dev_coll_busbw(const perf_dev_coll_row_t *r, double us) {
    double (*factor)(int) = perf_op_info(r->op)->busbw_factor;
    return factor != NULL && us >= 0 ? perf_algbw_gbps(dev_coll_bytes(r), us) * factor(r->npes)
                                     : -1;
}

void perf_dev_coll_table_row(FILE *out, const perf_dev_coll_row_t *r) {
    char op[32];
    dev_coll_op_name(r, op, sizeof op);
    fprintf(out, "  %13s %5s %12zu %11zu", op, r->scope, dev_coll_bytes(r), r->count);
    table_number(out, 9, 2, r->device.us >= 0, r->device.us);
    table_number(out, 9, 2, r->device.us >= 0, r->device.min_us);
    table_number(out, 9, 2, r->host.us >= 0, r->host.us);
    bool ratio = r->device.us >= 0 && r->host.us > 0;
    table_number(out, 8, 2, ratio, ratio ? r->device.us / r->host.us : 0);
    double busbw[2] = {dev_coll_busbw(r, r->device.us), dev_coll_busbw(r, r->host.us)};
    table_number(out, 9, 2, busbw[0] >= 0, busbw[0]);
    table_number(out, 10, 2, busbw[1] >= 0, busbw[1]);
    table_wrong(out, 9, r->device.wrong);
    table_wrong(out, 10, r->host.wrong);
    fprintf(out, " %5s\n", "n/a");
    fflush(out);
}

static void dev_coll_csv_row(FILE *out, const perf_dev_coll_row_t *r, const char *algorithm,
                             const perf_dev_time_t *t) {
    char op[32];
    dev_coll_op_name(r, op, sizeof op);
    double busbw = dev_coll_busbw(r, t->us);
    perf_row_t row = {.op = op,
                      .mode = r->scope,
                      .bytes = dev_coll_bytes(r),
                      .count = r->count,
                      .type = r->op == PERF_OP_BARRIER ? "none"
                                                       : symcoll_datatype_name(SYMCOLL_FLOAT32),
                      .redop = perf_op_reduces(r->op) ? symcoll_op_name(SYMCOLL_SUM) : "none",
                      .root = r->op == PERF_OP_BROADCAST ? r->root : -1,
                      .npes = r->npes,
                      .algorithm = algorithm,
                      .time_us = t->us,
                      .has_bandwidth = busbw >= 0,
                      .algbw_gbps = perf_algbw_gbps(dev_coll_bytes(r), t->us),
                      .busbw_gbps = busbw,
                      .wrong = t->wrong,
                      .nccl_us = -1,
                      .nccl_sym_us = -1};
    perf_csv_row(out, &row);
}

void perf_dev_coll_csv_rows(FILE *out, const perf_dev_coll_row_t *r) {
    dev_coll_csv_row(out, r, "device", &r->device);
    dev_coll_csv_row(out, r, "host-graph", &r->host);
}
