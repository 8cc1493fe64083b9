/* The fused halo exchange kernel: strided boxes of every field stored straight into the
 * neighbours' halo cells, one flag per neighbour, waits with timeouts. */
#include "halo_launch.h"
#include "symcoll_halo_device.cuh"

/* Index of the direction list entry that owns block b. */
static __device__ int halo_entry_of(const symcoll_halo_args_t &a, unsigned b) {
    int i = 0;
    while (b >= a.first_block[i + 1])
        i++;
    return i;
}

static __global__ void __launch_bounds__(SYMCOLL_HALO_THREADS) halo_kernel(symcoll_halo_args_t a) {
    const symcoll_halo_device_t &hh = a.hh;
    const unsigned t = threadIdx.x, nt = blockDim.x;
    const int entry = halo_entry_of(a, blockIdx.x);
    const int dir = a.dir[entry];
    const unsigned blocks = a.first_block[entry + 1] - a.first_block[entry];
    const unsigned index = blockIdx.x - a.first_block[entry];
    const symcoll_halo_msg_t m = hh.msg[dir]; /* in registers: the stores cannot alias it */

    /* Every direction advances together, so this direction's count is the exchange number.
     * It is read before this block's ticket below, and only the last ticket advances it. */
    const uint64_t k = hh.send_epoch[dir] + 1;
    /* Every block announces the arrival to every neighbour: whichever block runs first lets
     * the neighbours start, however many blocks are resident. */
    if (t < (unsigned)a.n_dirs)
        symcoll_dev_halo_arrive(hh, a.dir[t], k);
    bool credit = false;
    if (t == 0)
        credit = symcoll_dev_halo_await_credit(hh, dir, k);
    if (!__syncthreads_or(credit))
        return;

    for (int f = 0; f < a.n_fields; f++) {
        int unit = symcoll_dev_halo_unit(m, a.fields[f]);
        uint32_t units = symcoll_dev_halo_units(m, unit);
        uint32_t share = (units + blocks - 1) / blocks;
        uint32_t begin = min(units, index * share), end = min(units, begin + share);
        symcoll_dev_halo_copy(hh, m, a.fields[f], unit, begin, end, t, nt);
    }
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
    symcoll_dev_halo_publish(hh, dir, k);
    hh.send_epoch[dir] = k;
    if (symcoll_dev_halo_await_data(hh, dir, k))
        hh.recv_epoch[dir] = k;
}

extern "C" cudaError_t symcoll_halo_launch(const symcoll_halo_args_t *args, cudaStream_t stream) {
    halo_kernel<<<args->first_block[args->n_dirs], SYMCOLL_HALO_THREADS, 0, stream>>>(*args);
    return cudaGetLastError();
}
