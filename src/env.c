/* Parsing and validation of the SYMCOLL_* environment table (env.def). Loading never logs
 * and never sets the last error itself: logging reads the settings, so it must not re-enter
 * a load. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bootstrap/bootstrap.h"
#include "transport/proxy/proxy.h"
#include "env.h"
#include "internal.h"
#include "tuning_file.h"

#define WHY_MAX 400

/* The one size rule of symcoll's settings, symcoll-perf's flags and the NVSHMEM header: a
 * decimal number, a fraction too ("1.5g"), then an optional k, m, g or t (any case; powers of
 * 1024) and an optional b after it ("16GB", as NVSHMEM and nccl-tests write sizes); a fraction
 * of a byte is rounded up. */
static void quote_value(const char *value, char *out, size_t len);

int symcoll_parse_size(const char *text, size_t *out) {
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    unsigned long long whole = 0;
    const char *c = text;
    for (; isdigit((unsigned char)*c); c++) {
        unsigned digit = (unsigned)(*c - '0');
        if (whole > (ULLONG_MAX - digit) / 10)
            return -1;
        whole = whole * 10 + digit;
    }
    /* At most 18 fraction digits keep the numerator within 64 bits. */
    unsigned long long numerator = 0, denominator = 1;
    if (*c == '.') {
        c++;
        if (!isdigit((unsigned char)*c))
            return -1;
        for (; isdigit((unsigned char)*c); c++)
            if (denominator < 1000000000000000000ull) {
                numerator = numerator * 10 + (unsigned)(*c - '0');
                denominator *= 10;
            }
    }
    static const char suffixes[] = "kmgt";
    const char *suffix = *c ? strchr(suffixes, tolower((unsigned char)*c)) : NULL;
    unsigned shift = 0;
    if (suffix) {
        shift = 10 * (unsigned)(suffix - suffixes + 1);
        c++;
        if (tolower((unsigned char)*c) == 'b')
            c++;
    }
    if (*c || whole > (SIZE_MAX >> shift))
        return -1;
    size_t bytes = (size_t)(whole << shift);
    /* numerator / denominator of 2^shift bytes, rounded up: exact in long double. */
    long double part = (long double)numerator * (long double)(1ull << shift) / denominator;
    unsigned long long extra = (unsigned long long)part;
    extra += (long double)extra < part;
    if (extra > SIZE_MAX - bytes)
        return -1;
    *out = bytes + (size_t)extra;
    return 0;
}

symcoll_status_t symcoll_parse_bytes(const char *text, size_t *bytes) {
    if (!bytes)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_parse_bytes: bytes is NULL");
    char shown[80];
    quote_value(text ? text : "(null)", shown, sizeof shown);
    if (symcoll_parse_size(text, bytes) != 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_parse_bytes: \"%s\" is not a size: expected a number "
                                 "(a fraction too), then k, m, g or t (powers of 1024, any "
                                 "case) and an optional b, e.g. 512m, 1.5g, 16GB",
                                 shown);
    return SYMCOLL_SUCCESS;
}

int symcoll_parse_int(const char *text, long *out) {
    if (!text || !*text || isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    long value = strtol(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = value;
    return 0;
}

static int parse_range(const char *text, long lo, long hi, long *out) {
    long value;
    if (symcoll_parse_int(text, &value) != 0 || value < lo || value > hi)
        return -1;
    *out = value;
    return 0;
}

/* Index of text among names (case-insensitive), -1 if absent. */
static int find_name(const char *const *names, const char *text) {
    for (int i = 0; names[i]; i++)
        if (!strcasecmp(names[i], text))
            return i;
    return -1;
}

static void join_names(const char *const *names, char *out, size_t len) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; names[i] && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

/* ---- one parser and one description of what is accepted per kind ---- */

static int parse_BYTES(const char *name, const char *text, size_t *out) {
    (void)name;
    size_t value;
    if (symcoll_parse_size(text, &value) != 0 || value == 0)
        return -1;
    *out = value;
    return 0;
}
static void accepts_BYTES(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len,
             "a positive number of bytes, a fraction too, with an optional k, m, g or t suffix "
             "(powers of 1024; a trailing b is allowed), e.g. 512m, 1.5g, 16GB");
}

static int parse_BYTES_OR_ZERO(const char *name, const char *text, size_t *out) {
    (void)name;
    return symcoll_parse_size(text, out) != 0 ? -1 : 0;
}
static void accepts_BYTES_OR_ZERO(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a number of bytes as for sizes (e.g. 64k), or 0 for none");
}

static int parse_MS(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, 0, INT_MAX, out);
}
static void accepts_MS(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a whole number of milliseconds from 0 to %d; 0 disables", INT_MAX);
}

