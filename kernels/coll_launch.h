/* Launch functions of the data collectives' kernels (kernels/broadcast.cu, reduce.cu,
 * fcollect.cu, alltoall.cu), called by collectives/. Each enqueues exactly one kernel. */
#ifndef SYMCOLL_COLL_LAUNCH_H
#define SYMCOLL_COLL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include "coll_algorithms.h"
#include "symcoll/detail/coll_args.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* alltoallv: what a receiver past its capacity leaves for the host (host-mapped, one per
 * team; the first overflow is kept until the host reports it). */
typedef enum {
    SYMCOLL_OVERFLOW_DST,          /* pe would receive total past its capacity */
    SYMCOLL_OVERFLOW_SRC,          /* pe's counts add up to total, past the capacity
                                      elements from src to its allocation's end */
    SYMCOLL_OVERFLOW_CALL_MISMATCH /* pe's call differs: dst_capacity total, this PE's capacity,
                                      or experts, alignment, type or direction */
} symcoll_overflow_kind_t;

typedef struct {
    volatile int32_t overflowed; /* 0, or 1 once the counts did not fit */
    int32_t pe;                  /* the PE they did not fit, a WORLD PE */
    int32_t kind;                /* symcoll_overflow_kind_t */
    int32_t unused;
    uint64_t total;
    uint64_t capacity;
} symcoll_overflow_record_t;

/* Team size x experts per PE, at most: the counts of one PE travel as LL packets ahead of the
 * data, and the kernel keeps two lists of this many segments in shared memory. */
#define SYMCOLL_ALLTOALLV_MAX_SEGMENTS 512
/* Words of one member's header (shape, dst capacity, room in src, then its row of counts):
 * across nodes the headers are gathered in memory, a row of this many words per member. */
#define SYMCOLL_ALLTOALLV_HEADER_WORDS (3 + SYMCOLL_ALLTOALLV_MAX_SEGMENTS)
#define SYMCOLL_MOE_MAX_ALIGN (1ull << 32)

/* alltoallv (experts 1, align 1), and the expert-grouped dispatch and combine. */
typedef struct {
    symcoll_coll_args_t c;               /* c.bytes unused: the counts are on the device */
    size_t elem_size;                    /* bytes of one element */
    size_t capacity;                     /* elements this PE's dst holds */
    size_t src_room;                     /* elements from src to the end of its allocation */
    const size_t *send_counts;           /* device memory, team size x experts entries */
    size_t *recv_counts;                 /* device memory, as many; NULL in a combine */
    size_t *recv_offsets;                /* device memory, as many; NULL in a combine */
    int experts;                         /* per PE */
    int combine;                         /* 0: dispatch (or alltoallv); 1: combine */
    size_t align;                        /* of each expert group in a dispatch's dst */
    uint64_t shape;                      /* experts, align, elem_size and combine in one word,
                                            which every member's call must match */
    symcoll_overflow_record_t *overflow; /* the team's record, device address */
    uint64_t *headers; /* across nodes: member i's header at i * SYMCOLL_ALLTOALLV_HEADER_WORDS
                          (symmetric); NULL: the headers travel as LL packets */
} symcoll_alltoallv_args_t;

cudaError_t symcoll_alltoallv_launch(const symcoll_alltoallv_args_t *args, int blocks, int threads,
                                     cudaStream_t stream);
/* Across nodes (kernels/nodes_alltoallv.cu): the header kernel writes this PE's header into
 * its row of args->headers on every PE of the team (its node's by stores, other nodes through
 * the proxy's ring with one ADD of 1 to *arrivals each); the data kernel, once every header is
 * in, lays the call out as the LL path does, reports it, and moves the segments: to node peers
 * by stores, to other nodes through the ring with one ADD of 1 to *arrivals per PE, even when
 * nothing moves. */
cudaError_t symcoll_nodes_alltoallv_header_launch(const symcoll_alltoallv_args_t *args,
                                                  uint64_t *arrivals, cudaStream_t stream);
cudaError_t symcoll_nodes_alltoallv_launch(const symcoll_alltoallv_args_t *args, uint64_t *arrivals,
                                           int blocks, int threads, cudaStream_t stream);
cudaError_t symcoll_broadcast_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                     cudaStream_t stream);
cudaError_t symcoll_fcollect_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                    cudaStream_t stream);
cudaError_t symcoll_alltoall_launch(const symcoll_coll_args_t *args, int blocks, int threads,
                                    cudaStream_t stream);
/* reduce and reduce_scatter (args->collective); cudaErrorInvalidValue for a (type, op) pair
 * that has no kernel. */
cudaError_t symcoll_reduce_launch(const symcoll_coll_args_t *args, symcoll_datatype_t type,
                                  symcoll_op_t op, int blocks, int threads, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
