#include "launcher.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void print_usage(FILE *out) {
    fprintf(out,
            "Usage: " LAUNCHER_NAME " [options] program [args...]\n"
            "Runs N copies of program on this node, one per PE, and exits with:\n"
            "  the status of the first PE that failed (128 + signal if killed),\n"
            "  77 if every PE exited 77 (skipped), 124 on timeout, else 0.\n"
            "When a PE fails, or exits without symcoll_finalize while others still run, the\n"
            "others get SIGTERM, then SIGKILL after %.0f s (unless --keep-going).\n"
            "SIGINT and SIGTERM sent to " LAUNCHER_NAME " are forwarded to the PEs.\n"
            "What a PE leaves running in its process group is killed when the last PE ends.\n"
            "Each PE sees SYMCOLL_RANK, SYMCOLL_SIZE, SYMCOLL_LOCAL_RANK, SYMCOLL_LOCAL_SIZE\n"
            "and SYMCOLL_UNIQUEID (NCCL bootstrap) or SYMCOLL_BOOTSTRAP_SOCKET (socket\n"
            "bootstrap: PE 0 relays the exchanges); its stdin is /dev/null.\n"
            "\n"
            "Options (they end at the program):\n"
            "  -n, -np, --np N      number of PEs (default: number of local GPUs, or 1)\n"
            "      --bootstrap B    how the PEs exchange at init: nccl (one GPU per PE),\n"
            "                       socket (also PEs that share a GPU, which NCCL refuses),\n"
            "                       or auto (default: socket when PEs outnumber the GPUs)\n"
            "      --tag-output     prefix every output line with \"[rank] \"\n"
            "      --timeout SEC    kill the PEs after SEC seconds and exit 124\n"
            "      --nodes K        split the PEs into K simulated nodes (contiguous blocks of\n"
            "                       ranks, SYMCOLL_NODE_ID): PEs of different nodes map none\n"
            "                       of each other's memory, as on different hosts\n"
            "      --keep-going     let the other PEs run on when one fails (they see\n"
            "                       SYMCOLL_ERROR_TIMEOUT); the exit status is still the\n"
            "                       first failure's\n"
            "  -h, --help           print this help\n",
            KILL_GRACE_SECONDS);
}

/* A whole number from 1 to MAX_PES (a PE or node count) in *value; false for anything else. */
static bool parse_count(const char *text, int *value) {
    char *end;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < 1 || parsed > MAX_PES)
        return false;
    *value = (int)parsed;
    return true;
}

static bool parse_n_pes(const char *text, int *n_pes) {
    if (parse_count(text, n_pes))
        return true;
    fprintf(stderr,
            LAUNCHER_NAME ": -n: '%s' is not a PE count from 1 to %d (symcoll supports at "
                          "most %d PEs per job)\n",
            text, MAX_PES, MAX_PES);
    return false;
}

static bool parse_nodes(const char *text, int *nodes) {
    if (parse_count(text, nodes))
        return true;
    fprintf(stderr, LAUNCHER_NAME ": --nodes: '%s' is not a node count from 1 to %d\n", text,
            MAX_PES);
    return false;
}

static bool parse_timeout(const char *text, double *seconds) {
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(value) || value <= 0) {
        fprintf(stderr, LAUNCHER_NAME ": --timeout: '%s' is not a positive number of seconds\n",
                text);
        return false;
    }
    *seconds = value;
    return true;
}

/* argument: the word getopt_long failed on. optopt is the letter of a bad short option, but for
   "--name=value" given to an option that takes no value glibc sets it to the option's val, which
   may be no printable letter: only the word itself names a long option. */
static void report_bad_option(const char *argument) {
    if (strncmp(argument, "--", 2) != 0)
        fprintf(stderr, LAUNCHER_NAME ": unknown option '-%c'\n", optopt);
    else if (optopt != 0)
        fprintf(stderr, LAUNCHER_NAME ": option '%s' takes no value\n", argument);
    else
        fprintf(stderr, LAUNCHER_NAME ": unknown option '%s'\n", argument);
    fprintf(stderr, "Try '" LAUNCHER_NAME " --help'.\n");
}

static bool parse_bootstrap(const char *text, enum launch_bootstrap *bootstrap) {
    static const char *const names[] = {
        [BOOTSTRAP_AUTO] = "auto", [BOOTSTRAP_NCCL] = "nccl", [BOOTSTRAP_SOCKET] = "socket"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i]) == 0) {
            *bootstrap = (enum launch_bootstrap)i;
            return true;
        }
    fprintf(stderr, LAUNCHER_NAME ": --bootstrap: '%s' is not auto, nccl or socket\n", text);
    return false;
}

enum { OPTION_TAG_OUTPUT = 256, OPTION_TIMEOUT, OPTION_KEEP_GOING, OPTION_BOOTSTRAP, OPTION_NODES };

enum parse_result parse_options(int argc, char **argv, struct launch_options *options) {
    static const struct option long_options[] = {
        {"np", required_argument, NULL, 'n'},
        {"tag-output", no_argument, NULL, OPTION_TAG_OUTPUT},
        {"timeout", required_argument, NULL, OPTION_TIMEOUT},
        {"keep-going", no_argument, NULL, OPTION_KEEP_GOING},
        {"bootstrap", required_argument, NULL, OPTION_BOOTSTRAP},
        {"nodes", required_argument, NULL, OPTION_NODES},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *options = (struct launch_options){0};
    opterr = 0;
    int option;
    /* The word getopt_long works on; a group of short options like -xz stays there until its
       last letter, so optind - 1 after the call may name the word before. */
    int current = optind;
    /* '+': options end at the first non-option, the program. */
    for (;;) {
        /* mpirun's spelling: getopt would read "-np" as -n with the value "p". */
        if (optind + 1 < argc && strcmp(argv[optind], "-np") == 0) {
            if (!parse_n_pes(argv[optind + 1], &options->n_pes))
                return PARSE_INVALID;
            optind += 2;
            current = optind;
            continue;
        }
        if ((option = getopt_long(argc, argv, "+:hn:", long_options, NULL)) == -1)
            break;
        switch (option) {
        case 'n':
            if (!parse_n_pes(optarg, &options->n_pes))
                return PARSE_INVALID;
            break;
        case OPTION_TAG_OUTPUT:
            options->tag_output = true;
            break;
        case OPTION_KEEP_GOING:
            options->keep_going = true;
            break;
        case OPTION_BOOTSTRAP:
            if (!parse_bootstrap(optarg, &options->bootstrap))
                return PARSE_INVALID;
            break;
        case OPTION_NODES:
            if (!parse_nodes(optarg, &options->nodes))
                return PARSE_INVALID;
            break;
        case OPTION_TIMEOUT:
            if (!parse_timeout(optarg, &options->timeout_seconds))
                return PARSE_INVALID;
            break;
        case 'h':
            return PARSE_HELP;
        case ':':
            fprintf(stderr, LAUNCHER_NAME ": option '%s' needs a value\n", argv[optind - 1]);
            fprintf(stderr, "Try '" LAUNCHER_NAME " --help'.\n");
            return PARSE_INVALID;
        default:
            report_bad_option(argv[current]);
            return PARSE_INVALID;
        }
        current = optind;
    }
    if (optind >= argc) {
        fprintf(stderr, LAUNCHER_NAME ": no program given\n");
        fprintf(stderr, "Try '" LAUNCHER_NAME " --help'.\n");
        return PARSE_INVALID;
    }
    options->program_argv = argv + optind;
    return PARSE_RUN;
}
