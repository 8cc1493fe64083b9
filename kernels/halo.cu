/* The fused halo exchange kernel: small boxes as LL lines that the receiver copies into its
 * halo, larger strided boxes of every field stored straight into the neighbours' halo cells
 * with one flag per neighbour; waits with timeouts. */
#include "coll_kernel.cuh"
#include "symcoll/detail/coll_ll.cuh"
#include "halo_launch.h"
#include "kernel_load.h"
#include "symcoll_halo_device.cuh"

/* Bytes [8 w, 8 w + 8) of m's box in row-major order (the packed stream), read from (gather)
 * or written to (scatter) the box at base with the given pitches, in units of U. */
template <typename U>
static __device__ uint64_t halo_gather_word(const symcoll_halo_msg_t &m, const char *base,
                                            uint32_t w, uint32_t units) {
    const uint32_t per_word = 8 / sizeof(U), per_row = m.row_bytes / sizeof(U);
    uint64_t v = 0;
#pragma unroll
    for (uint32_t j = 0; j < per_word; j++) {
        uint32_t u = w * per_word + j;
        if (u < units)
            v |= (uint64_t) * (const U *)(base + symcoll_dev_halo_at<U>(m, m.src_pitch, u, per_row))
                 << (8 * sizeof(U) * j);
    }
    return v;
}
template <typename U>
static __device__ void halo_scatter_word(const symcoll_halo_msg_t &m, char *base, uint32_t w,
                                         uint32_t units, uint64_t v) {
    const uint32_t per_word = 8 / sizeof(U), per_row = m.row_bytes / sizeof(U);
#pragma unroll
    for (uint32_t j = 0; j < per_word; j++) {
        uint32_t u = w * per_word + j;
        if (u < units)
            *(U *)(base + symcoll_dev_halo_at<U>(m, m.dst_pitch, u, per_row)) =
                (U)(v >> (8 * sizeof(U) * j));
    }
}

/* The access width for the packed stream of m on field: at most 8 bytes (one word). */
static __device__ int halo_word_unit(const symcoll_halo_msg_t &m, const void *field) {
    int unit = symcoll_dev_halo_unit(m, field);
    return unit > 8 ? 8 : unit;
}

static __device__ uint64_t halo_gather(const symcoll_halo_msg_t &m, const void *field, uint32_t w) {
    const char *base = (const char *)field + m.src_offset;
    int unit = halo_word_unit(m, field);
    uint32_t units = symcoll_dev_halo_units(m, unit);
    switch (unit) {
    case 8:
        return halo_gather_word<uint64_t>(m, base, w, units);
    case 4:
        return halo_gather_word<uint32_t>(m, base, w, units);
    case 2:
        return halo_gather_word<uint16_t>(m, base, w, units);
    default:
        return halo_gather_word<uint8_t>(m, base, w, units);
    }
}

static __device__ void halo_scatter(const symcoll_halo_msg_t &m, void *field, uint32_t w,
                                    uint64_t v) {
    char *base = (char *)field + m.dst_offset;
    int unit = halo_word_unit(m, field);
    uint32_t units = symcoll_dev_halo_units(m, unit);
    switch (unit) {
    case 8:
        return halo_scatter_word<uint64_t>(m, base, w, units, v);
    case 4:
        return halo_scatter_word<uint32_t>(m, base, w, units, v);
    case 2:
        return halo_scatter_word<uint16_t>(m, base, w, units, v);
    default:
        return halo_scatter_word<uint8_t>(m, base, w, units, v);
    }
}

/* Words of one field's box in the packed stream. */
static __device__ uint32_t halo_words(const symcoll_halo_msg_t &m) {
    return (uint32_t)(((uint64_t)m.row_bytes * m.rows * m.planes + 7) / 8);
}

/* Lines each thread handles at once: their loads are all in flight before they are used. */
#define HALO_LL_DEPTH 4

