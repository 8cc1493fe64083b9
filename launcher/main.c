/* symcoll-run: runs one process per PE on this node and hands each the symcoll launch
   variables; see print_usage. */
#include "launcher.h"

#include <stdlib.h>

/* Starts the children in rank order; a failed start stops those already running. */
static void start_children(struct supervisor *sup, const struct launch_options *options,
                           const struct child_bootstrap *bootstrap) {
    for (int rank = 0; rank < options->n_pes; rank++) {
        struct child *child = &sup->children[rank];
        struct child_env env;
        child->rank = rank;
        if (!child_env_create(&env, rank, options->n_pes,
                              rank_node(rank, options->n_pes, options->nodes), bootstrap,
                              sup->status)) {
            fprintf(stderr, LAUNCHER_NAME ": out of memory\n");
            supervisor_fail(sup, EXIT_FAILURE);
            return;
        }
        bool started = spawn_child(child, options->program_argv, env.vars, sup->status->write_fd,
                                   options->tag_output ? &sup->tag : NULL);
        child_env_destroy(&env);
        if (!started) {
            supervisor_fail(sup, EXIT_FAILURE);
            return;
        }
        sup->n_children = rank + 1;
    }
}

int main(int argc, char **argv) {
    struct launch_options options;
    switch (parse_options(argc, argv, &options)) {
    case PARSE_HELP:
        print_usage(stdout);
        return EXIT_SUCCESS;
    case PARSE_INVALID:
        return EXIT_USAGE;
    case PARSE_RUN:
        break;
    }
    /* With -n, GPUs that cannot be counted (an MPS server that refuses clients) only rule out
       NCCL's bootstrap: the socket serves any number. */
    int local_gpus = count_local_gpus(options.n_pes > 0);
    if (local_gpus < 0 && options.n_pes == 0)
        return EXIT_FAILURE;
    if (options.n_pes == 0) {
        options.n_pes = local_gpus;
        if (options.n_pes > MAX_PES) {
            fprintf(stderr,
                    LAUNCHER_NAME ": %d local GPUs; starting %d PEs, the most symcoll "
                                  "supports (use -n to choose)\n",
                    options.n_pes, MAX_PES);
            options.n_pes = MAX_PES;
        }
    }

    if (options.nodes > options.n_pes) {
        fprintf(stderr, LAUNCHER_NAME ": --nodes %d needs at least %d PEs, not %d\n", options.nodes,
                options.nodes, options.n_pes);
        return EXIT_USAGE;
    }

    /* NCCL refuses two ranks on one GPU; where it cannot make an id, the socket serves too. */
    char uniqueid_hex[UNIQUEID_HEX_LEN + 1], socket_name[SOCKET_NAME_MAX];
    struct child_bootstrap bootstrap = {0};
    bool use_socket =
        options.bootstrap == BOOTSTRAP_SOCKET ||
        (options.bootstrap == BOOTSTRAP_AUTO && (local_gpus < 0 || options.n_pes > local_gpus));
    if (!use_socket && create_uniqueid_hex(uniqueid_hex)) {
        bootstrap.uniqueid_hex = uniqueid_hex;
    } else {
        if (options.bootstrap == BOOTSTRAP_NCCL)
            fprintf(stderr, LAUNCHER_NAME ": --bootstrap nccl: NCCL made no unique id; the PEs "
                                          "exchange through the socket bootstrap instead\n");
        create_socket_name(socket_name);
        bootstrap.socket_name = socket_name;
    }

    int signal_fd = signals_install();
    struct child *children = calloc((size_t)options.n_pes, sizeof *children);
    struct rank_status status;
    struct supervisor sup;
    if (signal_fd < 0 || children == NULL || !rank_status_open(&status) ||
        !supervisor_init(&sup, children, options.n_pes, signal_fd, options.timeout_seconds, &status,
                         options.keep_going)) {
        fprintf(stderr, LAUNCHER_NAME ": cannot set up the run\n");
        return EXIT_FAILURE;
    }
    /* Output the children write through our stdio buffers would come after theirs. */
    fflush(stdout);
    fflush(stderr);
    start_children(&sup, &options, &bootstrap);
    int exit_code = supervisor_run(&sup);
    supervisor_destroy(&sup);
    rank_status_close(&status);
    free(children);
    return exit_code;
}
