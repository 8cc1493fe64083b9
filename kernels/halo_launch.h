/* Launch function of kernels/halo.cu, called by collectives/halo.c. */
#ifndef SYMCOLL_HALO_LAUNCH_H
#define SYMCOLL_HALO_LAUNCH_H

#include <stdint.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the exchange kernel. */
#define SYMCOLL_HALO_THREADS 512

/* Small messages travel as LL lines (8 bytes of payload and the exchange number twice in 16
 * bytes) into a slot of the receiver, which copies them into its own halo: one one-way trip,
 * no credit (the receiver writes its halo itself) and no fence. Each used direction has two
 * slots (by the parity of the exchange number). A slot carries SYMCOLL_HALO_LL_BYTES of
 * payload (src/env.def; rounded down to 8 bytes); for a direction whose faces have narrow
 * rows (SYMCOLL_HALO_LL_NARROW_ROW bytes or fewer: columns, which stored straight into the
 * halo would be scattered small writes), as much as the team's largest face toward it, up to
 * SYMCOLL_HALO_LL_MAX_BYTES. A sender writes the slot of exchange k once it has received
 * exchange k-1 from that neighbour, so the neighbour has finished exchange k-2, the last
 * reader of the slot.
 *
 * A line carries the low 32 bits of k, and a line that no later exchange rewrites (the
 * exchange had more fields than the ones after it) stays in the slot. So that it never
 * passes for a line of exchange k + 2^32, the receiver rewrites its whole slots of parity p
 * with lines of exchange k at the end of exchange k when 2^31 exchanges have passed since it
 * last did (ll_scrubbed[p]), whether exchange k travelled as LL lines or not. Exchanges made
 * in user kernels (symcoll_halo_device.cuh) move no LL lines and do not rewrite them: the
 * next exchange on the stream of that parity catches up, after its own reads. So a line stays
 * less than 2^32 exchanges old as long as every 2^31 exchanges include one on the stream of
 * each parity; a plan whose stream exchanges all have one parity for longer (user kernels
 * doing every other exchange) can see a line 2^32 exchanges old. */
#define SYMCOLL_HALO_LL_NARROW_ROW 64
#define SYMCOLL_HALO_LL_MAX_BYTES ((size_t)4 << 20)

/* One exchange: the directions with a message, in order, and the blocks each one gets
 * (blocks of list entry i: first_block[i] .. first_block[i + 1] - 1). */
typedef struct {
    symcoll_halo_device_t hh;
    symcoll_halo_msg_t msg[SYMCOLL_HALO_DIRS]; /* hh.msg of list entry i, in the parameters */
    const symcoll_halo_msg_t *in;              /* by direction: the neighbour's message to us */
    char *ll;                                  /* symmetric: the plan's LL slots */
    uint64_t ll_off[SYMCOLL_HALO_DIRS];        /* by direction: its slot pair in ll */
    uint32_t ll_payload[SYMCOLL_HALO_DIRS];    /* by direction: payload bytes of one slot */
    uint32_t ll_entries;                       /* bit i: list entry i travels as LL lines */
    uint64_t *ll_scrubbed;                     /* this PE's [parity]: exchange of last rewrite */
    void *fields[SYMCOLL_HALO_MAX_FIELDS];
    int32_t n_fields;
    int32_t n_dirs;
    uint8_t dir[SYMCOLL_HALO_DIRS];
    uint16_t first_block[SYMCOLL_HALO_DIRS + 1];
} symcoll_halo_args_t;

/* One kernel of first_block[n_dirs] blocks. An LL entry's blocks each send a share of the
 * packed cells as LL lines and copy the same share of the incoming lines into the halo. The
 * others': every block tells every neighbour that this PE entered the exchange, waits for its
 * own neighbour's credit, stores its share of the cells; the last block of a direction
 * publishes it and waits for the neighbour's cells. */
cudaError_t symcoll_halo_launch(const symcoll_halo_args_t *args, cudaStream_t stream);

/* Neighbours on other nodes. Each direction has three slots of the same size as its opposite
 * direction's: its packed box goes out from the first, and the boxes of the neighbour there
 * come into the other two, by the parity of the round (one round per field of an exchange).
 * A sender posts round r once it has unpacked the neighbour's round r - 1, so the neighbour
 * has unpacked round r - 2, the last one of that slot. The counters before the slots, by
 * direction: rounds that arrived (symmetric, ADDed by the proxy), sent and received. */
#define SYMCOLL_HALO_REMOTE_ARRIVED 0
#define SYMCOLL_HALO_REMOTE_SENT SYMCOLL_HALO_DIRS
#define SYMCOLL_HALO_REMOTE_RECEIVED (2 * SYMCOLL_HALO_DIRS)
#define SYMCOLL_HALO_REMOTE_SLOTS ((size_t)1024) /* bytes of the counters, rounded up */

typedef struct {
    symcoll_device_t team;            /* the plan's team (its proxy ring, its timeout) */
    const symcoll_halo_msg_t *msg;    /* by direction: our message */
    const symcoll_halo_msg_t *in;     /* by direction: the neighbour's message to us */
    char *remote;                     /* symmetric: counters, then slots */
    uint64_t off[SYMCOLL_HALO_DIRS];  /* by direction: its slots, from remote */
    uint64_t slot[SYMCOLL_HALO_DIRS]; /* by direction: bytes of one slot */
    void *field;
    int32_t n_dirs;
    uint8_t dir[SYMCOLL_HALO_DIRS];
} symcoll_halo_remote_args_t;

/* One round for field args->field: send packs its box of every remote direction and posts it
 * to the neighbour through the proxy's ring (the stream goes on once the boxes are staged);
 * receive waits for the neighbours' boxes of the round and unpacks them into the halo. */
cudaError_t symcoll_halo_remote_send(const symcoll_halo_remote_args_t *args, cudaStream_t stream);
cudaError_t symcoll_halo_remote_receive(const symcoll_halo_remote_args_t *args,
                                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
