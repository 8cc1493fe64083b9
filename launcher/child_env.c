#include "launcher.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

#define VAR_ENUM(NAME) VAR_##NAME,
enum { SYMCOLL_LAUNCH_VARIABLES(VAR_ENUM) N_LAUNCH_VARIABLES };
#undef VAR_ENUM

/* Inherited values would be wrong for the child (a launcher run inside another). */
#define VAR_PREFIX(NAME) [VAR_##NAME] = "SYMCOLL_" #NAME "=",
static const char *const launch_variables[N_LAUNCH_VARIABLES] = {
    SYMCOLL_LAUNCH_VARIABLES(VAR_PREFIX)};
#undef VAR_PREFIX

static bool is_launch_variable(const char *entry) {
    for (size_t i = 0; i < N_LAUNCH_VARIABLES; i++)
        if (strncmp(entry, launch_variables[i], strlen(launch_variables[i])) == 0)
            return true;
    return false;
}

int rank_node(int rank, int size, int nodes) {
    return nodes > 0 ? (int)((long)rank * nodes / size) : -1;
}

bool child_env_create(struct child_env *env, int rank, int size, int node,
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
    /* One host: the local rank and size are the global ones (simulated nodes share the host's
     * GPUs, which the local rank picks among). Of the texts, the bootstrap sets one. */
    const struct {
        bool set;
        unsigned long long number;
        const char *text;
    } values[N_LAUNCH_VARIABLES] = {
        [VAR_RANK] = {true, (unsigned long long)rank, NULL},
        [VAR_SIZE] = {true, (unsigned long long)size, NULL},
        [VAR_LOCAL_RANK] = {true, (unsigned long long)rank, NULL},
        [VAR_LOCAL_SIZE] = {true, (unsigned long long)size, NULL},
        [VAR_NODE_ID] = {node >= 0, (unsigned long long)node, NULL},
        [VAR_LAUNCHER_FD] = {true, (unsigned long long)status->write_fd, NULL},
        [VAR_LAUNCHER_FD_INODE] = {true, status->inode, NULL},
        [VAR_UNIQUEID] = {bootstrap->uniqueid_hex != NULL, 0, bootstrap->uniqueid_hex},
        [VAR_BOOTSTRAP_SOCKET] = {bootstrap->socket_name != NULL, 0, bootstrap->socket_name},
    };
    for (int i = 0; i < N_LAUNCH_VARIABLES; i++) {
        if (!values[i].set)
            continue;
        env->vars[n_vars++] = cursor;
        size_t room = (size_t)(own_end - cursor);
        cursor += (values[i].text
                       ? snprintf(cursor, room, "%s%s", launch_variables[i], values[i].text)
                       : snprintf(cursor, room, "%s%llu", launch_variables[i], values[i].number)) +
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