/* Block `index` of `blocks` of an LL direction: sends its share of the packed stream of every
 * field (field after field) as LL lines of exchange k into the neighbour's slot, then copies
 * its share of the incoming lines into our halo. No credit: the neighbour wrote our previous
 * lines of this parity before its exchange k - 1, which we have received. False in every
 * thread on timeout. */
static __device__ bool halo_ll_block(const symcoll_halo_args_t &a, const symcoll_halo_msg_t &m,
                                     int dir, uint64_t k, unsigned index, unsigned blocks) {
    const symcoll_halo_device_t &hh = a.hh;
    const symcoll_halo_msg_t in = a.in[dir];
    const unsigned t = threadIdx.x, nt = blockDim.x;
    const uint64_t parity = k & 1;
    const int back = symcoll_dev_halo_opposite(dir);
    const char *slot_to = a.ll + a.ll_off[back] + parity * 2 * a.ll_payload[back];
    char *peer_slot = (char *)symcoll_dev_peer(hh.team, (void *)slot_to, m.pe);
    const char *slot = a.ll + a.ll_off[dir] + parity * 2 * a.ll_payload[dir];

    uint32_t out_words = halo_words(m), out_total = out_words * (uint32_t)a.n_fields;
    uint32_t share = (out_total + blocks - 1) / blocks;
    uint32_t begin = min(out_total, index * share), end = min(out_total, begin + share);
    for (uint32_t base = begin + t; base < end; base += HALO_LL_DEPTH * nt) {
        uint64_t v[HALO_LL_DEPTH];
#pragma unroll
        for (int j = 0; j < HALO_LL_DEPTH; j++) {
            uint32_t w = base + j * nt, f = w / out_words;
            if (w < end)
                v[j] = halo_gather(m, a.fields[f], w - f * out_words);
        }
#pragma unroll
        for (int j = 0; j < HALO_LL_DEPTH; j++) {
            uint32_t w = base + j * nt;
            if (w < end)
                symcoll_dev_ll_store(peer_slot + 16 * (size_t)w, v[j], (uint32_t)k);
        }
    }

    uint32_t in_words = halo_words(in), in_total = in_words * (uint32_t)a.n_fields;
    share = (in_total + blocks - 1) / blocks;
    begin = min(in_total, index * share), end = min(in_total, begin + share);
    bool ok = true;
    for (uint32_t base = begin + t; base < end && ok; base += HALO_LL_DEPTH * nt) {
        uint64_t v[HALO_LL_DEPTH];
        bool there[HALO_LL_DEPTH];
#pragma unroll
        for (int j = 0; j < HALO_LL_DEPTH; j++) {
            uint32_t w = base + j * nt;
            there[j] = w >= end || symcoll_dev_ll_peek(slot + 16 * (size_t)w, (uint32_t)k, &v[j]);
        }
#pragma unroll
        for (int j = 0; j < HALO_LL_DEPTH; j++) {
            uint32_t w = base + j * nt, f = w / in_words;
            if (!there[j] && ok) /* not yet: wait for it, with the timeout */
                ok = symcoll_dev_ll_load(hh.team, slot + 16 * (size_t)w, (uint32_t)k, &v[j],
                                         SYMCOLL_COLL_HALO, m.pe);
            if (w < end && ok)
                halo_scatter(in, a.fields[f], w - f * in_words, v[j]);
        }
    }
    return __syncthreads_and(ok);
}

/* True when exchange k rewrites this PE's LL slots of its parity (kernels/halo_launch.h):
 * 2^31 exchanges after the last rewrite, or a block of this kernel has begun it already. */
static __device__ bool halo_ll_scrub_due(const symcoll_halo_args_t &a, uint64_t k) {
    uint64_t last = *(volatile uint64_t *)&a.ll_scrubbed[k & 1];
    return last == k || k - last >= ((uint64_t)1 << 31);
}

/* Block index's part of the rewrite of our slot of exchange k from dir as lines of k: the
 * first `read` lines as halo_ll_block shares them (this block has read its own), and a share
 * of the rest, which no block reads in this exchange. Nothing writes the slot meanwhile: the
 * neighbour writes this parity again in exchange k + 2, after our exchange k + 1 has begun,
 * and kernel completion orders these stores before it. */
