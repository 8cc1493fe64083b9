#include "tuning_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "coll_algorithms.h"
#include "symcoll_sync_layout.h"

#define MAX_FILE_BYTES (1 << 20)
#define MAX_WORDS 8

#define COUNT(array) (sizeof(array) / sizeof(array)[0])

/* Each collective's algorithm names (NULL-terminated, index order), from the registry
 * (kernels/collectives.def). */
#define ALGORITHM_NAME(coll, id, name, grid, syncs, efficiency, traffic) #name,
#define ALGORITHM_LISTS(id, name, nccl, tuned, flow, algorithms)                                   \
    static const char *const name##_names[] = {algorithms(ALGORITHM_NAME) NULL};
SYMCOLL_COLLECTIVES(ALGORITHM_LISTS)

#define ALGORITHM_SET(id, name, nccl, tuned, flow, algorithms) [SYMCOLL_COLL_##id] = name##_names,
static const char *const *const algorithm_sets[] = {SYMCOLL_COLLECTIVES(ALGORITHM_SET)};

const char *const *symcoll_collective_algorithms(symcoll_collective_t collective) {
    static const char *const none[] = {NULL};
    if ((int)collective < 0 || (size_t)collective >= COUNT(algorithm_sets) ||
        !algorithm_sets[collective])
        return none;
    return algorithm_sets[collective];
}

int symcoll_algorithm_index(symcoll_collective_t collective, const char *name) {
    const char *const *names = symcoll_collective_algorithms(collective);
    for (int i = 0; names[i]; i++)
        if (!strcasecmp(names[i], name))
            return i;
    return -1;
}

typedef struct {
    const char *path;
    int line;
    char *err;
    size_t err_len;
} where_t;

