/* Program-provided bootstrap: the program's own allgather and barrier carry every exchange
 * (SYMCOLL_BOOTSTRAP_CALLBACKS), so MPI programs and torch.distributed groups need neither
 * NCCL nor PMIx, and PEs may share a GPU. */
#include <stdlib.h>
#include "bootstrap.h"
#include "internal.h"

static symcoll_bootstrap_callbacks_t *callbacks_of(symcoll_bootstrap_t *b) {
    return (symcoll_bootstrap_callbacks_t *)b->impl;
}

static symcoll_status_t callbacks_allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                            size_t bytes) {
    symcoll_bootstrap_callbacks_t *cb = callbacks_of(b);
    int rc = cb->allgather(mine, all, bytes, cb->context);
    return rc == 0 ? SYMCOLL_SUCCESS
                   : symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                       "program-provided bootstrap: attr.callbacks.allgather of "
                                       "%zu bytes returned %d",
                                       bytes, rc);
}

static symcoll_status_t callbacks_barrier(symcoll_bootstrap_t *b) {
    symcoll_bootstrap_callbacks_t *cb = callbacks_of(b);
    int rc = cb->barrier(cb->context);
    return rc == 0 ? SYMCOLL_SUCCESS
                   : symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                       "program-provided bootstrap: attr.callbacks.barrier "
                                       "returned %d",
                                       rc);
}

/* The program owns its exchange: nothing of it is closed here, also after an error. */
static void callbacks_destroy(symcoll_bootstrap_t *b, int abort) {
    (void)abort;
    free(b->impl);
    free(b);
}

symcoll_status_t symcoll_bootstrap_callbacks_create(const symcoll_bootstrap_callbacks_t *callbacks,
                                                    int rank, int size, symcoll_bootstrap_t **out) {
    symcoll_bootstrap_t *b = calloc(1, sizeof *b);
    symcoll_bootstrap_callbacks_t *copy = malloc(sizeof *copy);
    if (!b || !copy) {
        free(b);
        free(copy);
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "program-provided bootstrap: out of host memory");
    }
    *copy = *callbacks;
    *b = (symcoll_bootstrap_t){
        .name = "callbacks",
        .rank = rank,
        .size = size,
        .local_rank = -1,
        .local_size = -1,
        .allgather = callbacks_allgather,
        .barrier = callbacks_barrier,
        .destroy = callbacks_destroy,
        .impl = copy,
    };
    /* A program whose exchange does not match attr.rank and attr.size would fill every buffer
     * wrongly: the first exchange checks that entry r comes from rank r of size PEs. */
    int32_t mine[2] = {rank, size}, all[2 * SYMCOLL_MAX_PES];
    symcoll_status_t st = callbacks_allgather(b, mine, all, sizeof mine);
    for (int pe = 0; pe < size && st == SYMCOLL_SUCCESS; pe++)
        if (all[2 * pe] != pe || all[2 * pe + 1] != size)
            st = symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                   "program-provided bootstrap: entry %d of attr.callbacks."
                                   "allgather came from a PE that says attr.rank %d and "
                                   "attr.size %d (this PE: rank %d of %d); the exchange must "
                                   "order the PEs by attr.rank",
                                   pe, all[2 * pe], all[2 * pe + 1], rank, size);
    if (st != SYMCOLL_SUCCESS) {
        callbacks_destroy(b, 1);
        return st;
    }
    *out = b;
    return SYMCOLL_SUCCESS;
}
