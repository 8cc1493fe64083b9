/* Finds how this process was launched, in the README's order of precedence: the application's
 * attr, symcoll-run's environment, PMIx (mpirun, srun), torchrun's environment, and last a
 * single process on its own. */
#include <limits.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootstrap.h"
#include "env.h"
#include "internal.h"

static int env_int(const char *name, long *out) {
    const char *text = getenv(name);
    return text && symcoll_parse_int(text, out) == 0 ? 0 : -1;
}

/* The launcher's node-local rank and PE count, where it says them: they pick the GPU, and
 * more PEs than GPUs is refused at once on the NCCL paths. */
static void guess_local_rank(symcoll_launch_t *out) {
    static const char *const names[][2] = {
        {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {"LOCAL_RANK", "LOCAL_WORLD_SIZE"},
        {"SLURM_LOCALID", NULL},
        {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    };
    long value;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (env_int(names[i][0], &value) == 0) {
            out->local_rank = (int)value;
            if (names[i][1] && env_int(names[i][1], &value) == 0)
                out->local_size = (int)value;
            return;
        }
}

static symcoll_status_t from_attr(const symcoll_init_attr_t *attr, symcoll_launch_t *out) {
    if (attr->bootstrap == SYMCOLL_BOOTSTRAP_NCCL_COMM) {
        ncclComm_t comm = (ncclComm_t)attr->nccl_comm;
        int rank, size;
        if (ncclCommUserRank(comm, &rank) != ncclSuccess ||
            ncclCommCount(comm, &size) != ncclSuccess)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "symcoll_init: attr.nccl_comm %p is not a usable "
                                     "communicator",
                                     attr->nccl_comm);
        out->rank = rank;
        out->size = size;
        out->nccl_comm = attr->nccl_comm;
        out->path = "attr-ncclcomm";
        guess_local_rank(out);
        return SYMCOLL_SUCCESS;
    }
    out->rank = attr->rank;
    out->size = attr->size;
    if (attr->bootstrap == SYMCOLL_BOOTSTRAP_CALLBACKS) {
        out->callbacks = &attr->callbacks;
        out->path = "attr-callbacks";
        guess_local_rank(out);
        return SYMCOLL_SUCCESS;
    }
    out->uniqueid = attr->uniqueid;
    out->path = "attr-uniqueid";
    guess_local_rank(out);
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t from_launcher(symcoll_launch_t *out) {
    /* symcoll_env_load has checked that RANK, SIZE and UNIQUEID or BOOTSTRAP_SOCKET are set and
     * valid. */
    const symcoll_env_t *e = symcoll_env();
    if (*e->bootstrap_socket)
        out->socket = e->bootstrap_socket;
    else
        symcoll_uniqueid_from_hex(e->uniqueid, &out->uniqueid);
    out->rank = (int)e->rank;
    out->size = (int)e->size;
    out->local_rank = (int)e->local_rank;
    out->local_size = (int)e->local_size;
    out->path = "symcoll-run";
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t from_pmix(symcoll_launch_t *out) {
    symcoll_status_t st =
        symcoll_bootstrap_pmix_create((uint64_t)symcoll_env()->init_timeout_ms, &out->pmix);
    if (st != SYMCOLL_SUCCESS)
        return st;
    out->rank = out->pmix->rank;
    out->size = out->pmix->size;
    out->local_rank = out->pmix->local_rank;
    out->local_size = out->pmix->local_size;
    out->path = "pmix";
    if (out->rank == 0)
        st = symcoll_get_uniqueid(&out->uniqueid);
    /* Every rank joins the exchange, also when rank 0 failed, so that nobody waits forever. */
    symcoll_status_t shared =
        symcoll_bootstrap_pmix_share(out->pmix, &out->uniqueid, sizeof out->uniqueid);
    return st != SYMCOLL_SUCCESS ? st : shared;
}

/* NCCL's root listens on MASTER_ADDR:port; NCCL_COMM_ID stays set until
 * symcoll_launch_restore_env. */
static char saved_comm_id[256];
static int comm_id_saved, comm_id_was_set;

static symcoll_status_t from_torchrun(symcoll_launch_t *out) {
    long rank, size, local_rank = -1, local_size = -1, master_port = 0;
    const char *addr = getenv("MASTER_ADDR");
    if (env_int("RANK", &rank) || env_int("WORLD_SIZE", &size) || !addr)
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP, "symcoll_init: incomplete torchrun "
                                                          "environment (RANK, WORLD_SIZE, "
                                                          "MASTER_ADDR)");
    /* Above SYMCOLL_MAX_PES is init's UNSUPPORTED; other values would reach NCCL or
     * cudaSetDevice and fail there with a message that names neither variable. */
    if (size < 1 || size > INT_MAX || rank < 0 || rank >= size)
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "symcoll_init: torchrun environment RANK=%ld and WORLD_SIZE=%ld: "
                                 "expected 0 <= RANK < WORLD_SIZE",
                                 rank, size);
    env_int("LOCAL_RANK", &local_rank);
    env_int("LOCAL_WORLD_SIZE", &local_size);
    long port = symcoll_env()->bootstrap_port;
    if (port == 0) {
        if (env_int("MASTER_PORT", &master_port))
            return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                     "symcoll_init: torchrun launch without MASTER_PORT and "
                                     "without SYMCOLL_BOOTSTRAP_PORT");
        if (master_port < 0 || master_port >= 65535)
            return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                     "symcoll_init: torchrun environment MASTER_PORT=%ld: NCCL's "
                                     "root listens on MASTER_PORT+1, which must be a TCP port "
                                     "from 1 to 65535 (or set SYMCOLL_BOOTSTRAP_PORT)",
                                     master_port);
        port = master_port + 1;
    }
    const char *old = getenv("NCCL_COMM_ID");
    comm_id_was_set = old != NULL;
    if (old)
        snprintf(saved_comm_id, sizeof saved_comm_id, "%s", old);
    comm_id_saved = 1;
    char value[300];
    snprintf(value, sizeof value, "%s:%ld", addr, port);
    setenv("NCCL_COMM_ID", value, 1);
    out->rank = (int)rank;
    out->size = (int)size;
    out->local_rank = (int)local_rank;
    out->local_size = (int)local_size;
    out->path = "torchrun";
    return symcoll_get_uniqueid(&out->uniqueid);
}

