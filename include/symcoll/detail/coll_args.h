/* Internal, not API: what one call of a collective algorithm works on, shared by the library's
 * host side, its kernels and the device API's collectives (symcoll_device_coll.cuh). */
#ifndef SYMCOLL_DETAIL_COLL_ARGS_H
#define SYMCOLL_DETAIL_COLL_ARGS_H

#include <stddef.h>
#include "symcoll.h"

/* What moves between the members of a team in a collective. */
typedef enum {
    SYMCOLL_FLOW_SYNC,            /* nothing: a synchronization */
    SYMCOLL_FLOW_ONE_TO_ALL,      /* the root's src into every member's dst */
    SYMCOLL_FLOW_REDUCE,          /* every member's dst is the reduction of every member's src */
    SYMCOLL_FLOW_GATHER,          /* member m's src into block m of every member's dst */
    SYMCOLL_FLOW_EXCHANGE,        /* block t of member m's src into block m of member t's dst */
    SYMCOLL_FLOW_REDUCE_SCATTER,  /* member m's dst is the reduction of block m of every src */
    SYMCOLL_FLOW_EXCHANGE_COUNTED /* as EXCHANGE, with counts per pair that the kernel learns */
} symcoll_flow_t;

/* Everything a collective kernel needs, passed by value as its only parameter. */
typedef struct {
    symcoll_device_t h; /* the team */
    char *dst;          /* symmetric, this PE's address */
    const char *src;    /* symmetric, this PE's address */
    size_t bytes;       /* broadcast, reduce: the message; fcollect, alltoall, reduce_scatter:
                           one PE's block */
    int root;           /* broadcast: the root's team PE number */
    int algo;           /* the collective's algorithm (coll_algorithms.h) */
    int collective;     /* symcoll_collective_t: which of the kernel's collectives */
} symcoll_coll_args_t;

#endif
