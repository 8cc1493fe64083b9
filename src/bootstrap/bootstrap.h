/* The bootstrap: how PEs exchange small host data at init, malloc and free. */
#ifndef SYMCOLL_BOOTSTRAP_H
#define SYMCOLL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symcoll_bootstrap {
    const char *name; /* "nccl", "pmix" */
    int rank, size;
    int local_rank, local_size; /* from the launcher, -1 when it does not say */
    /* all[rank * bytes ...] = every PE's mine; collective. */
    symcoll_status_t (*allgather)(struct symcoll_bootstrap *b, const void *mine, void *all,
                                  size_t bytes);
    symcoll_status_t (*barrier)(struct symcoll_bootstrap *b);
    /* Tears down; abort = true after an error (peers may be gone: never blocks). */
    void (*destroy)(struct symcoll_bootstrap *b, int abort);
    void *impl;
} symcoll_bootstrap_t;

/* Collective: every PE's status of a step, so that a failure on one PE fails the step on all
 * of them instead of leaving the others waiting in the next exchange. Returns mine when it
 * failed (its message kept), else the first other PE's failure, named with fn, else the
 * exchange's own failure. */
symcoll_status_t symcoll_bootstrap_agree(symcoll_bootstrap_t *b, const char *fn,
                                         symcoll_status_t mine);

/* Collective: the smallest of every PE's value. */
symcoll_status_t symcoll_bootstrap_min(symcoll_bootstrap_t *b, const char *fn, int mine,
                                       int *smallest);

/* Every PE's blob of its own size (symcoll_bootstrap_allgatherv); free with
 * symcoll_bootstrap_blobs_free. */
typedef struct {
    char *data;      /* PE p's blob at data + p * stride */
    size_t stride;   /* the largest blob's size */
    uint64_t *sizes; /* PE p's blob is sizes[p] bytes long */
} symcoll_bootstrap_blobs_t;

/* Collective: a variable-size allgather (the sizes first, then the blobs padded to the
 * largest); fn names the caller in errors. */
symcoll_status_t symcoll_bootstrap_allgatherv(symcoll_bootstrap_t *b, const char *fn,
                                              const void *mine, size_t bytes,
                                              symcoll_bootstrap_blobs_t *out);
void symcoll_bootstrap_blobs_free(symcoll_bootstrap_blobs_t *blobs);

/* Milliseconds of a monotonic clock, for the exchanges' deadlines. */
uint64_t symcoll_bootstrap_now_ms(void);

/* Where the PEs' identities and the NCCL unique id come from, in order of precedence. */
typedef struct {
    int rank, size, local_rank, local_size; /* local_*: -1 when unknown */
    symcoll_uniqueid_t uniqueid;
    void *nccl_comm;           /* an application's ncclComm_t (then uniqueid is unused) */
    const char *path;          /* "attr-uniqueid", "attr-ncclcomm", "symcoll-run", "pmix", ... */
    symcoll_bootstrap_t *pmix; /* the PMIx bootstrap when launched by PMIx (kept open) */
    const char *socket;        /* symcoll-run's socket bootstrap: its name; NULL: none */
    const symcoll_bootstrap_callbacks_t *callbacks; /* the program's exchange; NULL: none */
} symcoll_launch_t;

/* Finds the launch path (attr, symcoll-run env, PMIx, torchrun env, single process) and fills
 * *out; the unique id of the torchrun path is made here with NCCL_COMM_ID set temporarily. */
symcoll_status_t symcoll_launch_detect(const symcoll_init_attr_t *attr, symcoll_launch_t *out);

/* UNSUPPORTED when the launch the environment describes brings more than SYMCOLL_MAX_PES PEs
 * (torchrun's WORLD_SIZE), checked before any GPU work; the other paths check their sizes as
 * settings (attr.size, SYMCOLL_SIZE: INVALID_ARGUMENT) or once they are known (PMIx, an NCCL
 * communicator: UNSUPPORTED). */
symcoll_status_t symcoll_launch_check_size(const symcoll_init_attr_t *attr);

/* Restores NCCL_COMM_ID after the torchrun path has formed its communicator. */
void symcoll_launch_restore_env(void);

/* NCCL communicator bootstrap (non-blocking, aborted on timeout). Needs cudaSetDevice done. */
symcoll_status_t symcoll_bootstrap_nccl_create(const symcoll_launch_t *launch, uint64_t timeout_ms,
                                               symcoll_bootstrap_t **out);
/* Socket bootstrap of symcoll-run's PEs: PE 0 listens on the abstract Unix socket name and
 * relays every exchange; each exchange gives up after timeout_ms (TIMEOUT). */
symcoll_status_t symcoll_bootstrap_socket_create(const char *name, int rank, int size,
                                                 uint64_t timeout_ms, symcoll_bootstrap_t **out);
/* The program's own allgather and barrier (SYMCOLL_BOOTSTRAP_CALLBACKS), copied. */
symcoll_status_t symcoll_bootstrap_callbacks_create(const symcoll_bootstrap_callbacks_t *callbacks,
                                                    int rank, int size, symcoll_bootstrap_t **out);
/* PMIx bootstrap (libpmix.so.2 through dlopen); UNSUPPORTED when PMIx is absent. Every fence
 * gives up after timeout_ms, rounded up to whole seconds (PMIx's unit): TIMEOUT. */
symcoll_status_t symcoll_bootstrap_pmix_create(uint64_t timeout_ms, symcoll_bootstrap_t **out);
/* True when the environment looks like a PMIx launch (PMIX_RANK / PMIX_NAMESPACE set). */
int symcoll_bootstrap_pmix_detected(void);
/* PMIx key-value exchange used to publish the NCCL unique id: rank 0 puts, fence, all get. */
symcoll_status_t symcoll_bootstrap_pmix_share(symcoll_bootstrap_t *b, void *data, size_t bytes);

/* Hex text of a unique id (256 chars + NUL) and back; 0 on success. */
void symcoll_uniqueid_to_hex(const symcoll_uniqueid_t *id, char hex[257]);
int symcoll_uniqueid_from_hex(const char *hex, symcoll_uniqueid_t *id);

#ifdef __cplusplus
}
#endif
#endif