void symcoll_launch_restore_env(void) {
    if (!comm_id_saved)
        return;
    if (comm_id_was_set)
        setenv("NCCL_COMM_ID", saved_comm_id, 1);
    else
        unsetenv("NCCL_COMM_ID");
    comm_id_saved = 0;
}

static symcoll_status_t single(symcoll_launch_t *out) {
    out->rank = 0;
    out->size = 1;
    out->local_rank = 0;
    out->local_size = 1;
    out->path = "single";
    return symcoll_get_uniqueid(&out->uniqueid);
}

/* The environment's launch path, in the order of precedence: a forced one, symcoll-run's
 * variables, PMIx, torchrun's variables, else a single PE. */
typedef symcoll_status_t (*launch_path_t)(symcoll_launch_t *out);
static launch_path_t environment_path(const symcoll_init_attr_t *attr) {
    const symcoll_env_t *e = symcoll_env();
    if ((attr && attr->bootstrap == SYMCOLL_BOOTSTRAP_PMIX) || !strcmp(e->bootstrap, "pmix"))
        return from_pmix;
    if (!strcmp(e->bootstrap, "launcher"))
        return from_launcher;
    if (!strcmp(e->bootstrap, "torchrun"))
        return from_torchrun;
    if (!strcmp(e->bootstrap, "single"))
        return single;
    if (*e->uniqueid || *e->bootstrap_socket)
        return from_launcher;
    if (symcoll_bootstrap_pmix_detected())
        return from_pmix;
    if (getenv("RANK") && getenv("WORLD_SIZE") && getenv("MASTER_ADDR"))
        return from_torchrun;
    return single;
}

/* The attr names the PEs itself (no environment applies). */
static int attr_path(const symcoll_init_attr_t *attr) {
    return attr && (attr->bootstrap == SYMCOLL_BOOTSTRAP_UNIQUEID ||
                    attr->bootstrap == SYMCOLL_BOOTSTRAP_NCCL_COMM ||
                    attr->bootstrap == SYMCOLL_BOOTSTRAP_CALLBACKS);
}

symcoll_status_t symcoll_launch_check_size(const symcoll_init_attr_t *attr) {
    long size;
    if (!attr_path(attr) && environment_path(attr) == from_torchrun &&
        env_int("WORLD_SIZE", &size) == 0 && size > SYMCOLL_MAX_PES)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "symcoll_init: torchrun launched WORLD_SIZE=%ld PEs, but symcoll "
                                 "supports at most %d (a device handle has one reachability bit "
                                 "per PE)",
                                 size, SYMCOLL_MAX_PES);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_launch_detect(const symcoll_init_attr_t *attr, symcoll_launch_t *out) {
    memset(out, 0, sizeof *out);
    out->local_rank = out->local_size = -1;
    return attr_path(attr) ? from_attr(attr, out) : environment_path(attr)(out);
}