static int parse_MS_POSITIVE(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, 1, INT_MAX, out);
}
static void accepts_MS_POSITIVE(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a whole number of milliseconds from 1 to %d", INT_MAX);
}

/* Index = level (SYMCOLL_LOG_*); synonyms after the NULL. */
static const char *const level_names[] = {"off", "error", "warn", "info", "debug", NULL};
static const char *const level_synonyms[] = {"none", "error", "warning", "info", "trace", NULL};

static int parse_LEVEL(const char *name, const char *text, long *out) {
    (void)name;
    int level = find_name(level_names, text);
    if (level < 0)
        level = find_name(level_synonyms, text);
    if (level >= 0) {
        *out = level;
        return 0;
    }
    return parse_range(text, SYMCOLL_LOG_OFF, SYMCOLL_LOG_DEBUG, out);
}
static void accepts_LEVEL(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "off, error, warn, info or debug (any case), or 0 to 4");
}

static const char *const true_names[] = {"1", "yes", "true", "on", NULL};
static const char *const false_names[] = {"0", "no", "false", "off", NULL};

static int parse_BOOL(const char *name, const char *text, long *out) {
    (void)name;
    if (find_name(true_names, text) >= 0)
        *out = 1;
    else if (find_name(false_names, text) >= 0)
        *out = 0;
    else
        return -1;
    return 0;
}
static void accepts_BOOL(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "1, yes, true or on; 0, no, false or off (any case)");
}

static int parse_PORT(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, 0, 65535, out);
}
static void accepts_PORT(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a TCP port from 1 to 65535, or 0");
}

static int parse_PE(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, -1, SYMCOLL_MAX_PES - 1, out);
}
static void accepts_PE(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a PE number from 0 to %d (symcoll supports at most %d PEs), or -1",
             SYMCOLL_MAX_PES - 1, SYMCOLL_MAX_PES);
}

static int parse_PES(const char *name, const char *text, long *out) {
    (void)name;
    if (parse_range(text, -1, SYMCOLL_MAX_PES, out) != 0 || *out == 0)
        return -1;
    return 0;
}
static void accepts_PES(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a PE count from 1 to %d (symcoll supports at most %d PEs), or -1",
             SYMCOLL_MAX_PES, SYMCOLL_MAX_PES);
}

static int parse_FD(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, -1, INT_MAX, out);
}
static void accepts_FD(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a file descriptor number, or -1");
}

static int parse_SLOTS(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, 0, SYMCOLL_PROXY_MAX_SLOTS, out);
}
static void accepts_SLOTS(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a count of staging slots from 1 to %u, or 0 for the default",
             SYMCOLL_PROXY_MAX_SLOTS);
}

static int parse_INODE(const char *name, const char *text, long *out) {
    (void)name;
    return parse_range(text, 0, LONG_MAX, out);
}
static void accepts_INODE(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "an inode number, or 0 for none");
}

static const char *const bootstrap_names[] = {"auto",     "launcher", "pmix",
                                              "torchrun", "single",   NULL};

static int parse_BOOTSTRAP(const char *name, const char *text, const char **out) {
    (void)name;
    int i = find_name(bootstrap_names, text);
    if (i < 0)
        return -1;
    *out = bootstrap_names[i];
    return 0;
}
static void accepts_BOOTSTRAP(const char *name, char *out, size_t len) {
    (void)name;
    char names[80];
    join_names(bootstrap_names, names, sizeof names);
    snprintf(out, len, "one of %s (any case)", names);
}

/* Copies text into a settings buffer of size bytes; -1 if it does not fit. */
static int copy_value(const char *text, char *out, size_t size) {
    size_t len = strlen(text);
    if (len >= size)
        return -1;
    memcpy(out, text, len + 1);
    return 0;
}

static int parse_FILE(const char *name, const char *text, symcoll_env_path_t *out) {
    (void)name;
    if (*text && access(text, R_OK) != 0)
        return -1;
    return copy_value(text, *out, sizeof *out);
}
static void accepts_FILE(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "a path of at most %d bytes naming a readable file, or empty for none",
             SYMCOLL_ENV_PATH_MAX - 1);
}

