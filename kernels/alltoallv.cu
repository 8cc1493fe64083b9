/* alltoallv with counts in device memory. Member i's src holds send_counts[j] elements for
 * each member j, packed in team order; they land in j's dst at recv_offsets[i] (the sources'
 * counts packed in team order).
 *
 * The counts travel as the first packets of an LL epoch: every member sends its whole row of
 * counts and its dst capacity to every other member, so that after one trip every member
 * knows the whole matrix, hence where its data lands at every receiver, and whether any
 * receiver would overflow its capacity (or any sender read past its src allocation, or the
 * members passed different capacities). Then no member moves any data, and every member
 * records it: the members agree without a second trip. The grid and algorithm follow
 * dst_capacity, which is therefore the same on every member. Under ll, the same epoch also carries
 * the first piece of data; under push and pull only block 0 exchanges the counts, and the kernel's
 * other blocks read them from block 0's buffers once it publishes their epoch. */
#include "coll_ll.cuh"
#include "kernel_load.h"

/* Where a member's data goes, from the matrix of counts (elements). */
typedef struct {
    uint64_t recv[SYMCOLL_MAX_PES];     /* from member i to me */
    uint64_t recv_off[SYMCOLL_MAX_PES]; /* where member i's data starts in my dst */
    uint64_t send[SYMCOLL_MAX_PES];     /* from me to member j */
    uint64_t send_off[SYMCOLL_MAX_PES]; /* where my data for member j starts in my src */
    uint64_t dst_off[SYMCOLL_MAX_PES];  /* where my data starts in member j's dst */
    uint64_t src_off[SYMCOLL_MAX_PES];  /* where member i's data for me starts in its src */
    uint64_t total[SYMCOLL_MAX_PES];    /* what member j receives */
    uint64_t capacity[SYMCOLL_MAX_PES]; /* member j's dst capacity */
    uint64_t sent[SYMCOLL_MAX_PES];     /* what member i sends */
    uint64_t room[SYMCOLL_MAX_PES];     /* elements in member i's src allocation from src */
    unsigned long long longest;         /* the longest flow between two members, elements */
    int overflow_pe;                    /* the first receiver past its capacity, or team size */
    int overread_pe;                    /* the first sender past its src allocation, or team size */
    int mismatch_pe; /* the first member whose dst_capacity differs from this one's, or
                        team size */
} a2av_plan_t;

/* Packets of the header: the row of counts, the dst capacity, the room in src. */
SYMCOLL_DEV int a2av_header_words(const symcoll_device_t &h) {
    return h.team_size + 2;
}

/* Word w of this member's own header. */
SYMCOLL_DEV uint64_t a2av_my_word(const symcoll_alltoallv_args_t &a, int w) {
    const int n = a.c.h.team_size;
    return w < n ? a.send_counts[w] : w == n ? a.capacity : a.src_room;
}

/* Word w of member i's header of epoch, read from LL block `block`'s buffers on this PE (this
 * member's own from its arguments); false on timeout. */
SYMCOLL_DEV bool a2av_header_word(const symcoll_alltoallv_args_t &a, int block, int i,
                                  uint64_t epoch, int w, uint64_t *v) {
    const symcoll_device_t &h = a.c.h;
    if (i == h.team_my_pe) {
        *v = a2av_my_word(a, w);
        return true;
    }
    const char *buffer = symcoll_dev_ll_buffer(h, block, i, epoch);
    return symcoll_dev_ll_load(h, buffer + 16 * w, (uint32_t)epoch, v, SYMCOLL_COLL_ALLTOALLV,
                               symcoll_dev_team_to_world(h, i));
}

/* Sends this member's header to member m as the first packets of epoch. */
SYMCOLL_DEV void a2av_send_header(const symcoll_alltoallv_args_t &a, int m, uint64_t epoch) {
    const symcoll_device_t &h = a.c.h;
    char *buffer = coll_member_ptr(h, symcoll_dev_ll_buffer(h, blockIdx.x, h.team_my_pe, epoch), m);
    for (int w = threadIdx.x; w < a2av_header_words(h); w += blockDim.x)
        symcoll_dev_ll_store(buffer + 16 * w, a2av_my_word(a, w), (uint32_t)epoch);
}

