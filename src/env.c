/* Parsing of the SYMCOLL_* environment table. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "env.h"
#include "internal.h"

static symcoll_env_t settings;
static int loaded;

int symcoll_parse_size(const char *text, size_t *out) {
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        break;
    case 'k':
        shift = 10;
        break;
    case 'm':
        shift = 20;
        break;
    case 'g':
        shift = 30;
        break;
    case 't':
        shift = 40;
        break;
    default:
        return -1;
    }
    if (*end) {
        end++;
        if (tolower((unsigned char)*end) == 'b')
            end++;
        if (*end)
            return -1;
    }
    if (shift && value > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(value << shift);
    return 0;
}

int symcoll_parse_int(const char *text, long *out) {
    if (!text || !*text)
        return -1;
    errno = 0;
    char *end;
    long value = strtol(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = value;
    return 0;
}

static int parse_SIZE(const char *text, size_t *out) {
    return symcoll_parse_size(text, out);
}
static int parse_INT(const char *text, long *out) {
    return symcoll_parse_int(text, out);
}
static int parse_STRING(const char *text, const char **out) {
    *out = text;
    return 0;
}

symcoll_status_t symcoll_env_load(void) {
    symcoll_env_t next;
    const char *value;
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    value = getenv("SYMCOLL_" #name);                                                              \
    if (!value || !*value)                                                                         \
        value = def;                                                                               \
    if (parse_##kind(value, &next.field) != 0) {                                                   \
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,                                   \
                                 "environment: SYMCOLL_" #name "=\"%s\" is not a valid %s", value, \
                                 #kind);                                                           \
    }
#include "env.def"
#undef SYMCOLL_ENV
    settings = next;
    loaded = 1;
    return SYMCOLL_SUCCESS;
}

const symcoll_env_t *symcoll_env(void) {
    if (!loaded && symcoll_env_load() != SYMCOLL_SUCCESS) {
        /* Fall back to the defaults; symcoll_init reports the bad variable. */
#define SYMCOLL_ENV(name, kind, field, def, help) parse_##kind(def, &settings.field);
#include "env.def"
#undef SYMCOLL_ENV
        loaded = 1;
    }
    return &settings;
}

static void print_SIZE(FILE *out, size_t v) {
    fprintf(out, "%zu", v);
}
static void print_INT(FILE *out, long v) {
    fprintf(out, "%ld", v);
}
static void print_STRING(FILE *out, const char *v) {
    fprintf(out, "\"%s\"", v);
}

void symcoll_env_print(FILE *out) {
    const symcoll_env_t *e = symcoll_env();
    fprintf(out, "symcoll settings (SYMCOLL_INFO=1):\n");
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    fprintf(out, "  SYMCOLL_%-18s = ", #name);                                                     \
    print_##kind(out, e->field);                                                                   \
    fprintf(out, "%s\n      %s (default \"%s\")\n", getenv("SYMCOLL_" #name) ? " (set)" : "",      \
            help, def);
#include "env.def"
#undef SYMCOLL_ENV
}

const char *symcoll_env_algo(symcoll_collective_t collective) {
    const symcoll_env_t *e = symcoll_env();
    switch (collective) {
    case SYMCOLL_COLL_BROADCAST:
        return e->algo_broadcast;
    case SYMCOLL_COLL_REDUCE:
        return e->algo_reduce;
    case SYMCOLL_COLL_FCOLLECT:
        return e->algo_fcollect;
    case SYMCOLL_COLL_ALLTOALL:
        return e->algo_alltoall;
    default:
        return "";
    }
}