static __device__ void halo_ll_scrub(const symcoll_halo_args_t &a, int dir, uint64_t k,
                                     uint32_t read, unsigned index, unsigned blocks) {
    const uint32_t lines = a.ll_payload[dir] / 8;
    char *slot = a.ll + a.ll_off[dir] + (k & 1) * 2 * a.ll_payload[dir];
    uint32_t share = (read + blocks - 1) / blocks;
    uint32_t begin = min(read, index * share), end = min(read, begin + share);
    for (uint32_t w = begin + threadIdx.x; w < end; w += blockDim.x)
        symcoll_dev_ll_store(slot + 16 * (size_t)w, 0, (uint32_t)k);
    share = (lines - read + blocks - 1) / blocks;
    begin = read + min(lines - read, index * share);
    end = read + min(lines - read, (index + 1) * share);
    for (uint32_t w = begin + threadIdx.x; w < end; w += blockDim.x)
        symcoll_dev_ll_store(slot + 16 * (size_t)w, 0, (uint32_t)k);
    if (threadIdx.x == 0)
        *(volatile uint64_t *)&a.ll_scrubbed[k & 1] = k;
}

/* Index of the direction list entry that owns block b. */
static __device__ int halo_entry_of(const symcoll_halo_args_t &a, unsigned b) {
    int i = 0;
    while (b >= a.first_block[i + 1])
        i++;
    return i;
}

static __global__ void __launch_bounds__(SYMCOLL_HALO_THREADS, 2)
    halo_kernel(symcoll_halo_args_t a) {
    const symcoll_halo_device_t &hh = a.hh;
    const unsigned t = threadIdx.x, nt = blockDim.x;
    const int entry = halo_entry_of(a, blockIdx.x);
    const int dir = a.dir[entry];
    const unsigned blocks = a.first_block[entry + 1] - a.first_block[entry];
    const unsigned index = blockIdx.x - a.first_block[entry];
    /* From the parameters: no dependent load of the table at the start; in registers, so the
     * stores cannot alias it. */
    const symcoll_halo_msg_t m = a.msg[entry];

    /* Every direction advances together, so this direction's count is the exchange number.
     * It is read before this block's ticket below, and only the last ticket advances it. */
    const uint64_t k = hh.send_epoch[dir] + 1;
    const bool ll = (a.ll_entries >> entry) & 1u;
    const bool scrub = halo_ll_scrub_due(a, k);
    if (ll) {
        if (!halo_ll_block(a, m, dir, k, index, blocks))
            return;
        if (scrub)
            halo_ll_scrub(a, dir, k, halo_words(a.in[dir]) * (uint32_t)a.n_fields, index, blocks);
        if (t != 0)
            return;
        /* The counts advance once every block of the direction has read them. */
        if (blocks > 1 && atomicAdd((unsigned long long *)&hh.sent_blocks[dir], 1ull) != blocks - 1)
            return;
        hh.sent_blocks[dir] = 0;
        hh.send_epoch[dir] = k;
        hh.recv_epoch[dir] = k;
        return;
    }
    /* Every block announces the arrival to every neighbour: whichever block runs first lets
     * the neighbours start, however many blocks are resident. */
    if (t < (unsigned)a.n_dirs)
        symcoll_dev_halo_arrive(hh, a.msg[t], a.dir[t], k);

    /* The first field's first loads go out before the credit wait (the gate), hiding it. */
    for (int f = 0; f < a.n_fields; f++) {
        int unit = symcoll_dev_halo_unit(m, a.fields[f]);
        uint64_t units = symcoll_dev_halo_units(m, unit);
        uint64_t share = (units + blocks - 1) / blocks;
        uint64_t begin = min(units, index * share), end = min(units, begin + share);
        if (!symcoll_dev_halo_copy(hh, dir, k, f == 0, m, a.fields[f], unit, begin, end, t, nt))
            return;
    }
    if (scrub)
        halo_ll_scrub(a, dir, k, 0, index, blocks);
    __syncthreads();
    if (t != 0)
        return;
    /* One block: its stores reach thread 0 through the block barrier, and the release of the
     * publish carries them. Several: each orders its stores before its ticket, and the last
     * one orders everything it has seen before the publish. */
    if (blocks > 1) {
        symcoll_dev_fence_sys();
        unsigned long long *ticket = (unsigned long long *)&hh.sent_blocks[dir];
        if (atomicAdd(ticket, 1ull) != blocks - 1)
            return;
        *ticket = 0;
        symcoll_dev_fence_sys();
    }
    symcoll_dev_halo_publish(hh, m, dir, k);
    hh.send_epoch[dir] = k;
    /* No acquire: this kernel reads none of the halo cells. */
    if (symcoll_dev_halo_await_data(hh, m, dir, k, false))
        hh.recv_epoch[dir] = k;
}