static int fail(const where_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const where_t *w, const char *fmt, ...) {
    int used = w->line > 0 ? snprintf(w->err, w->err_len, "%s:%d: ", w->path, w->line)
                           : snprintf(w->err, w->err_len, "%s: ", w->path);
    if (used >= 0 && (size_t)used < w->err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + used, w->err_len - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Splits line in place at blanks, dropping a '#' comment; returns the word count, or
 * MAX_WORDS + 1 when there are more. */
static int split_words(char *line, char *words[MAX_WORDS]) {
    char *comment = strchr(line, '#');
    if (comment)
        *comment = '\0';
    int n = 0;
    char *rest;
    for (char *w = strtok_r(line, " \t\r", &rest); w; w = strtok_r(NULL, " \t\r", &rest)) {
        if (n == MAX_WORDS)
            return MAX_WORDS + 1;
        words[n++] = w;
    }
    return n;
}

static int parse_class(const where_t *w, const char *text, topo_class_t *out) {
    for (int c = TOPO_SAME_GPU; c <= TOPO_NO_P2P; c++)
        if (!strcasecmp(text, symcoll_topo_class_name((topo_class_t)c))) {
            *out = (topo_class_t)c;
            return 0;
        }
    return fail(w, "unknown link class '%s' (same-gpu, nvlink, pcie-p2p or no-p2p)", text);
}

/* A decimal number in [lo, hi]; false otherwise. */
static bool decimal(const char *text, unsigned long long lo, unsigned long long hi,
                    unsigned long long *out) {
    char *end;
    errno = 0;
    *out = strtoull(text, &end, 10);
    return text[0] >= '0' && text[0] <= '9' && *end == '\0' && errno == 0 && *out >= lo &&
           *out <= hi;
}

/* what: the field; whose: "" or " for <whose limit hi is>". */
static int parse_count(const where_t *w, const char *what, const char *whose, const char *text,
                       long lo, long hi, int *out) {
    unsigned long long value;
    if (!decimal(text, (unsigned long long)lo, (unsigned long long)hi, &value))
        return fail(w, "%s '%s' is not a number from %ld to %ld%s", what, text, lo, hi, whose);
    *out = (int)value;
    return 0;
}

static int parse_collective(const where_t *w, const char *text, symcoll_collective_t *out) {
    *out = symcoll_collective_by_name(text);
    if (*out != SYMCOLL_COLL_NONE)
        return 0;
    return fail(w, "unknown collective '%s' (one of" SYMCOLL_COLLECTIVE_NAME_LIST ")", text);
}

/* The blocks and threads of a row, within the grid its algorithm (index algo) can take: the
 * runtime would silently shrink a larger one. */
static int parse_grid(const where_t *w, int algo, const char *blocks, const char *threads,
                      symcoll_tuning_row_t *r) {
    int max_blocks = 0, max_threads = 0;
    symcoll_algorithm_grid_limits(r->collective, algo, &max_blocks, &max_threads);
    char whose[64];
    snprintf(whose, sizeof whose, " for %s %s", symcoll_collective_name(r->collective), r->algo);
    if (parse_count(w, "blocks", whose, blocks, 1, max_blocks, &r->blocks) != 0 ||
        parse_count(w, "threads", whose, threads, 32, max_threads, &r->threads) != 0)
        return -1;
    if (r->threads % 32 != 0)
        return fail(w, "threads %d is not a multiple of 32", r->threads);
    return 0;
}

static int parse_row(const where_t *w, char *words[], int n, symcoll_tuning_row_t *r) {
    unsigned long long bytes;
    if (n != 7)
        return fail(w,
                    "a row has 7 fields (collective, link class, max team size, max bytes, "
                    "algorithm, blocks, threads), this one %d",
                    n);
    if (parse_collective(w, words[0], &r->collective) != 0 ||
        parse_class(w, words[1], &r->topo) != 0 ||
        parse_count(w, "max team size", "", words[2], 1, SYMCOLL_TOPO_MAX_PES, &r->max_team_size) !=
            0)
        return -1;
    if (!strcasecmp(words[3], "any"))
        r->max_bytes = SIZE_MAX;
    else if (!decimal(words[3], 0, SIZE_MAX, &bytes))
        return fail(w, "max bytes '%s' is neither a decimal byte count nor 'any'", words[3]);
    else
        r->max_bytes = (size_t)bytes;
    int algo = symcoll_algorithm_index(r->collective, words[4]);
    if (algo < 0)
        return fail(w, "'%s' is no %s algorithm", words[4], symcoll_collective_name(r->collective));
    r->algo = symcoll_collective_algorithms(r->collective)[algo];
    return parse_grid(w, algo, words[5], words[6], r);
}

/* What parsing carries from line to line. */
typedef struct {
    int seen;   /* header lines read so far (version, signature) */
    size_t cap; /* rows (and lines) allocated */
    int *lines; /* the line of each row, for messages about an earlier row */
} parse_state_t;

static int grow_rows(const where_t *w, parse_state_t *st, symcoll_tuning_file_t *out) {
    size_t grown = st->cap ? 2 * st->cap : 32;
    symcoll_tuning_row_t *rows = realloc(out->rows, grown * sizeof *rows);
    if (rows)
        out->rows = rows;
    int *lines = rows ? realloc(st->lines, grown * sizeof *lines) : NULL;
    if (!lines)
        return fail(w, "out of host memory");
    st->lines = lines;
    st->cap = grown;
    return 0;
}

/* Rows are tried in order and the first that fits wins, also among the rows naming an
 * algorithm that SYMCOLL_ALGO_* forces: a row after one of the same collective, link class,
 * max team size and algorithm with max bytes at least as large is never chosen, which in a
 * hand-written file means the order is wrong. Rows naming other algorithms still serve a
 * forced algorithm, so they pass. */
static int check_reachable(const where_t *w, const symcoll_tuning_file_t *f, const int *lines) {
    const symcoll_tuning_row_t *r = &f->rows[f->n_rows];
    for (size_t i = 0; i < f->n_rows; i++) {
        const symcoll_tuning_row_t *e = &f->rows[i];
        if (e->collective == r->collective && e->topo == r->topo &&
            e->max_team_size == r->max_team_size && e->algo == r->algo &&
            e->max_bytes >= r->max_bytes) {
            char bytes[24] = "any";
            if (e->max_bytes != SIZE_MAX)
                snprintf(bytes, sizeof bytes, "%zu", e->max_bytes);
            return fail(w,
                        "this row is never chosen: the row on line %d, for the same collective, "
                        "link class, max team size and algorithm, comes first and covers max "
                        "bytes %s",
                        lines[i], bytes);
        }
    }
    return 0;
}

static int parse_header(const where_t *w, char *words[], int n, parse_state_t *st,
                        symcoll_tuning_file_t *out) {
    if (st->seen == 0) {
        if (n != 2 || strcmp(words[0], "symcoll-tuning") || strcmp(words[1], "1"))
            return fail(w, "the first line must be 'symcoll-tuning 1' (format version)");
        st->seen++;
        return 0;
    }
    if (n != 3 || strcmp(words[0], "signature"))
        return fail(w, "the second line must be 'signature <PEs> <link class>'");
    st->seen++;
    if (parse_count(w, "signature PEs", "", words[1], 1, SYMCOLL_TOPO_MAX_PES, &out->n_pes) != 0)
        return -1;
    return parse_class(w, words[2], &out->topo);
}

static int parse_line(const where_t *w, char *line, parse_state_t *st, symcoll_tuning_file_t *out) {
    char *words[MAX_WORDS];
    int n = split_words(line, words);
    if (n == 0)
        return 0;
    if (n > MAX_WORDS)
        return fail(w, "more than %d fields", MAX_WORDS);
    if (st->seen < 2)
        return parse_header(w, words, n, st, out);
    if (out->n_rows == st->cap && grow_rows(w, st, out) != 0)
        return -1;
    if (parse_row(w, words, n, &out->rows[out->n_rows]) != 0 ||
        check_reachable(w, out, st->lines) != 0)
        return -1;
    st->lines[out->n_rows++] = w->line;
    return 0;
}

int symcoll_tuning_file_parse(const char *text, const char *path, symcoll_tuning_file_t *out,
                              char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    char *copy = strdup(text);
    where_t w = {path, 0, err, err_len};
    if (!copy)
        return fail(&w, "out of host memory");
    parse_state_t st = {0, 0, NULL};
    int rc = 0;
    for (char *line = copy, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        w.line++;
        rc = parse_line(&w, line, &st, out);
    }
    free(copy);
    out->lines = st.lines;
    if (rc == 0 && st.seen < 2) {
        w.line = 0;
        rc = fail(&w, "no %s line", st.seen == 0 ? "'symcoll-tuning 1'" : "signature");
    }
    if (rc != 0)
        symcoll_tuning_file_free(out);
    return rc;
}

/* The whole file as a NUL-terminated string of at most MAX_FILE_BYTES bytes (one more is read
 * so that a larger file shows); NULL with the reason in err. */
static char *read_text(const where_t *w, FILE *f) {
    char *text = malloc(MAX_FILE_BYTES + 2);
    if (!text) {
        fail(w, "out of host memory");
        return NULL;
    }
    size_t len = fread(text, 1, MAX_FILE_BYTES + 1, f);
    if (ferror(f))
        fail(w, "cannot read it: %s", strerror(errno));
    else if (len > MAX_FILE_BYTES)
        fail(w, "larger than %d bytes", MAX_FILE_BYTES);
    else if (memchr(text, '\0', len))
        fail(w, "holds a NUL byte");
    else {
        text[len] = '\0';
        return text;
    }
    free(text);
    return NULL;
}

int symcoll_tuning_file_load(const char *path, symcoll_tuning_file_t *out, char *err,
                             size_t err_len) {
    where_t w = {path, 0, err, err_len};
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(&w, "cannot open it: %s", strerror(errno));
    char *text = read_text(&w, f);
    fclose(f);
    if (!text)
        return -1;
    int rc = symcoll_tuning_file_parse(text, path, out, err, err_len);
    free(text);
    return rc;
}

int symcoll_tuning_file_check(const symcoll_tuning_file_t *file, int n_pes, topo_class_t topo,
                              char *err, size_t err_len) {
    if (file->n_pes == n_pes && file->topo == topo)
        return 0;
    where_t w = {file->path, 0, err, err_len};
    return fail(&w,
                "measured on %d PEs over %s, but this job has %d PEs over %s; use a file measured "
                "on this machine or unset SYMCOLL_TUNING_FILE",
                file->n_pes, symcoll_topo_class_name(file->topo), n_pes,
                symcoll_topo_class_name(topo));
}

void symcoll_tuning_file_free(symcoll_tuning_file_t *file) {
    free(file->rows);
    free(file->lines);
    file->rows = NULL;
    file->lines = NULL;
    file->n_rows = 0;
}
