/* alltoallv and the expert-grouped dispatch and combine, with counts in device memory: an ll
 * kernel and a bandwidth kernel (push, pull), whose layout kernels/alltoallv_plan.cuh computes.
 *
 * The counts travel as the first packets of an LL epoch: every member sends its whole row of
 * counts, its dst capacity and the room in its src to every other member, so that after one
 * trip every member knows the whole matrix, hence where its data lands at every receiver, and
 * whether the call fits: one capacity on every member (the grid and algorithm follow it), no
 * receiver past it, no sender past its src allocation. When it does not fit, no member moves
 * any data, and every member records the cause: the members agree without a second trip.
 * Under ll the same epoch also carries the first piece of data; under push and pull only
 * block 0 exchanges the counts, and the kernel's other blocks read them from block 0's
 * buffers once it publishes their epoch. */
#include "alltoallv_plan.cuh"
#include "kernel_load.h"

/* [*begin, *end): the bytes of a stream that this block moves in LL round `round`. Round 0
 * carries `first` bytes per block after the header (none in a combine, whose segments are
 * known only from the plan: lead is what round 0 carried in all), later rounds a full payload
 * per block. */
SYMCOLL_DEV void a2av_ll_piece(size_t first, size_t lead, size_t round, size_t *begin,
                               size_t *end) {
    *begin = round == 0 ? (size_t)blockIdx.x * first
                        : lead + ((round - 1) * gridDim.x + blockIdx.x) * SYMCOLL_LL_PAYLOAD;
    *end = *begin + (round == 0 ? first : SYMCOLL_LL_PAYLOAD);
}

/* The LL stream between this member and peer p: the peer's segments of `list` in e order,
 * each from an 8-byte boundary, so that every packet belongs to one segment. Sends (or, with
 * receive, takes) the packets of stream bytes [begin, end) as packets skip + 0, 1, ... of
 * epoch; false on timeout. */
SYMCOLL_DEV bool a2av_ll_stream(const symcoll_alltoallv_args_t &a, const a2av_list_t &list, int p,
                                uint64_t epoch, size_t skip, size_t begin, size_t end,
                                bool receive) {
    const symcoll_device_t &h = a.c.h;
    const size_t es = a.elem_size;
    char *peer_buffer = receive
                            ? NULL
                            : symcoll_coll_member_ptr(
                                  h, symcoll_dev_ll_buffer(h, blockIdx.x, h.team_my_pe, epoch), p);
    bool ok = true;
    size_t at = 0;
    for (int e = 0; ok && e < a.experts; e++) {
        const int s = p * a.experts + e;
        const size_t bytes = list.count[s] * es, from = at > begin ? at : begin;
        const size_t to = at + a2av_round8(bytes) < end ? at + a2av_round8(bytes) : end;
        for (size_t w = from / 8 + threadIdx.x; ok && w < to / 8; w += blockDim.x) {
            const size_t in_segment = 8 * w - at, packet = skip + w - begin / 8;
            if (receive) {
                uint64_t data;
                ok = symcoll_coll_ll_recv_word(coll_kernel_group(), h, p, epoch, packet, &data,
                                               SYMCOLL_COLL_ALLTOALLV);
                symcoll_coll_store_word(a.c.dst + list.local[s] * es + in_segment, data,
                                        bytes - in_segment);
            } else {
                symcoll_dev_ll_store(
                    peer_buffer + 16 * packet,
                    symcoll_coll_load_word(a.c.src + list.local[s] * es + in_segment,
                                           bytes - in_segment),
                    (uint32_t)epoch);
            }
        }
        at += a2av_round8(bytes);
    }
    return ok;
}

/* This member's own segments, src to dst, part blockIdx.x of each. */
SYMCOLL_DEV void a2av_copy_own(const symcoll_alltoallv_args_t &a, const a2av_plan_t *p) {
    const a2av_list_t &sends = a2av_sends(a, p);
    const size_t es = a.elem_size;
    for (int e = 0; e < a.experts; e++) {
        const int s = a.c.h.team_my_pe * a.experts + e;
        size_t begin, end;
        symcoll_coll_share(sends.count[s] * es, gridDim.x, blockIdx.x, 16, &begin, &end);
        symcoll_coll_copy(coll_kernel_group(), a.c.dst + sends.remote[s] * es + begin,
                          a.c.src + sends.local[s] * es + begin, end - begin);
    }
}

/* ll: every block exchanges the header in its own LL slot with the first piece of data after
 * it, then as many rounds of data as the longest stream needs (every member computes the same
 * count from the same matrix). */
