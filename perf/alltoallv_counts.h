/* alltoallv's count matrix for symcoll-perf: which PE sends how many elements to which, drawn
 * the same on every PE (each PE needs every row to know what it receives and where), and the
 * checks of what the call reports back. Pure, so that the CPU tests reach it. */
#ifndef SYMCOLL_PERF_ALLTOALLV_COUNTS_H
#define SYMCOLL_PERF_ALLTOALLV_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seed of every run's matrices: a size draws the same matrix in every run, so that runs
 * compare (--baseline) and a result can be reproduced. */
#define PERF_COUNTS_SEED 0xa11c0a11ull

typedef struct {
    int npes;
    size_t *matrix;  /* npes x npes elements: matrix[source * npes + destination] */
    size_t capacity; /* dst_capacity of the calls: the most elements any PE receives */
    size_t *device;  /* this PE's send_counts, recv_counts and recv_offsets, npes entries each
                        (device memory); NULL where nothing runs on a GPU */
} perf_counts_t;

/* Fills c->matrix (npes x npes, the caller's) and c->capacity for count elements per PE:
 * skew 0 is uniform, every PE sends count to every PE (alltoall's traffic); skew s > 0 lets
 * each source spread count * npes elements over the destinations with Zipf weights
 * 1 / (rank + 1)^s, the ranks a permutation of the destinations drawn per source from (seed,
 * count, source); the rounding's remainder goes one element each to the heaviest ranks, so
 * that every row adds up to count * npes exactly. */
void perf_counts_draw(perf_counts_t *c, size_t count, double skew, uint64_t seed);

/* Elements that PE to receives in all (its column's sum). */
size_t perf_counts_received(const perf_counts_t *c, int to);
/* Where from's elements for to start in from's src: the counts it sends to lower PEs. */
size_t perf_counts_send_offset(const perf_counts_t *c, int from, int to);
/* Where from's elements start in to's dst: the counts that lower PEs send to. */
size_t perf_counts_recv_offset(const perf_counts_t *c, int from, int to);

/* Entries of recv_counts and recv_offsets (npes each, as PE me's call wrote them) that differ
 * from the matrix's. */
size_t perf_counts_wrong(const perf_counts_t *c, int me, const size_t *recv_counts,
                         const size_t *recv_offsets);

#ifdef __cplusplus
}
#endif
#endif
