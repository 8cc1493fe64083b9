/* symcoll-perf: the sweep CLI. See perf_args_usage (--help) for what it does. */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "dev_coll.h"
#include "dev_sync.h"
#include "explain.h"
#include "halo.h"
#include "job_topology.h"
#include "moe.h"
#include "soak.h"
#include "sweep.h"
#include "team_peers.h"
#include "tune.h"

#define EXIT_BAD_FLAGS 2
#define EXIT_SKIPPED 77

/* Room for the sweep's source and destination buffers and the library's own state. */
static void size_heap_for(const perf_args_t *args) {
    if (getenv("SYMCOLL_SYMMETRIC_SIZE") != NULL) {
        return;
    }
    char bytes[32];
    /* --op halo: fields of DEPTH + 2 = 10 faces, with room for padding; the in-kernel syncs
     * need a few KiB (the in-kernel collectives what the sweep needs); --op moe's buffers
     * follow its tokens. */
    bool dev_sync = args->dev_op == PERF_DEV_BARRIER || args->dev_op == PERF_DEV_PINGPONG;
    size_t per_size = dev_sync ? 0 : args->halo ? 12 : 3;
    snprintf(bytes, sizeof bytes, "%zu",
             args->moe ? perf_moe_heap_bytes(args)
                       : per_size * args->max_bytes + ((size_t)64 << 20));
    setenv("SYMCOLL_SYMMETRIC_SIZE", bytes, 0);
}

int main(int argc, char **argv) {
    perf_args_t args;
    perf_args_default(&args);
    char err[512];
    if (perf_args_parse(argc, argv, &args, err, sizeof err) != 0) {
        fprintf(stderr, "symcoll-perf: %s\nTry 'symcoll-perf --help'.\n", err);
        return EXIT_BAD_FLAGS;
    }
    if (args.help) {
        perf_args_usage(stdout);
        return 0;
    }
    if (args.explain) {
        return perf_explain(&args, stdout, stderr);
    }
    size_heap_for(&args);
    symcoll_status_t st = symcoll_init(NULL);
    if (st == SYMCOLL_ERROR_NO_GPU) {
        fprintf(stderr, "symcoll-perf: skipped: no GPU: %s\n", symcoll_last_error());
        return EXIT_SKIPPED;
    }
    if (st != SYMCOLL_SUCCESS) {
        fprintf(stderr, "symcoll-perf: symcoll_init: %s: %s\n", symcoll_status_string(st),
                symcoll_last_error());
        return 1;
    }
    if (args.team_peers && perf_team_peers(&args.team) != 0) {
        return 1;
    }
    int rc = args.topology                  ? perf_print_job_topology(stdout)
             : args.soak_seconds > 0        ? perf_soak(&args)
             : args.halo                    ? perf_halo(&args)
             : args.moe                     ? perf_moe(&args)
             : args.dev_op == PERF_DEV_COLL ? perf_dev_coll(&args)
             : args.dev_op != PERF_DEV_NONE ? perf_dev_sync(&args)
             : args.tune                    ? perf_tune(&args)
                                            : perf_sweep(&args);
    if (rc < 0) {
        return 1; /* a PE failed mid-sweep: the others may never reach a collective finalize */
    }
    st = symcoll_finalize();
    if (st != SYMCOLL_SUCCESS) {
        fprintf(stderr, "symcoll-perf: symcoll_finalize: %s\n", symcoll_last_error());
        return 1;
    }
    return rc;
}
