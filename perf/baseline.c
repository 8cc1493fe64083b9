#include "baseline.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { COL_OP, COL_BYTES, COL_TYPE, COL_REDOP, COL_MODE, COL_NPES, COL_TIME, N_COLS };
static const char *const column_names[N_COLS] = {"op",   "bytes", "type",   "redop",
                                                 "mode", "npes",  "time_us"};

#define MAX_FIELDS 32
#define LINE_LEN 1024

/* Splits a CSV line in place (quoted fields as perf_csv_row writes them); returns the count,
 * or -1 for an unterminated quote or too many fields. */
static int split_fields(char *line, char *fields[MAX_FIELDS]) {
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    char *in = line;
    for (;;) {
        if (n == MAX_FIELDS) {
            return -1;
        }
        char *out = in;
        fields[n++] = out;
        if (*in == '"') {
            in++;
            for (;;) {
                if (*in == '\0') {
                    return -1;
                }
                if (*in == '"' && in[1] != '"') {
                    in++;
                    break;
                }
                in += *in == '"' ? 1 : 0;
                *out++ = *in++;
            }
        } else {
            while (*in != ',' && *in != '\0') {
                *out++ = *in++;
            }
        }
        char end = *in;
        *out = '\0';
        if (end == '\0') {
            return n;
        }
        if (end != ',') {
            return -1;
        }
        in++;
    }
}

static bool copy_text(char *dst, size_t len, const char *src) {
    if (strlen(src) >= len) {
        return false;
    }
    strcpy(dst, src);
    return true;
}

/* Fills *p from the fields of one row; false names the bad column in *bad. */
static bool parse_point(char *fields[], const int col[N_COLS], perf_point_t *p, int *bad) {
    char *end;
    *bad = COL_BYTES;
    unsigned long long bytes = strtoull(fields[col[COL_BYTES]], &end, 10);
    if (end == fields[col[COL_BYTES]] || *end != '\0') {
        return false;
    }
    p->bytes = (size_t)bytes;
    *bad = COL_NPES;
    long npes = strtol(fields[col[COL_NPES]], &end, 10);
    if (end == fields[col[COL_NPES]] || *end != '\0' || npes < 1 || npes > INT_MAX) {
        return false;
    }
    p->npes = (int)npes;
    *bad = COL_TIME;
    p->time_us = strtod(fields[col[COL_TIME]], &end);
    if (end == fields[col[COL_TIME]] || *end != '\0' || !(p->time_us >= 0)) {
        return false;
    }
    char *texts[] = {p->op, p->type, p->redop, p->mode};
    const int text_cols[] = {COL_OP, COL_TYPE, COL_REDOP, COL_MODE};
    for (int i = 0; i < 4; i++) {
        *bad = text_cols[i];
        if (!copy_text(texts[i], sizeof p->op, fields[col[text_cols[i]]])) {
            return false;
        }
    }
    return true;
}

static int find_columns(char *fields[], int n, int col[N_COLS]) {
    for (int c = 0; c < N_COLS; c++) {
        col[c] = -1;
        for (int f = 0; f < n; f++) {
            if (strcmp(fields[f], column_names[c]) == 0) {
                col[c] = f;
            }
        }
        if (col[c] < 0) {
            return c;
        }
    }
    return -1;
}

static int append(perf_points_t *out, size_t *cap, const perf_point_t *p) {
    if (out->n == *cap) {
        size_t grown = *cap ? 2 * *cap : 64;
        perf_point_t *points = realloc(out->points, grown * sizeof *points);
        if (points == NULL) {
            return -1;
        }
        out->points = points;
        *cap = grown;
    }
    out->points[out->n++] = *p;
    return 0;
}

