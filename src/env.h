/* The SYMCOLL_* settings, parsed once from the environment (table in env.def). */
#ifndef SYMCOLL_ENV_H
#define SYMCOLL_ENV_H

#include <stddef.h>
#include <stdio.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYMCOLL_ENV_TYPE_SIZE size_t
#define SYMCOLL_ENV_TYPE_INT long
#define SYMCOLL_ENV_TYPE_STRING const char *

typedef struct {
#define SYMCOLL_ENV(name, kind, field, def, help) SYMCOLL_ENV_TYPE_##kind field;
#include "env.def"
#undef SYMCOLL_ENV
} symcoll_env_t;

/* The settings; parsed from the environment on first use and again by symcoll_env_load. */
const symcoll_env_t *symcoll_env(void);
/* Re-reads the environment; INVALID_ARGUMENT names the variable and value that is bad (the
 * previous settings stay then). */
symcoll_status_t symcoll_env_load(void);
/* Parses "123", "4k", "16M", "1g" (powers of 1024); 0 on success, -1 if malformed/overflow. */
int symcoll_parse_size(const char *text, size_t *out);
/* Parses a decimal integer; 0 on success, -1 if malformed. */
int symcoll_parse_int(const char *text, long *out);
/* Prints every variable with its value and help. */
void symcoll_env_print(FILE *out);
/* The SYMCOLL_ALGO_<COLLECTIVE> setting for a collective, "" when automatic. */
const char *symcoll_env_algo(symcoll_collective_t collective);

#ifdef __cplusplus
}
#endif
#endif
