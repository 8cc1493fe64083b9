/* The halo plan as the runtime (src/halo.c) builds it and the enqueue (collectives/halo.c)
 * uses it. */
#ifndef SYMCOLL_HALO_PLAN_H
#define SYMCOLL_HALO_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "halo_launch.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offsets in a plan's symmetric area for a team of n PEs: flags written by the
 * neighbours (arrive, data), this PE's own counters (send and receive epochs, block tickets,
 * team sums, the last scrub of each LL slot parity), the tables of outgoing and incoming messages,
 * the slots of the team sum written by the members, then the LL slots (SYMCOLL_HALO_AREA_LL). */
#define SYMCOLL_HALO_AREA_ARRIVE ((size_t)0)
#define SYMCOLL_HALO_AREA_DATA ((size_t)256)
#define SYMCOLL_HALO_AREA_SEND_EPOCH ((size_t)512)
#define SYMCOLL_HALO_AREA_RECV_EPOCH ((size_t)768)
#define SYMCOLL_HALO_AREA_SENT_BLOCKS ((size_t)1024)
#define SYMCOLL_HALO_AREA_SUM_EPOCH ((size_t)1280)
#define SYMCOLL_HALO_AREA_LL_SCRUBBED ((size_t)1288)
#define SYMCOLL_HALO_AREA_MSG ((size_t)1536)
#define SYMCOLL_HALO_TABLE_BYTES                                                                   \
    ((SYMCOLL_HALO_DIRS * sizeof(symcoll_halo_msg_t) + 127) & ~(size_t)127)
#define SYMCOLL_HALO_AREA_IN (SYMCOLL_HALO_AREA_MSG + SYMCOLL_HALO_TABLE_BYTES)
#define SYMCOLL_HALO_AREA_SUM (SYMCOLL_HALO_AREA_IN + SYMCOLL_HALO_TABLE_BYTES)
#define SYMCOLL_HALO_AREA_LL(n) (SYMCOLL_HALO_AREA_SUM + (size_t)(n)*2 * 64)
/* After the LL slots, in a job across nodes, the part for neighbours on other nodes
 * (SYMCOLL_HALO_REMOTE_* of halo_launch.h: counters, then the slots). */

struct symcoll_halo_plan {
    symcoll_team_t team;
    int team_pe;              /* -1: this PE is outside the team */
    symcoll_halo_desc_t desc; /* normalized */
    size_t span;              /* bytes every field must hold (the largest team PE's layout) */
    char *area;               /* symmetric, area_bytes */
    symcoll_halo_device_t dev;
    int n_dirs;                                    /* directions with a message */
    uint8_t dir[SYMCOLL_HALO_DIRS];                /* in increasing order */
    size_t dir_bytes[SYMCOLL_HALO_DIRS];           /* box bytes per list entry */
    symcoll_halo_msg_t dir_msg[SYMCOLL_HALO_DIRS]; /* the message per list entry */
    size_t dir_in_bytes[SYMCOLL_HALO_DIRS];        /* the incoming box's bytes per entry */
    size_t area_bytes;
    char *ll;                               /* in area: the LL slots */
    uint64_t ll_off[SYMCOLL_HALO_DIRS];     /* by direction: its LL slot pair, from ll */
    uint32_t ll_payload[SYMCOLL_HALO_DIRS]; /* by direction: payload bytes of one slot */
    int max_blocks;                         /* grid limit of one exchange */
    /* Directions whose neighbour is on another node, in increasing order (remote.dir, n_dirs
     * of them): their boxes travel packed, through the proxy, not in the lists above. The
     * arguments of their rounds, all but the field (remote.remote NULL where no direction of
     * the plan crosses nodes). */
    symcoll_halo_remote_args_t remote;
    bool across_nodes; /* some PE of the job has such a neighbour: no device handle */
};

#ifdef __cplusplus
}
#endif
#endif
