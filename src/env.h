/* The SYMCOLL_* settings, parsed and validated from the environment (table in env.def). */
#ifndef SYMCOLL_ENV_H
#define SYMCOLL_ENV_H

#include <stddef.h>
#include <stdio.h>
#include "coll_algorithms.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYMCOLL_ENV_TYPE_BYTES size_t
#define SYMCOLL_ENV_TYPE_BYTES_OR_ZERO size_t
#define SYMCOLL_ENV_TYPE_MS long
#define SYMCOLL_ENV_TYPE_MS_POSITIVE long
#define SYMCOLL_ENV_TYPE_LEVEL long
#define SYMCOLL_ENV_TYPE_BOOL long
#define SYMCOLL_ENV_TYPE_PORT long
#define SYMCOLL_ENV_TYPE_PE long
#define SYMCOLL_ENV_TYPE_PES long
#define SYMCOLL_ENV_TYPE_FD long
#define SYMCOLL_ENV_TYPE_INODE long
#define SYMCOLL_ENV_TYPE_SLOTS long
#define SYMCOLL_ENV_TYPE_BOOTSTRAP const char *
#define SYMCOLL_ENV_TYPE_UNIQUEID symcoll_env_uniqueid_t
#define SYMCOLL_ENV_TYPE_SOCKET symcoll_env_socket_t
#define SYMCOLL_ENV_TYPE_ALGO const char *
#define SYMCOLL_ENV_TYPE_FILE symcoll_env_path_t

/* Free-form values are copied out of the environment: a later setenv or unsetenv by the
 * application may free the string getenv() returned while the settings still use it. The
 * path limit is Linux's PATH_MAX, spelled out because some includers compile as strict C11
 * and every one must see the same layout. */
#define SYMCOLL_ENV_PATH_MAX 4096
typedef char symcoll_env_path_t[SYMCOLL_ENV_PATH_MAX];
typedef char symcoll_env_uniqueid_t[2 * sizeof(symcoll_uniqueid_t) + 1];
/* An abstract Unix socket's name: sun_path holds 107 bytes after the leading NUL. */
#define SYMCOLL_ENV_SOCKET_MAX 100
typedef char symcoll_env_socket_t[SYMCOLL_ENV_SOCKET_MAX + 1];

typedef struct {
#define SYMCOLL_ENV(name, kind, field, def, help) SYMCOLL_ENV_TYPE_##kind field;
#include "env.def"
#undef SYMCOLL_ENV
} symcoll_env_t;

/* The settings. The first use reads the environment once (thread-safe; the defaults stand
 * in for a bad environment, which symcoll_init reports); symcoll_env_load reads it again.
 * Never logs and never sets the last error, so logging may call it. */
const symcoll_env_t *symcoll_env(void);
/* Re-reads and validates every variable, and how they fit together. INVALID_ARGUMENT names
 * the variable, its value and what it accepts; the previous settings stay then. Called by
 * symcoll_init; a pointer from symcoll_env() stays valid across one later load. */
symcoll_status_t symcoll_env_load(void);
/* Reads and validates every variable into *out, as symcoll_env_load does, without publishing
 * them: for callers that want the settings init would read while another thread may be in
 * init or reading symcoll_env() (symcoll_explain before init). INVALID_ARGUMENT as there. */
symcoll_status_t symcoll_env_parse(symcoll_env_t *out);
/* Parses "123", "4k", "16M", "1g", "2tb" (powers of 1024); 0 on success, -1 if malformed or
 * overflowing (*out untouched then). */
int symcoll_parse_size(const char *text, size_t *out);
/* Parses a decimal integer; 0 on success, -1 if malformed or overflowing. */
int symcoll_parse_int(const char *text, long *out);
/* One line saying what SYMCOLL_<name> accepts ("" for a name that is not in the table). */
void symcoll_env_accepts(const char *name, char *out, size_t len);
/* Prints every variable with its value and help. */
void symcoll_env_print(FILE *out);
/* The SYMCOLL_ALGO_<COLLECTIVE> setting for a collective, "" when automatic. */
const char *symcoll_env_algo(symcoll_collective_t collective);
/* The same of settings e (symcoll_env_parse's, or symcoll_env()'s). */
const char *symcoll_env_algo_in(const symcoll_env_t *e, symcoll_collective_t collective);

#ifdef __cplusplus
}
#endif
#endif
