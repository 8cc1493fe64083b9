/* The layout of alltoallv and of the expert-grouped dispatch and combine, from the matrix of
 * counts that every member learns in the first LL epoch of the call (kernels/alltoallv.cu).
 *
 * A team of n members holds n * E experts (E = 1: plain alltoallv), member j holding experts
 * jE .. jE+E-1, and C[i][g] is what member i sends to expert g. In a dispatch, member i's src
 * holds its row of the matrix packed in g order; member j's dst holds the groups of its experts
 * in e order, group e at S_j(e) (each group's length rounded up to a multiple of align, an
 * empty group align long when align > 1), and in a group the sources in member order. A
 * combine moves the same segments back. Each member keeps two lists of segments, both indexed
 * p * E + e for peer p:
 *   out: what it sends to expert pE+e in a dispatch: the count C[me][pE+e], the offset in its
 *        src (local) and the offset in p's dst (remote);
 *   in:  what it receives from p for its expert e in a dispatch: the count C[p][me E+e], the
 *        offset in its dst (local) and the offset in p's src (remote).
 * A dispatch sends along out and receives along in; a combine sends along in (from where the
 * dispatch put the data) and receives along out (back to where the dispatch took it from). */
#ifndef SYMCOLL_ALLTOALLV_PLAN_CUH
#define SYMCOLL_ALLTOALLV_PLAN_CUH

#include "coll_kernel.cuh"
#include "symcoll/detail/coll_ll.cuh"

typedef struct {
    uint64_t count[SYMCOLL_ALLTOALLV_MAX_SEGMENTS];  /* elements */
    uint64_t local[SYMCOLL_ALLTOALLV_MAX_SEGMENTS];  /* elements into this member's buffer */
    uint64_t remote[SYMCOLL_ALLTOALLV_MAX_SEGMENTS]; /* elements into the peer's buffer */
} a2av_list_t;

typedef struct {
    a2av_list_t out, in;
    uint64_t group[SYMCOLL_ALLTOALLV_MAX_SEGMENTS];  /* what expert g receives, then where
                                                        its group starts in its member's dst */
    uint64_t before[SYMCOLL_ALLTOALLV_MAX_SEGMENTS]; /* what the members before this one send
                                                        to expert g; then scan space */
    uint64_t row[SYMCOLL_MAX_PES];                   /* what member i sends in all */
    uint64_t row_before[SYMCOLL_MAX_PES]; /* what member i sends to the members before me */
    uint64_t laid_out[SYMCOLL_MAX_PES];   /* the end of member j's last group in its dst */
    uint64_t capacity[SYMCOLL_MAX_PES];   /* member i's dst_capacity */
    uint64_t room[SYMCOLL_MAX_PES];       /* elements from member i's src to its allocation end */
    unsigned long long longest;           /* bytes of the longest LL stream between two members */
    int overflow_pe;                      /* the first receiver past its capacity, or team size */
    int overread_pe; /* the first sender past its src allocation, or team size */
    int mismatch_pe; /* the first member whose call (shape, dst_capacity) differs, or n */
} a2av_plan_t;

/* The header's packets: the call's shape (experts, alignment, element size, direction), the
 * dst capacity and the room in src, at fixed places, so that members whose calls differ see
 * it before they read counts of a length they disagree on; then the row of counts. */
#define A2AV_SHAPE 0
#define A2AV_CAPACITY 1
#define A2AV_ROOM 2
#define A2AV_COUNTS 3
static_assert(SYMCOLL_ALLTOALLV_HEADER_WORDS == A2AV_COUNTS + SYMCOLL_ALLTOALLV_MAX_SEGMENTS,
              "a header row holds the fixed words and the most counts");

SYMCOLL_DEV int a2av_header_words(const symcoll_alltoallv_args_t &a) {
    return A2AV_COUNTS + a.c.h.team_size * a.experts;
}

/* This member's row of counts, read once from device memory into p->out.count (the header
 * and the plan take it from there). Whole block. */
SYMCOLL_DEV void a2av_load_own(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    for (int g = threadIdx.x; g < a.c.h.team_size * a.experts; g += blockDim.x)
        p->out.count[g] = a.send_counts[g];
    __syncthreads();
}

/* Word w of this member's own header (its counts from a2av_load_own). */
SYMCOLL_DEV uint64_t a2av_my_word(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p, int w) {
    switch (w) {
    case A2AV_SHAPE:
        return a.shape;
    case A2AV_CAPACITY:
        return a.capacity;
    case A2AV_ROOM:
        return a.src_room;
    default:
        return p->out.count[w - A2AV_COUNTS];
    }
}

/* Word w of member i's header of epoch, from LL block `block`'s buffers on this PE (across
 * nodes: from the gathered rows, all in before the kernel started); false on timeout. */
SYMCOLL_DEV bool a2av_peer_word(const symcoll_alltoallv_args_t &a, int block, int i, uint64_t epoch,
                                int w, uint64_t *v) {
    const symcoll_device_t &h = a.c.h;
    if (a.headers) {
        *v = a.headers[(size_t)i * SYMCOLL_ALLTOALLV_HEADER_WORDS + w];
        return true;
    }
    return symcoll_dev_ll_load(h, symcoll_dev_ll_buffer(h, block, i, epoch) + 16 * w,
                               (uint32_t)epoch, v, SYMCOLL_COLL_ALLTOALLV,
                               symcoll_dev_team_to_world(h, i));
}