SYMCOLL_DEV void a2av_ll(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    const int words = a2av_header_words(a);
    const size_t first = a.combine ? 0 : SYMCOLL_LL_PAYLOAD - 8 * (size_t)words;
    const size_t lead = gridDim.x * first;
    uint64_t epoch = symcoll_coll_ll_epoch(coll_kernel_group(), h) + 1;
    if (!symcoll_coll_ll_wait_credit(coll_kernel_group(), h, epoch, SYMCOLL_COLL_ALLTOALLV))
        return;
    /* Before the matrix is known, a dispatch's first piece of each stream comes from its own
     * row of counts: its segments are packed in src. */
    const int segments = h.team_size * a.experts;
    a2av_load_own(a, p);
    bool bounded = true;
    for (int g = threadIdx.x; g < segments; g += blockDim.x)
        bounded = bounded && p->out.count[g] <= a.capacity;
    bounded = __syncthreads_and(bounded);
    a2av_exclusive_scan(p->out.count, p->out.local, p->before, segments);
    /* Counts that run past this member's src send the header alone: every member refuses the
     * call from the header, and no load leaves src. */
    const bool own_fits =
        bounded &&
        (segments == 0 || p->out.local[segments - 1] + p->out.count[segments - 1] <= a.src_room);
    size_t rounds = 1;
    for (size_t round = 0; round < rounds; round++) {
        if (round > 0 && (++epoch, !symcoll_coll_ll_wait_credit(coll_kernel_group(), h, epoch,
                                                                SYMCOLL_COLL_ALLTOALLV)))
            return;
        const size_t skip = round == 0 ? (size_t)words : 0;
        size_t begin, end;
        a2av_ll_piece(first, lead, round, &begin, &end);
        for (int step = 1; step < h.team_size; step++) {
            const int m = symcoll_coll_member_after(h, step);
            if (round == 0)
                a2av_send_header(a, p, m, epoch);
            if (round > 0 || own_fits)
                a2av_ll_stream(a, round == 0 ? p->out : a2av_sends(a, p), m, epoch, skip, begin,
                               end, false);
        }
        bool ok = round > 0 || a2av_plan(a, blockIdx.x, epoch, p);
        const bool moves = ok && a2av_fits(h, p);
        if (round == 0 && moves) {
            a2av_copy_own(a, p);
            const size_t per_round = gridDim.x * SYMCOLL_LL_PAYLOAD;
            rounds = 1 + (p->longest > lead ? (p->longest - lead + per_round - 1) / per_round : 0);
        }
        for (int step = 1; moves && step < h.team_size; step++) {
            const int i = symcoll_coll_member_after(h, h.team_size - step);
            ok = ok && a2av_ll_stream(a, a2av_receives(a, p), i, epoch, skip, begin, end, true);
        }
        if (!symcoll_coll_ll_ack(coll_kernel_group(), h, epoch, ok))
            return;
    }
    symcoll_coll_ll_finish(coll_kernel_group(), h, epoch);
    a2av_report(a, p);
}

/* push and pull: block 0 exchanges the counts in its LL slot, and publishes the epoch in the
 * team's local word before it sends its headers, so that the other blocks poll the same
 * headers as they arrive instead of waiting for block 0's plan. The last of them clears the
 * word (the next kernel on the team starts after this one, so it finds zeros). Every block
 * fences after the headers: the peers' src and dst, ready since they entered this kernel
 * (they fenced before sending), are then ordered before this block's accesses. */
SYMCOLL_DEV bool a2av_bw_plan(const symcoll_alltoallv_args_t &a, a2av_plan_t *p) {
    const symcoll_device_t &h = a.c.h;
    uint64_t *published = (uint64_t *)(h.team_sync + SYMCOLL_SYNC_LOCAL_OFF(h.team_size));
    unsigned *readers = (unsigned *)(published + 1);
    a2av_load_own(a, p);
    if (blockIdx.x == 0) {
        uint64_t epoch = symcoll_coll_ll_epoch(coll_kernel_group(), h) + 1;
        /* The other blocks may read the headers after block 0's ack, so the headers cannot use
         * an epoch whose ack rewrites the buffers (symcoll_coll_ll_scrub_due): such epochs pass
         * empty, alike on every member, whose slot 0 counts the same epochs. */
        for (; symcoll_coll_ll_scrub_due(epoch); epoch++)
            if (!symcoll_coll_ll_wait_credit(coll_kernel_group(), h, epoch,
                                             SYMCOLL_COLL_ALLTOALLV) ||
                !symcoll_coll_ll_ack(coll_kernel_group(), h, epoch, true))
                return false;
        if (!symcoll_coll_ll_wait_credit(coll_kernel_group(), h, epoch, SYMCOLL_COLL_ALLTOALLV))
            return false;
        if (threadIdx.x == 0 && gridDim.x > 1)
            symcoll_dev_store_relaxed(published, epoch);
        /* Releases this member's src and dst, written by earlier kernels, to the peers that
         * read or write them once they have the header. */
        symcoll_dev_fence_sys();
        for (int step = 1; step < h.team_size; step++)
            a2av_send_header(a, p, symcoll_coll_member_after(h, step), epoch);
        bool ok = a2av_plan(a, 0, epoch, p);
        symcoll_dev_fence_sys();
        if (!symcoll_coll_ll_ack(coll_kernel_group(), h, epoch, ok))
            return false;
        symcoll_coll_ll_finish(coll_kernel_group(), h, epoch);
        return true;
    }
    __shared__ uint64_t seen;
    if (threadIdx.x == 0 &&
        !symcoll_dev_wait_relaxed(h, published, SYMCOLL_CMP_NE, 0, SYMCOLL_COLL_ALLTOALLV, -1))
        seen = 0;
    else if (threadIdx.x == 0)
        seen = symcoll_dev_load_relaxed(published);
    __syncthreads();
    const uint64_t epoch = seen;
    if (epoch == 0 || !a2av_plan(a, 0, epoch, p))
        return false;
    /* Every thread's fence, then a barrier: the threads that read a peer's header are not the
     * ones that later access that peer's buffers. */
    symcoll_dev_fence_sys();
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(readers, 1u) == gridDim.x - 2) {
        *readers = 0;
        *published = 0;
    }
    return true;
}