extern "C" cudaError_t symcoll_halo_launch(const symcoll_halo_args_t *args, cudaStream_t stream) {
    void *params[] = {(void *)args};
    return cudaLaunchKernel((const void *)halo_kernel, dim3(args->first_block[args->n_dirs]),
                            dim3(SYMCOLL_HALO_THREADS), params, 0, stream);
}

/* ---- neighbours on other nodes (halo_launch.h) ---- */

/* Blocks per direction of a pack or unpack: one per HALO_BOX_WORDS words of the largest box. */
#define HALO_BOX_WORDS ((uint32_t)SYMCOLL_HALO_THREADS * 8)
#define HALO_BOX_MAX_BLOCKS 32u

static __device__ uint64_t *halo_remote_counts(const symcoll_halo_remote_args_t &r, int base) {
    return (uint64_t *)r.remote + base;
}

static __device__ uint64_t *halo_remote_slot(const symcoll_halo_remote_args_t &r, int dir,
                                             int slot) {
    return (uint64_t *)(r.remote + r.off[dir] + r.slot[dir] * (uint64_t)slot);
}

/* blockIdx.y: the remote direction; the blocks share its words. */
static __global__ void __launch_bounds__(SYMCOLL_HALO_THREADS)
    halo_pack_kernel(symcoll_halo_remote_args_t r) {
    const int dir = r.dir[blockIdx.y];
    const symcoll_halo_msg_t m = r.msg[dir];
    uint64_t *out = halo_remote_slot(r, dir, 0);
    for (uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < halo_words(m);
         w += gridDim.x * blockDim.x)
        out[w] = halo_gather(m, r.field, w);
}

/* One thread: each box into the slot of this round's parity on the neighbour, with one
 * arrival, then the wait until the proxy has staged them (the next round packs over them). */
static __global__ void halo_post_kernel(symcoll_halo_remote_args_t r) {
    const symcoll_device_t &h = r.team;
    uint64_t *sent = halo_remote_counts(r, SYMCOLL_HALO_REMOTE_SENT);
    uint64_t *arrived = halo_remote_counts(r, SYMCOLL_HALO_REMOTE_ARRIVED);
    uint64_t last = 0;
    for (int i = 0; i < r.n_dirs; i++) {
        const int dir = r.dir[i], back = SYMCOLL_HALO_DIRS - 1 - dir;
        const symcoll_halo_msg_t m = r.msg[dir];
        const char *to = (const char *)halo_remote_slot(r, back, 1 + (int)(sent[dir] & 1));
        last = symcoll_dev_proxy_post(h, SYMCOLL_PROXY_RING_PUT, m.pe, (uint64_t)(to - h.heap_base),
                                      halo_remote_slot(r, dir, 0), (size_t)halo_words(m) * 8,
                                      arrived + back, 1, SYMCOLL_SIGNAL_ADD);
        if (!last)
            return;
        sent[dir]++;
    }
    symcoll_dev_wait(h, h.proxy_ring.progress + SYMCOLL_PROXY_RING_STAGED, SYMCOLL_CMP_GE, last,
                     SYMCOLL_COLL_HALO, -1);
}