/* Fills *p from every member's header of epoch in LL block `block`'s buffers. Thread t takes
 * column j = t (what every member sends to j) and row i = t (member i's offset for me).
 * Whole block; false on timeout. */
SYMCOLL_DEV bool a2av_plan(const symcoll_alltoallv_args_t &a, int block, uint64_t epoch,
                           a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int n = h.team_size, me = h.team_my_pe;
    bool ok = true;
    if (threadIdx.x == 0) {
        p->longest = 0;
        p->overflow_pe = n;
        p->overread_pe = n;
        p->mismatch_pe = n;
    }
    __syncthreads();
    for (int j = threadIdx.x; ok && j < n; j += blockDim.x) {
        uint64_t total = 0, before = 0, c, capacity = 0;
        for (int i = 0; ok && i < n; i++) {
            ok = a2av_header_word(a, block, i, epoch, j, &c);
            total += c;
            before += i < me ? c : 0;
            if (i != j)
                atomicMax(&p->longest, (unsigned long long)c);
            if (j == me)
                p->recv[i] = c;
            if (i == me)
                p->send[j] = c;
        }
        ok = ok && a2av_header_word(a, block, j, epoch, n, &capacity);
        p->dst_off[j] = before;
        p->total[j] = total;
        p->capacity[j] = capacity;
        if (ok && total > capacity)
            atomicMin(&p->overflow_pe, j);
        if (ok && capacity != a.capacity)
            atomicMin(&p->mismatch_pe, j);
    }
    for (int i = threadIdx.x; ok && i < n; i += blockDim.x) {
        uint64_t off = 0, sent = 0, c, room = 0;
        for (int k = 0; ok && k < n; k++) {
            ok = a2av_header_word(a, block, i, epoch, k, &c);
            off += k < me ? c : 0;
            sent += c;
        }
        ok = ok && a2av_header_word(a, block, i, epoch, n + 1, &room);
        p->src_off[i] = off;
        p->sent[i] = sent;
        p->room[i] = room;
        if (ok && sent > room)
            atomicMin(&p->overread_pe, i);
    }
    if (!__syncthreads_and(ok))
        return false;
    if (threadIdx.x == 0) {
        uint64_t recv = 0, send = 0;
        for (int m = 0; m < n; m++) {
            p->recv_off[m] = recv;
            p->send_off[m] = send;
            recv += p->recv[m];
            send += p->send[m];
        }
    }
    __syncthreads();
    return true;
}

/* Whether the counts let data move: one dst_capacity on every member, no sender past its src,
 * no receiver past its capacity. */
SYMCOLL_DEV bool a2av_fits(const symcoll_device_t &h, const a2av_plan_t *p) {
    return p->mismatch_pe == h.team_size && p->overflow_pe == h.team_size &&
           p->overread_pe == h.team_size;
}

/* Block 0's results: recv_counts and recv_offsets for the kernels that follow, and the
 * overflow, recorded on every member for the host's next call on the team. */
SYMCOLL_DEV void a2av_report(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    if (blockIdx.x != 0)
        return;
    for (int m = threadIdx.x; m < h.team_size; m += blockDim.x) {
        a.recv_counts[m] = p->recv[m];
        a.recv_offsets[m] = p->recv_off[m];
    }
    symcoll_overflow_record_t *r = a.overflow;
    if (threadIdx.x == 0 && !a2av_fits(h, p) && r->overflowed == 0) {
        /* The first cause that applies: capacities that differ, a sender past its src, a
         * receiver past its capacity. */
        int pe;
        if (p->mismatch_pe < h.team_size) {
            pe = p->mismatch_pe;
            r->kind = SYMCOLL_OVERFLOW_CAPACITY_MISMATCH;
            r->total = p->capacity[pe];
            r->capacity = a.capacity;
        } else if (p->overread_pe < h.team_size) {
            pe = p->overread_pe;
            r->kind = SYMCOLL_OVERFLOW_SRC;
            r->total = p->sent[pe];
            r->capacity = p->room[pe];
        } else {
            pe = p->overflow_pe;
            r->kind = SYMCOLL_OVERFLOW_DST;
            r->total = p->total[pe];
            r->capacity = p->capacity[pe];
        }
        r->pe = symcoll_dev_team_to_world(h, pe);
        __threadfence_system();
        r->overflowed = 1;
    }
}

