#include "alltoallv_counts.h"

#include <math.h>

#include "random.h"
#include "symcoll.h"

/* One source's row: its total over the destinations with Zipf weights by a permuted rank
 * (npes <= SYMCOLL_MAX_PES, the most a team has). */
static void draw_skewed_row(size_t *row, int npes, size_t total, double skew, uint64_t state) {
    double weight_sum = 0;
    for (int r = 0; r < npes; r++) {
        weight_sum += pow(r + 1, -skew);
    }
    /* rank_of[d]: destination d's rank. */
    int rank_of[SYMCOLL_MAX_PES];
    perf_permutation(rank_of, npes, &state);
    size_t by_rank[SYMCOLL_MAX_PES], placed = 0;
    for (int r = 0; r < npes; r++) {
        by_rank[r] = (size_t)((double)total * pow(r + 1, -skew) / weight_sum); /* floor */
        placed += by_rank[r];
    }
    /* The floors lose less than one element per rank: placed <= total and the remainder is
     * below npes, but the loop does not rely on it. */
    for (int r = 0; placed < total; r = (r + 1) % npes, placed++) {
        by_rank[r]++;
    }
    for (int d = 0; d < npes; d++) {
        row[d] = by_rank[rank_of[d]];
    }
}

void perf_counts_draw(perf_counts_t *c, size_t count, double skew, uint64_t seed) {
    int n = c->npes;
    for (int from = 0; from < n; from++) {
        size_t *row = c->matrix + (size_t)from * (size_t)n;
        if (skew > 0) {
            uint64_t state = perf_mix64(seed ^ perf_mix64(count)) ^ perf_mix64((uint64_t)from + 1);
            draw_skewed_row(row, n, count * (size_t)n, skew, state);
        } else {
            for (int to = 0; to < n; to++) {
                row[to] = count;
            }
        }
    }
    c->capacity = 0;
    for (int to = 0; to < n; to++) {
        size_t received = perf_counts_received(c, to);
        c->capacity = received > c->capacity ? received : c->capacity;
    }
}

size_t perf_counts_received(const perf_counts_t *c, int to) {
    return perf_counts_recv_offset(c, c->npes, to);
}

size_t perf_counts_send_offset(const perf_counts_t *c, int from, int to) {
    size_t offset = 0;
    for (int k = 0; k < to; k++) {
        offset += c->matrix[(size_t)from * (size_t)c->npes + (size_t)k];
    }
    return offset;
}

size_t perf_counts_recv_offset(const perf_counts_t *c, int from, int to) {
    size_t offset = 0;
    for (int k = 0; k < from; k++) {
        offset += c->matrix[(size_t)k * (size_t)c->npes + (size_t)to];
    }
    return offset;
}

size_t perf_counts_wrong(const perf_counts_t *c, int me, const size_t *recv_counts,
                         const size_t *recv_offsets) {
    size_t wrong = 0;
    for (int from = 0; from < c->npes; from++) {
        wrong += recv_counts[from] != c->matrix[(size_t)from * (size_t)c->npes + (size_t)me];
        wrong += recv_offsets[from] != perf_counts_recv_offset(c, from, me);
    }
    return wrong;
}