int perf_points_load(FILE *in, const char *path, perf_points_t *out, char *err, size_t err_len) {
    *out = (perf_points_t){NULL, 0};
    size_t cap = 0;
    char line[LINE_LEN];
    char *fields[MAX_FIELDS];
    int col[N_COLS];
    int lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
        lineno++;
        if (strchr(line, '\n') == NULL && !feof(in)) {
            snprintf(err, err_len, "%s:%d: line longer than %d characters", path, lineno,
                     LINE_LEN - 2);
            rc = -1;
            break;
        }
        int n = split_fields(line, fields);
        if (n < 0) {
            snprintf(err, err_len, "%s:%d: malformed CSV (unterminated quote or over %d fields)",
                     path, lineno, MAX_FIELDS);
            rc = -1;
        } else if (lineno == 1) {
            int missing = find_columns(fields, n, col);
            if (missing >= 0) {
                snprintf(err, err_len, "%s:1: no '%s' column (not a symcoll-perf CSV)", path,
                         column_names[missing]);
                rc = -1;
            }
        } else {
            int width = 0;
            for (int c = 0; c < N_COLS; c++) {
                width = col[c] >= width ? col[c] + 1 : width;
            }
            perf_point_t p;
            int bad;
            if (n < width) {
                snprintf(err, err_len, "%s:%d: %d fields, the header has more", path, lineno, n);
                rc = -1;
            } else if (!parse_point(fields, col, &p, &bad)) {
                snprintf(err, err_len, "%s:%d: bad %s '%s'", path, lineno, column_names[bad],
                         fields[col[bad]]);
                rc = -1;
            } else if ((strcmp(p.mode, "stream") == 0 || strcmp(p.mode, "graph") == 0) &&
                       append(out, &cap, &p) != 0) {
                snprintf(err, err_len, "%s:%d: out of host memory", path, lineno);
                rc = -1;
            }
        }
    }
    if (rc == 0 && lineno == 0) {
        snprintf(err, err_len, "%s: empty (no CSV header)", path);
        rc = -1;
    }
    if (rc != 0) {
        perf_points_free(out);
    }
    return rc;
}

void perf_points_free(perf_points_t *points) {
    free(points->points);
    *points = (perf_points_t){NULL, 0};
}

static bool same_key(const perf_point_t *a, const perf_point_t *b) {
    return a->bytes == b->bytes && a->npes == b->npes && strcmp(a->op, b->op) == 0 &&
           strcmp(a->type, b->type) == 0 && strcmp(a->redop, b->redop) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

static const perf_point_t *find(const perf_points_t *in, const perf_point_t *key) {
    for (size_t i = 0; i < in->n; i++) {
        if (same_key(&in->points[i], key)) {
            return &in->points[i];
        }
    }
    return NULL;
}

static void print_key(FILE *out, const perf_point_t *p) {
    fprintf(out, "  %9s %6s %12zu %9s %6s %3d PEs", p->op, p->mode, p->bytes, p->type, p->redop,
            p->npes);
}

/* Lists the points of from that other lacks; returns how many. */
static size_t report_unmatched(const perf_points_t *from, const perf_points_t *other,
                               const char *what, FILE *out) {
    size_t n = 0;
    for (size_t i = 0; i < from->n; i++) {
        if (find(other, &from->points[i]) != NULL) {
            continue;
        }
        if (n++ == 0) {
            fprintf(out, "#\n# %s\n# %9s %6s %12s %9s %6s\n", what, "op", "mode", "size(B)", "type",
                    "redop");
        }
        print_key(out, &from->points[i]);
        fputc('\n', out);
    }
    return n;
}

perf_baseline_result_t perf_baseline_compare(const perf_points_t *baseline,
                                             const perf_points_t *current, double threshold,
                                             FILE *out) {
    perf_baseline_result_t r = {0, 0, 0, 0};
    for (size_t i = 0; i < current->n; i++) {
        const perf_point_t *now = &current->points[i];
        const perf_point_t *before = find(baseline, now);
        if (before == NULL) {
            continue;
        }
        r.compared++;
        if (!(now->time_us > before->time_us * (1.0 + threshold))) {
            continue;
        }
        if (r.regressions++ == 0) {
            fprintf(out, "#\n# regressions: more than %.0f %% slower than the baseline\n",
                    threshold * 100.0);
            fprintf(out, "# %9s %6s %12s %9s %6s %10s %10s %8s\n", "op", "mode", "size(B)", "type",
                    "redop", "base(us)", "now(us)", "slower");
        }
        print_key(out, now);
        fprintf(out, " %10.2f %10.2f %7.1f%%\n", before->time_us, now->time_us,
                before->time_us > 0 ? (now->time_us / before->time_us - 1.0) * 100.0 : 100.0);
    }
    r.missing = report_unmatched(baseline, current, "baseline points this sweep did not run", out);
    r.new_points = report_unmatched(current, baseline, "points the baseline lacks", out);
    fprintf(out, "# baseline: %zu points compared, %zu regressions, %zu missing, %zu new\n",
            r.compared, r.regressions, r.missing, r.new_points);
    fflush(out);
    return r;
}