/* Bytes [*offset, *offset + *len) of a flow of `bytes` that this block moves in LL round
 * `round`: round 0 carries `first` bytes per block after the header, later rounds a full
 * payload per block. */
SYMCOLL_DEV void a2av_ll_piece(uint64_t bytes, size_t first, size_t round, size_t *offset,
                               size_t *len) {
    size_t begin =
        round == 0 ? (size_t)blockIdx.x * first
                   : gridDim.x * first + ((round - 1) * gridDim.x + blockIdx.x) * COLL_LL_PAYLOAD;
    size_t size = round == 0 ? first : COLL_LL_PAYLOAD;
    *offset = begin < bytes ? begin : bytes;
    *len = bytes - *offset < size ? bytes - *offset : size;
}

/* ll: every block exchanges the header in its own LL slot with the first piece of data after
 * it, then as many rounds of data as the longest flow needs (every member computes the same
 * count from the same matrix). */
SYMCOLL_DEV void a2av_ll(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int me = h.team_my_pe, words = a2av_header_words(h);
    const size_t first = COLL_LL_PAYLOAD - 8 * (size_t)words, es = a.elem_size;
    uint64_t epoch = coll_ll_epoch(h) + 1;
    if (threadIdx.x == 0) {
        uint64_t off = 0;
        for (int m = 0; m < h.team_size; m++) {
            p->send_off[m] = off;
            off += a.send_counts[m];
        }
    }
    if (!coll_ll_wait_credit(h, epoch, SYMCOLL_COLL_ALLTOALLV))
        return;
    size_t rounds = 1;
    for (size_t round = 0; round < rounds; round++) {
        if (round > 0 && (++epoch, !coll_ll_wait_credit(h, epoch, SYMCOLL_COLL_ALLTOALLV)))
            return;
        const size_t skip = round == 0 ? (size_t)words : 0;
        for (int step = 1; step < h.team_size; step++) {
            int m = coll_member_after(h, step);
            size_t offset, len;
            a2av_ll_piece(a.send_counts[m] * es, first, round, &offset, &len);
            char *buffer = coll_member_ptr(h, symcoll_dev_ll_buffer(h, blockIdx.x, me, epoch), m);
            if (round == 0)
                a2av_send_header(a, m, epoch);
            const char *src = a.c.src + p->send_off[m] * es + offset;
            for (size_t w = threadIdx.x; w * 8 < len; w += blockDim.x)
                symcoll_dev_ll_store(buffer + 16 * (skip + w),
                                     coll_load_word(src + 8 * w, len - 8 * w), (uint32_t)epoch);
        }
        bool ok = round > 0 || a2av_plan(a, blockIdx.x, epoch, p);
        const bool moves = ok && a2av_fits(h, p);
        if (round == 0 && moves) {
            size_t begin, end;
            coll_share(p->recv[me] * es, gridDim.x, blockIdx.x, 16, &begin, &end);
            coll_copy(a.c.dst + p->recv_off[me] * es + begin,
                      a.c.src + p->send_off[me] * es + begin, end - begin);
            size_t longest = (size_t)p->longest * es, after = gridDim.x * first;
            size_t per_round = (size_t)gridDim.x * COLL_LL_PAYLOAD;
            rounds = 1 + (longest > after ? (longest - after + per_round - 1) / per_round : 0);
        }
        for (int step = 1; moves && step < h.team_size; step++) {
            int i = coll_member_after(h, h.team_size - step);
            size_t offset, len;
            a2av_ll_piece(p->recv[i] * es, first, round, &offset, &len);
            char *dst = a.c.dst + p->recv_off[i] * es + offset;
            for (size_t w = threadIdx.x; ok && w * 8 < len; w += blockDim.x) {
                uint64_t data;
                ok = coll_ll_recv_word(h, i, epoch, skip + w, &data, SYMCOLL_COLL_ALLTOALLV);
                coll_store_word(dst + 8 * w, data, len - 8 * w);
            }
        }
        if (!coll_ll_ack(h, epoch, ok))
            return;
    }
    coll_ll_finish(h, epoch);
    a2av_report(a, p);
}

