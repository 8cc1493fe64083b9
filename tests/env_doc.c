/* Writes or checks the documentation of the SYMCOLL_* variables generated from src/env.def:
 * docs/env.md, and the list between the env-list markers of README.md.
 *   env_doc check REPO   exit 1, naming the stale file, when either differs from env.def
 *   env_doc write REPO   rewrite both (cmake --build build --target env-doc) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "env.h"

#define BEGIN_MARK "<!-- env-list begin: generated from src/env.def -->\n"
#define END_MARK "<!-- env-list end -->\n"

typedef struct {
    char *text;
    size_t len, cap;
} buffer_t;

static void append(buffer_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void grow(buffer_t *b, size_t at_least) {
    b->cap = 2 * b->cap + at_least;
    b->text = realloc(b->text, b->cap);
    if (!b->text) {
        perror("env_doc");
        exit(2);
    }
}

static void append(buffer_t *b, const char *fmt, ...) {
    if (!b->text)
        grow(b, 256);
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        grow(b, (size_t)n + 1);
    }
}

static void reference(buffer_t *b) {
    char what[256];
    append(b, "# symcoll environment variables\n\n"
              "<!-- Generated from src/env.def by tests/env_doc.c: `cmake --build build --target "
              "env-doc` rewrites it; the test env_doc_current fails when it is stale. -->\n\n"
              "symcoll reads these variables at `symcoll_init` and checks every one before any "
              "GPU, NCCL or PMIx work: a value that is not accepted makes init return "
              "`SYMCOLL_ERROR_INVALID_ARGUMENT`, and `symcoll_last_error()` names the variable, "
              "the value and what it accepts. An empty value counts as unset. `SYMCOLL_INFO=1` "
              "prints every variable with its value when PE 0 initializes.\n\n"
              "| variable | default | accepted values | meaning |\n"
              "| --- | --- | --- | --- |\n");
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    symcoll_env_accepts(#name, what, sizeof what);                                                 \
    append(b, "| `SYMCOLL_%s` | %s%s%s | %s | %s |\n", #name, *def ? "`" : "",                     \
           *def ? def : "empty", *def ? "`" : "", what, help);
#include "env.def"
#undef SYMCOLL_ENV
}

static void readme_list(buffer_t *b) {
    append(b, BEGIN_MARK);
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    append(b, "- `SYMCOLL_%s` (default %s%s%s): %s\n", #name, *def ? "`" : "",                     \
           *def ? def : "empty", *def ? "`" : "", help);
#include "env.def"
#undef SYMCOLL_ENV
    append(b, END_MARK);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buffer_t b = {0};
    char chunk[4096];
    size_t n;
    grow(&b, sizeof chunk);
    b.text[0] = '\0';
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        append(&b, "%.*s", (int)n, chunk);
    fclose(f);
    return b.text;
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

/* README.md with its list replaced by list; NULL when the markers are missing. */
static char *readme_with(const char *readme, const char *list) {
    const char *begin = strstr(readme, BEGIN_MARK);
    const char *end = begin ? strstr(begin, END_MARK) : NULL;
    if (!end)
        return NULL;
    buffer_t b = {0};
    append(&b, "%.*s%s%s", (int)(begin - readme), readme, list, end + strlen(END_MARK));
    return b.text;
}

/* 0 when doc_path and readme match what env.def says (or were rewritten); 1 otherwise. */
static int check_or_write(int write, const char *doc_path, const char *readme_path, const char *doc,
                          const char *readme, const char *new_readme) {
    if (write)
        return write_file(doc_path, doc) | write_file(readme_path, new_readme);
    char *old_doc = read_file(doc_path);
    int stale = 0;
    if (!old_doc || strcmp(old_doc, doc)) {
        fprintf(stderr, "env_doc: %s is not what src/env.def says\n", doc_path);
        stale = 1;
    }
    free(old_doc);
    if (strcmp(readme, new_readme)) {
        fprintf(stderr, "env_doc: the settings list of %s is not what src/env.def says\n",
                readme_path);
        stale = 1;
    }
    if (stale)
        fprintf(stderr,
                "env_doc: run `cmake --build build --target env-doc` and commit the result\n");
    return stale;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "check") && strcmp(argv[1], "write"))) {
        fprintf(stderr, "usage: env_doc check|write REPO\n");
        return 2;
    }
    char doc_path[4096], readme_path[4096];
    snprintf(doc_path, sizeof doc_path, "%s/docs/env.md", argv[2]);
    snprintf(readme_path, sizeof readme_path, "%s/README.md", argv[2]);
    buffer_t doc = {0}, list = {0};
    reference(&doc);
    readme_list(&list);
    char *readme = read_file(readme_path);
    char *new_readme = readme ? readme_with(readme, list.text) : NULL;
    int rc = 1;
    if (new_readme)
        rc = check_or_write(!strcmp(argv[1], "write"), doc_path, readme_path, doc.text, readme,
                            new_readme);
    else
        fprintf(stderr, "env_doc: %s has no settings list between \"%.*s\" and \"%.*s\"\n",
                readme_path, (int)strlen(BEGIN_MARK) - 1, BEGIN_MARK, (int)strlen(END_MARK) - 1,
                END_MARK);
    free(doc.text);
    free(list.text);
    free(readme);
    free(new_readme);
    return rc;
}
