#include "launcher.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

enum {
    VAR_RANK,
    VAR_SIZE,
    VAR_LOCAL_RANK,
    VAR_LOCAL_SIZE,
    VAR_LAUNCHER_FD,
    VAR_LAUNCHER_FD_INODE,
    VAR_UNIQUEID,
    VAR_BOOTSTRAP_SOCKET,
    N_LAUNCH_VARIABLES,
};

/* Inherited values would be wrong for the child (a launcher run inside another). */
static const char *const launch_variables[N_LAUNCH_VARIABLES] = {
    [VAR_RANK] = "SYMCOLL_RANK=",
    [VAR_SIZE] = "SYMCOLL_SIZE=",
    [VAR_LOCAL_RANK] = "SYMCOLL_LOCAL_RANK=",
    [VAR_LOCAL_SIZE] = "SYMCOLL_LOCAL_SIZE=",
    [VAR_LAUNCHER_FD] = LAUNCHER_FD_VARIABLE "=",
    [VAR_LAUNCHER_FD_INODE] = LAUNCHER_FD_INODE_VARIABLE "=",
    [VAR_UNIQUEID] = "SYMCOLL_UNIQUEID=",
    [VAR_BOOTSTRAP_SOCKET] = "SYMCOLL_BOOTSTRAP_SOCKET=",
};

static bool is_launch_variable(const char *entry) {
    for (size_t i = 0; i < N_LAUNCH_VARIABLES; i++)
        if (strncmp(entry, launch_variables[i], strlen(launch_variables[i])) == 0)
            return true;
    return false;
}

bool child_env_create(struct child_env *env, int rank, int size,
                      const struct child_bootstrap *bootstrap, const struct rank_status *status) {
    size_t n_inherited = 0;
    while (environ[n_inherited] != NULL)
        n_inherited++;
    /* Room for every launch variable with its longest value: the longest name, 20 digits. */
    size_t own_capacity = N_LAUNCH_VARIABLES * 48 + UNIQUEID_HEX_LEN + SOCKET_NAME_MAX;
    env->vars = malloc((n_inherited + N_LAUNCH_VARIABLES + 1) * sizeof *env->vars);
    env->own_vars = malloc(own_capacity);
    if (env->vars == NULL || env->own_vars == NULL) {
        child_env_destroy(env);
        return false;
    }

    size_t n_vars = 0;
    for (size_t i = 0; i < n_inherited; i++)
        if (!is_launch_variable(environ[i]))
            env->vars[n_vars++] = environ[i];

    char *cursor = env->own_vars;
    const char *own_end = env->own_vars + own_capacity;
    /* Single node: the local rank and size are the global ones. */
    const unsigned long long numeric_values[VAR_UNIQUEID] = {
        [VAR_RANK] = (unsigned long long)rank,
        [VAR_SIZE] = (unsigned long long)size,
        [VAR_LOCAL_RANK] = (unsigned long long)rank,
        [VAR_LOCAL_SIZE] = (unsigned long long)size,
        [VAR_LAUNCHER_FD] = (unsigned long long)status->write_fd,
        [VAR_LAUNCHER_FD_INODE] = status->inode,
    };
    for (int i = 0; i < VAR_UNIQUEID; i++) {
        env->vars[n_vars++] = cursor;
        cursor += snprintf(cursor, (size_t)(own_end - cursor), "%s%llu", launch_variables[i],
                           numeric_values[i]) +
                  1;
    }
    const char *text_values[N_LAUNCH_VARIABLES] = {
        [VAR_UNIQUEID] = bootstrap->uniqueid_hex,
        [VAR_BOOTSTRAP_SOCKET] = bootstrap->socket_name,
    };
    for (int i = VAR_UNIQUEID; i < N_LAUNCH_VARIABLES; i++)
        if (text_values[i] != NULL) {
            env->vars[n_vars++] = cursor;
            cursor += snprintf(cursor, (size_t)(own_end - cursor), "%s%s", launch_variables[i],
                               text_values[i]) +
                      1;
        }
    env->vars[n_vars] = NULL;
    return true;
}

void child_env_destroy(struct child_env *env) {
    free(env->vars);
    free(env->own_vars);
    env->vars = NULL;
    env->own_vars = NULL;
}