/* push and pull: block 0 exchanges the counts and publishes the epoch in the team's local
 * word; the other blocks read the same headers, the last of them clears the word (the next
 * kernel on the team starts after this one, so it finds zeros). The fence after the headers
 * orders the peers' src and dst, ready since they entered this kernel, before this PE's
 * accesses. */
SYMCOLL_DEV bool a2av_bw_plan(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    uint64_t *published = (uint64_t *)(h.team_sync + SYMCOLL_SYNC_LOCAL_OFF(h.team_size));
    unsigned *readers = (unsigned *)(published + 1);
    uint64_t epoch;
    if (blockIdx.x == 0) {
        epoch = coll_ll_epoch(h) + 1;
        if (!coll_ll_wait_credit(h, epoch, SYMCOLL_COLL_ALLTOALLV))
            return false;
        for (int step = 1; step < h.team_size; step++)
            a2av_send_header(a, coll_member_after(h, step), epoch);
        bool ok = a2av_plan(a, 0, epoch, p);
        symcoll_dev_fence_sys();
        if (!coll_ll_ack(h, epoch, ok))
            return false;
        coll_ll_finish(h, epoch);
        if (threadIdx.x == 0 && gridDim.x > 1)
            symcoll_dev_store_release(published, epoch);
        return true;
    }
    __shared__ uint64_t seen;
    if (threadIdx.x == 0 &&
        !symcoll_dev_wait(h, published, SYMCOLL_CMP_NE, 0, SYMCOLL_COLL_ALLTOALLV, -1))
        seen = 0;
    else if (threadIdx.x == 0)
        seen = symcoll_dev_load_acquire(published);
    __syncthreads();
    epoch = seen;
    if (epoch == 0 || !a2av_plan(a, 0, epoch, p))
        return false;
    if (threadIdx.x == 0 && atomicAdd(readers, 1u) == gridDim.x - 2) {
        *readers = 0;
        *published = 0;
    }
    return true;
}

/* Block b moves part b of every flow, straight to (push) or from (pull) the peer's memory,
 * then meets the peers' block b at the exit sync (as coll_move_bw): no peer starts another
 * kernel on the team before every block here is done with its src, dst and block 0's LL
 * buffers. */
SYMCOLL_DEV void a2av_bw(const symcoll_alltoallv_args_t &a, a2av_plan_t *p, bool push) {
    const symcoll_device_t &h = a.c.h;
    const size_t es = a.elem_size;
    if (!a2av_bw_plan(a, p))
        return;
    a2av_report(a, p);
    /* After an overflow nothing moves, but the exit sync stays: it keeps block 0's buffers of
     * this epoch unwritten until every block has read them. */
    for (int step = 0; a2av_fits(h, p) && step < h.team_size; step++) {
        int m = coll_member_after(h, step + blockIdx.x);
        uint64_t count = push ? p->send[m] : p->recv[m];
        char *dst = push ? coll_member_ptr(h, a.c.dst + p->dst_off[m] * es, m)
                         : a.c.dst + p->recv_off[m] * es;
        const char *src = push ? a.c.src + p->send_off[m] * es
                               : coll_member_ptr(h, a.c.src + p->src_off[m] * es, m);
        size_t begin, end;
        coll_share(count * es, gridDim.x, blockIdx.x, 16, &begin, &end);
        coll_copy(dst + begin, src + begin, end - begin);
    }
    symcoll_dev_sync_slot_final(h, blockIdx.x, SYMCOLL_COLL_ALLTOALLV);
}

static __global__ void COLL_LAUNCH_BOUNDS alltoallv_kernel(symcoll_alltoallv_args_t a) {
    __shared__ a2av_plan_t plan;
    if (a.c.algo == SYMCOLL_ALLTOALLV_LL)
        a2av_ll(a, &plan);
    else
        a2av_bw(a, &plan, a.c.algo == SYMCOLL_ALLTOALLV_PUSH);
}

extern "C" cudaError_t symcoll_alltoallv_launch(const symcoll_alltoallv_args_t *args, int blocks,
                                                int threads, cudaStream_t stream) {
    void *params[] = {(void *)args};
    return cudaLaunchKernel((const void *)alltoallv_kernel, dim3(blocks), dim3(threads), params, 0,
                            stream);
}

extern "C" cudaError_t symcoll_alltoallv_kernels_load(void) {
    return symcoll_kernel_load((const void *)alltoallv_kernel);
}