/* Sends this member's header to member m as the first packets of epoch. */
SYMCOLL_DEV void a2av_send_header(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p, int m,
                                  uint64_t epoch) {
    const symcoll_device_t &h = a.c.h;
    char *buffer =
        symcoll_coll_member_ptr(h, symcoll_dev_ll_buffer(h, blockIdx.x, h.team_my_pe, epoch), m);
    for (int w = threadIdx.x; w < a2av_header_words(a); w += blockDim.x)
        symcoll_dev_ll_store(buffer + 16 * w, a2av_my_word(a, p, w), (uint32_t)epoch);
}

SYMCOLL_DEV uint64_t a2av_round8(uint64_t bytes) {
    return (bytes + 7) & ~(uint64_t)7;
}

/* A group's length in its member's dst. */
SYMCOLL_DEV uint64_t a2av_group_length(uint64_t elements, uint64_t align) {
    if (align <= 1)
        return elements;
    return elements == 0 ? align : (elements + align - 1) / align * align;
}

/* out[k] = in[0] + ... + in[k-1] for k < count, with tmp as scratch. Whole block. */
SYMCOLL_DEV void a2av_exclusive_scan(const uint64_t *in, uint64_t *out, uint64_t *tmp, int count) {
    for (int k = threadIdx.x; k < count; k += blockDim.x)
        out[k] = in[k];
    __syncthreads();
    for (int stride = 1; stride < count; stride *= 2) {
        for (int k = threadIdx.x; k < count; k += blockDim.x)
            tmp[k] = k >= stride ? out[k - stride] : 0;
        __syncthreads();
        for (int k = threadIdx.x; k < count; k += blockDim.x)
            out[k] += tmp[k];
        __syncthreads();
    }
    for (int k = threadIdx.x; k < count; k += blockDim.x)
        out[k] -= in[k];
    __syncthreads();
}

/* Reads every member's header once, in one pass: a thread per (member, fixed word) and a
 * thread per (sender, receiving member) pair, the pair's thread reading the sender's shape, then
 * its counts, and summing what the layout needs (this member's own row from p->out.count). Member
 * i's call differs (p->mismatch_pe) when its shape or dst_capacity does; then the sums are not
 * used. Whole block; false on timeout. */
SYMCOLL_DEV bool a2av_gather(const symcoll_alltoallv_args_t &a, int block, uint64_t epoch,
                             a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int n = h.team_size, me = h.team_my_pe, experts = a.experts;
    for (int g = threadIdx.x; g < n * experts; g += blockDim.x)
        p->group[g] = p->before[g] = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        p->row[i] = p->row_before[i] = 0;
    if (threadIdx.x == 0) {
        p->longest = 0;
        p->overflow_pe = p->overread_pe = p->mismatch_pe = n;
    }
    __syncthreads();
    bool ok = true;
    for (int k = threadIdx.x; ok && k < A2AV_COUNTS * n + n * n; k += blockDim.x) {
        if (k < A2AV_COUNTS * n) {
            const int i = k / A2AV_COUNTS, w = k % A2AV_COUNTS;
            uint64_t v = a2av_my_word(a, p, w);
            ok = i == me || a2av_peer_word(a, block, i, epoch, w, &v);
            if (ok && w == A2AV_SHAPE && v != a.shape)
                atomicMin(&p->mismatch_pe, i);
            if (w == A2AV_CAPACITY)
                p->capacity[i] = v;
            if (w == A2AV_ROOM)
                p->room[i] = v;
            continue;
        }
        const int from = (k - A2AV_COUNTS * n) / n, to = (k - A2AV_COUNTS * n) % n;
        uint64_t sent = 0, stream = 0, shape = a.shape;
        /* The sender's shape first: a member whose call differs sends a header of another
         * length, so its count words may never come (its fixed words always do). */
        if (from != me)
            ok = a2av_peer_word(a, block, from, epoch, A2AV_SHAPE, &shape);
        for (int e = 0; ok && shape == a.shape && e < experts; e++) {
            const int g = to * experts + e;
            uint64_t c = p->out.count[g];
            ok = from == me || a2av_peer_word(a, block, from, epoch, A2AV_COUNTS + g, &c);
            if (!ok)
                break;
            if (to == me)
                p->in.count[from * experts + e] = c;
            /* A count past the capacity overflows its receiver; counted as capacity + 1, it
             * keeps every sum far below 2^64. */
            if (c > a.capacity) {
                atomicMin(&p->overflow_pe, a.combine ? from : to);
                c = a.capacity + 1;
            }
            atomicAdd((unsigned long long *)&p->group[g], c);
            if (from < me)
                atomicAdd((unsigned long long *)&p->before[g], c);
            sent += c;
            stream += a2av_round8(c * a.elem_size);
        }
        atomicAdd((unsigned long long *)&p->row[from], sent);
        if (to < me)
            atomicAdd((unsigned long long *)&p->row_before[from], sent);
        if (from != to)
            atomicMax(&p->longest, (unsigned long long)stream);
    }
    if (!__syncthreads_and(ok))
        return false;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        if (p->capacity[i] != a.capacity)
            atomicMin(&p->mismatch_pe, i);
    __syncthreads();
    return true;
}