/* One thread: waits for the next round from every remote neighbour. */
static __global__ void halo_await_kernel(symcoll_halo_remote_args_t r) {
    uint64_t *received = halo_remote_counts(r, SYMCOLL_HALO_REMOTE_RECEIVED);
    const uint64_t *arrived = halo_remote_counts(r, SYMCOLL_HALO_REMOTE_ARRIVED);
    for (int i = 0; i < r.n_dirs; i++) {
        const int dir = r.dir[i];
        const uint64_t round = received[dir] + 1;
        if (!symcoll_dev_wait(r.team, arrived + dir, SYMCOLL_CMP_GE, round, SYMCOLL_COLL_HALO,
                              r.in[dir].pe))
            return;
        received[dir] = round;
    }
}

static __global__ void __launch_bounds__(SYMCOLL_HALO_THREADS)
    halo_unpack_kernel(symcoll_halo_remote_args_t r) {
    const int dir = r.dir[blockIdx.y];
    const symcoll_halo_msg_t in = r.in[dir];
    const uint64_t round = halo_remote_counts(r, SYMCOLL_HALO_REMOTE_RECEIVED)[dir];
    const uint64_t *slot = halo_remote_slot(r, dir, 1 + (int)((round - 1) & 1));
    for (uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < halo_words(in);
         w += gridDim.x * blockDim.x)
        halo_scatter(in, r.field, w, slot[w]);
}

/* The grid of a pack or unpack: by the largest slot, which holds the largest box. */
static dim3 halo_box_grid(const symcoll_halo_remote_args_t *r) {
    uint64_t most = 0;
    for (int i = 0; i < r->n_dirs; i++)
        most = r->slot[r->dir[i]] > most ? r->slot[r->dir[i]] : most;
    uint64_t blocks = (most / 8 + HALO_BOX_WORDS - 1) / HALO_BOX_WORDS;
    return dim3(blocks < 1                     ? 1
                : blocks > HALO_BOX_MAX_BLOCKS ? HALO_BOX_MAX_BLOCKS
                                               : (unsigned)blocks,
                (unsigned)r->n_dirs);
}

static cudaError_t halo_remote_launch(const void *kernel, dim3 grid, dim3 block,
                                      const symcoll_halo_remote_args_t *r, cudaStream_t stream) {
    void *params[] = {(void *)r};
    return cudaLaunchKernel(kernel, grid, block, params, 0, stream);
}

extern "C" cudaError_t symcoll_halo_remote_send(const symcoll_halo_remote_args_t *r,
                                                cudaStream_t stream) {
    cudaError_t err = halo_remote_launch((const void *)halo_pack_kernel, halo_box_grid(r),
                                         dim3(SYMCOLL_HALO_THREADS), r, stream);
    return err != cudaSuccess
               ? err
               : halo_remote_launch((const void *)halo_post_kernel, dim3(1), dim3(1), r, stream);
}

extern "C" cudaError_t symcoll_halo_remote_receive(const symcoll_halo_remote_args_t *r,
                                                   cudaStream_t stream) {
    cudaError_t err =
        halo_remote_launch((const void *)halo_await_kernel, dim3(1), dim3(1), r, stream);
    return err != cudaSuccess
               ? err
               : halo_remote_launch((const void *)halo_unpack_kernel, halo_box_grid(r),
                                    dim3(SYMCOLL_HALO_THREADS), r, stream);
}

extern "C" cudaError_t symcoll_halo_kernels_load(void) {
    const void *kernels[] = {(const void *)halo_kernel, (const void *)halo_pack_kernel,
                             (const void *)halo_post_kernel, (const void *)halo_await_kernel,
                             (const void *)halo_unpack_kernel};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        cudaError_t err = symcoll_kernel_load(kernels[i]);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}