/* Block b moves part b of every segment, straight to (push) or from (pull) the peer's memory,
 * then meets the peers' block b at the exit sync (as symcoll_coll_move_bw): no peer starts another
 * kernel on the team before every block here is done with its src, dst and block 0's LL
 * buffers. */
SYMCOLL_DEV void a2av_bw(const symcoll_alltoallv_args_t &a, a2av_plan_t *p, bool push) {
    const symcoll_device_t &h = a.c.h;
    const size_t es = a.elem_size;
    if (!a2av_bw_plan(a, p))
        return;
    a2av_report(a, p);
    const a2av_list_t &list = push ? a2av_sends(a, p) : a2av_receives(a, p);
    /* After an overflow nothing moves, but the exit sync stays: it keeps block 0's buffers of
     * this epoch unwritten until every block has read them. */
    for (int step = 0; a2av_fits(h, p) && step < h.team_size; step++) {
        const int m = symcoll_coll_member_after(h, step + blockIdx.x);
        for (int e = 0; e < a.experts; e++) {
            const int s = m * a.experts + e;
            char *dst = push ? symcoll_coll_member_ptr(h, a.c.dst + list.remote[s] * es, m)
                             : a.c.dst + list.local[s] * es;
            const char *src = push ? a.c.src + list.local[s] * es
                                   : symcoll_coll_member_ptr(h, a.c.src + list.remote[s] * es, m);
            size_t begin, end;
            symcoll_coll_share(list.count[s] * es, gridDim.x, blockIdx.x, 16, &begin, &end);
            symcoll_coll_copy(coll_kernel_group(), dst + begin, src + begin, end - begin);
        }
    }
    symcoll_dev_sync_slot_final(h, blockIdx.x, SYMCOLL_COLL_ALLTOALLV);
}

/* Two kernels: the bandwidth one keeps to 64 registers (COLL_LAUNCH_BOUNDS_2), which one
 * kernel for both paths (93 registers) could not, and which the push and pull grids need when
 * PEs share a GPU: at 93, one 2-PE one-GPU push moved 2 MiB in 18.6 us, at 64 in 11.9. */
static __global__ void COLL_LAUNCH_BOUNDS alltoallv_ll_kernel(symcoll_alltoallv_args_t a) {
    __shared__ a2av_plan_t plan;
    a2av_ll(a, &plan);
}

static __global__ void COLL_LAUNCH_BOUNDS_2 alltoallv_bw_kernel(symcoll_alltoallv_args_t a) {
    __shared__ a2av_plan_t plan;
    a2av_bw(a, &plan, a.c.algo == SYMCOLL_ALLTOALLV_PUSH);
}

extern "C" cudaError_t symcoll_alltoallv_launch(const symcoll_alltoallv_args_t *args, int blocks,
                                                int threads, cudaStream_t stream) {
    void *params[] = {(void *)args};
    const void *kernel = args->c.algo == SYMCOLL_ALLTOALLV_LL ? (const void *)alltoallv_ll_kernel
                                                              : (const void *)alltoallv_bw_kernel;
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), params, 0, stream);
}

extern "C" cudaError_t symcoll_alltoallv_kernels_load(void) {
    cudaError_t err = symcoll_kernel_load((const void *)alltoallv_ll_kernel);
    return err != cudaSuccess ? err : symcoll_kernel_load((const void *)alltoallv_bw_kernel);
}
