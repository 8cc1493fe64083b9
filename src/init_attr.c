/* Validation of symcoll_init_attr_t, before any CUDA, NCCL or PMIx call. */
#include <stdint.h>
#include "internal.h"

#define INVALID SYMCOLL_ERROR_INVALID_ARGUMENT

static const char *bootstrap_name(symcoll_bootstrap_kind_t kind) {
    switch (kind) {
    case SYMCOLL_BOOTSTRAP_AUTO:
        return "SYMCOLL_BOOTSTRAP_AUTO";
    case SYMCOLL_BOOTSTRAP_UNIQUEID:
        return "SYMCOLL_BOOTSTRAP_UNIQUEID";
    case SYMCOLL_BOOTSTRAP_NCCL_COMM:
        return "SYMCOLL_BOOTSTRAP_NCCL_COMM";
    case SYMCOLL_BOOTSTRAP_PMIX:
        return "SYMCOLL_BOOTSTRAP_PMIX";
    case SYMCOLL_BOOTSTRAP_CALLBACKS:
        return "SYMCOLL_BOOTSTRAP_CALLBACKS";
    }
    return NULL;
}

static int all_zero(const symcoll_uniqueid_t *id) {
    for (size_t i = 0; i < sizeof id->internal; i++)
        if (id->internal[i])
            return 0;
    return 1;
}

static symcoll_status_t check_rank_and_size(const symcoll_init_attr_t *attr) {
    if (attr->size < 1 || attr->size > SYMCOLL_MAX_PES)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.size %d is not a PE count from 1 to %d "
                                 "(symcoll supports at most %d PEs)",
                                 attr->size, SYMCOLL_MAX_PES, SYMCOLL_MAX_PES);
    if (attr->rank < 0 || attr->rank >= attr->size)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.rank %d out of range for attr.size %d",
                                 attr->rank, attr->size);
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t check_uniqueid_fields(const symcoll_init_attr_t *attr) {
    symcoll_status_t st = check_rank_and_size(attr);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (all_zero(&attr->uniqueid))
        return symcoll_set_error(INVALID, "symcoll_init: attr.uniqueid is all zero: fill it from "
                                          "symcoll_get_uniqueid on one PE and send it to the "
                                          "others");
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t check_callbacks_fields(const symcoll_init_attr_t *attr) {
    symcoll_status_t st = check_rank_and_size(attr);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (!attr->callbacks.allgather || !attr->callbacks.barrier)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.callbacks.%s is NULL with attr.bootstrap "
                                 "SYMCOLL_BOOTSTRAP_CALLBACKS (set both allgather and barrier)",
                                 attr->callbacks.allgather ? "barrier" : "allgather");
    if (attr->nccl_comm)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.nccl_comm %p is set, but attr.bootstrap is "
                                 "SYMCOLL_BOOTSTRAP_CALLBACKS",
                                 attr->nccl_comm);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_init_check_attr(const symcoll_init_attr_t *attr) {
    if (!attr)
        return SYMCOLL_SUCCESS;
    if (attr->version != SYMCOLL_INIT_ATTR_VERSION)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.version %u, expected %u (use "
                                 "symcoll_init_attr_default)",
                                 attr->version, SYMCOLL_INIT_ATTR_VERSION);
    const char *kind = bootstrap_name(attr->bootstrap);
    if (!kind)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.bootstrap %d is not a "
                                 "symcoll_bootstrap_kind_t (AUTO, UNIQUEID, NCCL_COMM, PMIX or "
                                 "CALLBACKS)",
                                 (int)attr->bootstrap);
    if (attr->device < -1)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.device %d is not a device ordinal, or -1 for "
                                 "the local rank's GPU",
                                 attr->device);
    if (attr->heap_size > SIZE_MAX / 2)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.heap_size %zu is too large (a negative "
                                 "number?); 0 takes SYMCOLL_SYMMETRIC_SIZE",
                                 attr->heap_size);
    if (attr->bootstrap == SYMCOLL_BOOTSTRAP_CALLBACKS)
        return check_callbacks_fields(attr);
    if (attr->callbacks.allgather || attr->callbacks.barrier)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.callbacks is set, but attr.bootstrap is %s "
                                 "(set attr.bootstrap = SYMCOLL_BOOTSTRAP_CALLBACKS)",
                                 kind);
    if (attr->bootstrap == SYMCOLL_BOOTSTRAP_UNIQUEID)
        return check_uniqueid_fields(attr);
    if (attr->bootstrap == SYMCOLL_BOOTSTRAP_NCCL_COMM)
        return attr->nccl_comm ? SYMCOLL_SUCCESS
                               : symcoll_set_error(INVALID, "symcoll_init: attr.nccl_comm is NULL "
                                                            "with attr.bootstrap "
                                                            "SYMCOLL_BOOTSTRAP_NCCL_COMM");
    /* Fields of another launch path: most likely attr.bootstrap was left at its default. */
    if (attr->rank != -1 || attr->size != -1)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.rank %d and attr.size %d are set, but "
                                 "attr.bootstrap is %s, which takes them from the launcher (set "
                                 "attr.bootstrap = SYMCOLL_BOOTSTRAP_UNIQUEID, or leave them -1)",
                                 attr->rank, attr->size, kind);
    if (attr->nccl_comm)
        return symcoll_set_error(INVALID,
                                 "symcoll_init: attr.nccl_comm %p is set, but attr.bootstrap is %s "
                                 "(set attr.bootstrap = SYMCOLL_BOOTSTRAP_NCCL_COMM)",
                                 attr->nccl_comm, kind);
    return SYMCOLL_SUCCESS;
}