/* The segment lists and the checks, from what a2av_gather summed. Whole block. */
SYMCOLL_DEV void a2av_lay_out(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int n = h.team_size, me = h.team_my_pe, experts = a.experts;
    /* Member j's groups, in e order: out.remote is where this member's segment lands. */
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        uint64_t start = 0, end = 0;
        for (int e = 0; e < experts; e++) {
            const int g = j * experts + e;
            const uint64_t elements = p->group[g];
            p->out.remote[g] = start + p->before[g];
            p->group[g] = start;
            end = start + elements;
            start += a2av_group_length(elements, a.align);
        }
        p->laid_out[j] = end;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < experts; e += blockDim.x) {
        uint64_t at = p->group[me * experts + e];
        for (int i = 0; i < n; i++) {
            p->in.local[i * experts + e] = at;
            at += p->in.count[i * experts + e];
        }
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        uint64_t at = p->row_before[i];
        for (int e = 0; e < experts; e++) {
            p->in.remote[i * experts + e] = at;
            at += p->in.count[i * experts + e];
        }
    }
    a2av_exclusive_scan(p->out.count, p->out.local, p->before, n * experts);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const uint64_t received = a.combine ? p->row[j] : p->laid_out[j];
        const uint64_t sent = a.combine ? p->laid_out[j] : p->row[j];
        if (received > p->capacity[j])
            atomicMin(&p->overflow_pe, j);
        if (sent > p->room[j])
            atomicMin(&p->overread_pe, j);
    }
    __syncthreads();
}

/* The whole plan from the headers of epoch in LL block `block`'s buffers; false on timeout.
 * Members whose calls differ lay out nothing: nothing moves. */
SYMCOLL_DEV bool a2av_plan(const symcoll_alltoallv_args_t &a, int block, uint64_t epoch,
                           a2av_plan_t *p) {
    if (!a2av_gather(a, block, epoch, p))
        return false;
    if (p->mismatch_pe == a.c.h.team_size)
        a2av_lay_out(a, p);
    return true;
}

/* What this member sends (offsets local to its src, remote in the peer's dst) and receives
 * (local to its dst, remote in the peer's src). */
SYMCOLL_DEV const a2av_list_t &a2av_sends(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p) {
    return a.combine ? p->in : p->out;
}
SYMCOLL_DEV const a2av_list_t &a2av_receives(const symcoll_alltoallv_args_t &a,
                                             const a2av_plan_t *p) {
    return a.combine ? p->out : p->in;
}

/* Whether the counts let data move: one dst_capacity on every member, no sender past its src,
 * no receiver past its capacity. */
SYMCOLL_DEV bool a2av_fits(const symcoll_device_t &h, const a2av_plan_t *p) {
    return p->mismatch_pe == h.team_size && p->overflow_pe == h.team_size &&
           p->overread_pe == h.team_size;
}

/* Block 0's results: recv_counts and recv_offsets of a dispatch (expert-major, [e * n + i])
 * for the kernels that follow, and the cause when the call did not fit, recorded on every
 * member for the host's next call on the team. */
SYMCOLL_DEV void a2av_report(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int n = h.team_size, experts = a.experts;
    if (blockIdx.x != 0)
        return;
    const bool laid_out = p->mismatch_pe == n;
    for (int k = threadIdx.x; laid_out && a.recv_counts && k < n * experts; k += blockDim.x) {
        const int i = k / experts, e = k % experts;
        a.recv_counts[e * n + i] = p->in.count[k];
        a.recv_offsets[e * n + i] = p->in.local[k];
    }
    symcoll_overflow_record_t *r = a.overflow;
    if (threadIdx.x == 0 && !a2av_fits(h, p) && r->overflowed == 0) {
        /* The first cause that applies: capacities that differ, a sender past its src, a
         * receiver past its capacity. */
        int pe;
        if (p->mismatch_pe < n) {
            pe = p->mismatch_pe;
            r->kind = SYMCOLL_OVERFLOW_CALL_MISMATCH;
            r->total = p->capacity[pe];
            r->capacity = a.capacity;
        } else if (p->overread_pe < n) {
            pe = p->overread_pe;
            r->kind = SYMCOLL_OVERFLOW_SRC;
            r->total = a.combine ? p->laid_out[pe] : p->row[pe];
            r->capacity = p->room[pe];
        } else {
            pe = p->overflow_pe;
            r->kind = SYMCOLL_OVERFLOW_DST;
            r->total = a.combine ? p->row[pe] : p->laid_out[pe];
            r->capacity = p->capacity[pe];
        }
        r->pe = symcoll_dev_team_to_world(h, pe);
        __threadfence_system();
        r->overflowed = 1;
    }
}

#endif
