/* Internal, not API: the layout of a team's synchronization area, shared by the library and
 * the header-only device API (symcoll_device_internal.cuh). It belongs to
 * SYMCOLL_DEVICE_HANDLE_VERSION: a change here comes with a new handle version. */
#ifndef SYMCOLL_SYNC_LAYOUT_H
#define SYMCOLL_SYNC_LAYOUT_H

#include <stddef.h>

/* Slots 0 .. SYMCOLL_SYNC_SLOTS-2 belong to the library's kernels (one per thread block),
 * the last slot to the device API's block barrier. */
#define SYMCOLL_MAX_BLOCKS 128
#define SYMCOLL_SYNC_SLOTS (SYMCOLL_MAX_BLOCKS + 1)
#define SYMCOLL_USER_SYNC_SLOT SYMCOLL_MAX_BLOCKS
#define SYMCOLL_LL_BLOCKS 16
#define SYMCOLL_LL_SLOT_BYTES (16 * 1024) /* one LL buffer: 8 KiB of payload */

/* Byte offsets inside a team's synchronization area for a team of n PEs:
 * counter[slot]      uint64, this PE's own count of sync points per slot (never read by peers)
 * ll_epoch[block]    uint64, this PE's own count of LL rounds per LL block
 * flag[slot][i]      uint64, written by team member i with its counter value
 * ack[block][i]      uint64, written by team member i with the LL epoch it has consumed
 * ll[block][i][2]    LL buffers written by team member i, double-buffered by epoch parity
 * local[2]           uint64, this PE's own words for the library's kernels, never read by
 *                    peers nor by the device API (alltoallv: the epoch of block 0's counts,
 *                    and how many blocks have read them)
 * grid               uint64, this PE's own word for the device API's grid syncs (the blocks
 *                    of one kernel meet): arrivals in the low 32 bits, the generation above */
#define SYMCOLL_SYNC_COUNTER_OFF ((size_t)0)
#define SYMCOLL_SYNC_LL_EPOCH_OFF ((size_t)SYMCOLL_SYNC_SLOTS * 8)
#define SYMCOLL_SYNC_FLAG_OFF ((size_t)(SYMCOLL_SYNC_SLOTS + SYMCOLL_LL_BLOCKS) * 8)
#define SYMCOLL_SYNC_ACK_OFF(n) (SYMCOLL_SYNC_FLAG_OFF + (size_t)SYMCOLL_SYNC_SLOTS * (n)*8)
#define SYMCOLL_SYNC_LL_OFF(n)                                                                     \
    ((SYMCOLL_SYNC_ACK_OFF(n) + (size_t)SYMCOLL_LL_BLOCKS * (n)*8 + 127) & ~(size_t)127)
#define SYMCOLL_SYNC_LOCAL_OFF(n)                                                                  \
    (SYMCOLL_SYNC_LL_OFF(n) + (size_t)SYMCOLL_LL_BLOCKS * (n)*2 * SYMCOLL_LL_SLOT_BYTES)
#define SYMCOLL_SYNC_GRID_OFF(n) (SYMCOLL_SYNC_LOCAL_OFF(n) + 2 * 8)
/* Areas lie end to end in one pool: each is a multiple of 128 bytes, so that every area's LL
 * buffers stay aligned for their 16-byte stores. */
#define SYMCOLL_SYNC_BYTES(n) ((SYMCOLL_SYNC_GRID_OFF(n) + 8 + 127) & ~(size_t)127)

#endif