static int parse_UNIQUEID(const char *name, const char *text, symcoll_env_uniqueid_t *out) {
    (void)name;
    symcoll_uniqueid_t id;
    if (*text && symcoll_uniqueid_from_hex(text, &id) != 0)
        return -1;
    return copy_value(text, *out, sizeof *out);
}
static void accepts_UNIQUEID(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len, "exactly %zu hex digits (symcoll-run sets it), or empty",
             2 * sizeof(symcoll_uniqueid_t));
}

static int parse_SOCKET(const char *name, const char *text, symcoll_env_socket_t *out) {
    (void)name;
    for (const char *c = text; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
            return -1;
    return copy_value(text, *out, sizeof *out);
}
static void accepts_SOCKET(const char *name, char *out, size_t len) {
    (void)name;
    snprintf(out, len,
             "a name of at most %d letters, digits, '.', '_' or '-' (symcoll-run sets it), or "
             "empty",
             SYMCOLL_ENV_SOCKET_MAX);
}

/* The algorithms SYMCOLL_ALGO_<COLLECTIVE> may name, by the part of name after "ALGO_". */
static const char *const *algorithm_names(const char *name) {
    return symcoll_collective_algorithms(symcoll_collective_by_name(name + strlen("ALGO_")));
}

static int parse_ALGO(const char *name, const char *text, const char **out) {
    if (!*text) {
        *out = "";
        return 0;
    }
    const char *const *names = algorithm_names(name);
    int i = find_name(names, text);
    if (i < 0)
        return -1;
    *out = names[i];
    return 0;
}
static void accepts_ALGO(const char *name, char *out, size_t len) {
    char names[160];
    join_names(algorithm_names(name), names, sizeof names);
    snprintf(out, len, "one of %s (any case), or empty for automatic choice", names);
}

/* ---- loading ---- */

/* The value as it may appear in a one-line message: printable, at most 64 characters. */
static void quote_value(const char *value, char *out, size_t len) {
    size_t n = 0;
    for (const char *c = value; *c && n + 4 < len; c++, n++) {
        if (c - value == 64) {
            snprintf(out + n, len - n, "...");
            return;
        }
        out[n] = isprint((unsigned char)*c) ? *c : '?';
    }
    out[n] = '\0';
}

static int reject(char *why, const char *name, const char *value,
                  void (*accepts)(const char *, char *, size_t)) {
    char shown[80], accepted[200];
    quote_value(value, shown, sizeof shown);
    accepts(name, accepted, sizeof accepted);
    snprintf(why, WHY_MAX, "environment: SYMCOLL_%s=\"%s\" is not valid: expected %s", name, shown,
             accepted);
    return -1;
}

/* How the variables fit together; symcoll-run sets RANK, SIZE, LOCAL_* and UNIQUEID. */
static int check_together(const symcoll_env_t *e, char *why) {
    if ((e->rank >= 0) != (e->size > 0))
        snprintf(why, WHY_MAX,
                 "environment: SYMCOLL_RANK=%ld and SYMCOLL_SIZE=%ld: set both or neither", e->rank,
                 e->size);
    else if (e->rank >= e->size && e->rank >= 0)
        snprintf(why, WHY_MAX, "environment: SYMCOLL_RANK=%ld is not below SYMCOLL_SIZE=%ld",
                 e->rank, e->size);
    else if (e->local_rank >= 0 && e->local_size > 0 && e->local_rank >= e->local_size)
        snprintf(why, WHY_MAX,
                 "environment: SYMCOLL_LOCAL_RANK=%ld is not below SYMCOLL_LOCAL_SIZE=%ld",
                 e->local_rank, e->local_size);
    else if (e->local_size > 0 && e->size > 0 && e->local_size > e->size)
        snprintf(why, WHY_MAX, "environment: SYMCOLL_LOCAL_SIZE=%ld is above SYMCOLL_SIZE=%ld",
                 e->local_size, e->size);
    else if ((*e->uniqueid || *e->bootstrap_socket) && e->rank < 0)
        snprintf(why, WHY_MAX,
                 "environment: SYMCOLL_%s is set without SYMCOLL_RANK and SYMCOLL_SIZE "
                 "(symcoll-run sets all three)",
                 *e->uniqueid ? "UNIQUEID" : "BOOTSTRAP_SOCKET");
    else if (*e->uniqueid && *e->bootstrap_socket)
        snprintf(why, WHY_MAX,
                 "environment: SYMCOLL_UNIQUEID and SYMCOLL_BOOTSTRAP_SOCKET are both set "
                 "(symcoll-run sets one of them)");
    else if (!strcmp(e->bootstrap, "launcher") && !*e->uniqueid && !*e->bootstrap_socket)
        snprintf(why, WHY_MAX,
                 "environment: SYMCOLL_BOOTSTRAP=launcher needs SYMCOLL_RANK, "
                 "SYMCOLL_SIZE and SYMCOLL_UNIQUEID or SYMCOLL_BOOTSTRAP_SOCKET (run the "
                 "program under symcoll-run)");
    else
        return 0;
    return -1;
}

static int load_into(symcoll_env_t *next, char *why) {
    const char *value;
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    value = getenv("SYMCOLL_" #name);                                                              \
    if (!value || !*value)                                                                         \
        value = def;                                                                               \
    if (parse_##kind(#name, value, &next->field) != 0)                                             \
        return reject(why, #name, value, accepts_##kind);
#include "env.def"
#undef SYMCOLL_ENV
    return check_together(next, why);
}

/* Two copies: a load fills the one not in use, then publishes it. */
static symcoll_env_t slots[2];
static _Atomic(const symcoll_env_t *) current;
static pthread_once_t first_load = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_first(void) {
    char why[WHY_MAX];
    if (load_into(&slots[0], why) != 0) {
#define SYMCOLL_ENV(name, kind, field, def, help) parse_##kind(#name, def, &slots[0].field);
#include "env.def"
#undef SYMCOLL_ENV
    }
    atomic_store(&current, &slots[0]);
}

const symcoll_env_t *symcoll_env(void) {
    pthread_once(&first_load, load_first);
    return atomic_load(&current);
}

symcoll_status_t symcoll_env_parse(symcoll_env_t *out) {
    char why[WHY_MAX];
    if (load_into(out, why) != 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s", why);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_env_load(void) {
    char why[WHY_MAX];
    /* The slot in use is read under the lock: two loads that both read it first could then
     * both fill the other one, the second while readers already use it. */
    pthread_mutex_lock(&load_lock);
    const symcoll_env_t *now = symcoll_env();
    symcoll_env_t *next = now == &slots[0] ? &slots[1] : &slots[0];
    int bad = load_into(next, why);
    if (!bad)
        atomic_store(&current, next);
    pthread_mutex_unlock(&load_lock);
    if (bad)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s", why);
    return SYMCOLL_SUCCESS;
}

void symcoll_env_accepts(const char *name, char *out, size_t len) {
    if (len)
        out[0] = '\0';
#define SYMCOLL_ENV(var, kind, field, def, help)                                                   \
    if (!strcmp(name, #var))                                                                       \
        accepts_##kind(#var, out, len);
#include "env.def"
#undef SYMCOLL_ENV
}

static void print_size(FILE *out, size_t v) {
    fprintf(out, "%zu", v);
}
static void print_long(FILE *out, long v) {
    fprintf(out, "%ld", v);
}
static void print_string(FILE *out, const char *v) {
    fprintf(out, "\"%s\"", v);
}
#define PRINT_VALUE(out, v)                                                                        \
    _Generic((v), size_t : print_size, long : print_long, const char * : print_string)(out, v)

void symcoll_env_print(FILE *out) {
    const symcoll_env_t *e = symcoll_env();
    fprintf(out, "symcoll settings (SYMCOLL_INFO=1):\n");
#define SYMCOLL_ENV(name, kind, field, def, help)                                                  \
    fprintf(out, "  SYMCOLL_%-18s = ", #name);                                                     \
    PRINT_VALUE(out, e->field);                                                                    \
    fprintf(out, "%s\n      %s (default \"%s\")\n", getenv("SYMCOLL_" #name) ? " (set)" : "",      \
            help, def);
#include "env.def"
#undef SYMCOLL_ENV
}

const char *symcoll_env_algo(symcoll_collective_t collective) {
    return symcoll_env_algo_in(symcoll_env(), collective);
}

const char *symcoll_env_algo_in(const symcoll_env_t *e, symcoll_collective_t collective) {
#define FORCED(id, name, nccl, tuned, flow, algorithms)                                            \
    SYMCOLL_IF_TUNED(tuned, if (collective == SYMCOLL_COLL_##id) return e->algo_##name;)
    SYMCOLL_COLLECTIVES(FORCED)
#undef FORCED
    return ""; /* a collective without a choice */
}
