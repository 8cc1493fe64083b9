// Experiment (issue 13): does the relaxed barrier's time depend on where its flags live?
// Hypothesis: NCCL's relaxed barrier reads 0.65 us in some processes and 0.82-0.84 in others
// of the same run, ours 0.79-0.83; H100/H200 L2 is two partitions, and a flag polled from the
// far one costs more. One block of 128 threads per GPU, relaxed barrier (st.relaxed to the
// peer's flag, ld.relaxed polls), 20000 syncs, flags at 64 offsets 4 KiB .. 256 KiB apart in
// one symmetric buffer; prints us per sync per offset and the SM the block ran on.
// Built and run on the GPU machine by flag_offsets.sh.
#include <stdio.h>
#include <stdlib.h>
#include "symcoll.h"
#include "symcoll_device.cuh"
#include "harness_check.h"

__global__ void relaxed_loop(uint64_t *mine_at_peer, const uint64_t *from_peer, int iters,
                             uint64_t base, unsigned *sm, int *bad) {
    if (threadIdx.x == 0)
        asm volatile("mov.u32 %0, %%smid;" : "=r"(*sm));
    for (int k = 1; k <= iters; k++) {
        __syncthreads();
        if (threadIdx.x == 1) {
            asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(mine_at_peer), "l"(base + k)
                         : "memory");
            uint64_t v, spins = 0;
            do {
                asm volatile("ld.relaxed.sys.global.u64 %0, [%1];"
                             : "=l"(v)
                             : "l"(from_peer)
                             : "memory");
            } while (v < base + k && ++spins < (1ull << 32));
            if (v < base + k)
                *bad = 1;
        }
        __syncthreads();
    }
}

int main() {
    if (symcoll_init(NULL) != SYMCOLL_SUCCESS) {
        printf("init: %s\n", symcoll_last_error());
        return 1;
    }
    int me = symcoll_my_pe(), peer = 1 - me;
    const size_t stride = 4096, n_offsets = 64, iters = 20000;
    char *flags = (char *)symcoll_malloc(stride * n_offsets);
    CK(cudaMemset(flags, 0, stride * n_offsets));
    unsigned *sm;
    int *bad;
    CK(cudaMallocManaged(&sm, sizeof *sm));
    CK(cudaMallocManaged(&bad, sizeof *bad));
    *bad = 0;
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    CK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0) ? cudaErrorUnknown
                                                        : cudaDeviceSynchronize());
    for (size_t o = 0; o < n_offsets; o++) {
        /* Flag of PE p at offset o: word p of the line; the peer writes our word. */
        uint64_t *line = (uint64_t *)(flags + o * stride);
        uint64_t *mine_at_peer = (uint64_t *)symcoll_ptr(line + me, peer);
        for (int rep = 0; rep < 2; rep++) {
            uint64_t base = (uint64_t)rep * iters;
            CK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0) ? cudaErrorUnknown
                                                                : cudaDeviceSynchronize());
            CK(cudaEventRecord(t0));
            relaxed_loop<<<1, 128>>>(mine_at_peer, line + peer, (int)iters, base, sm, bad);
            CK(cudaEventRecord(t1));
            CK(cudaEventSynchronize(t1));
            float ms;
            CK(cudaEventElapsedTime(&ms, t0, t1));
            if (rep == 1 && me == 0)
                printf("offset %6zu KiB  %.3f us per sync  SM %u%s\n", o * stride / 1024,
                       ms * 1000 / iters, *sm, *bad ? "  WRONG" : "");
        }
    }
    symcoll_free(flags);
    return symcoll_finalize() != SYMCOLL_SUCCESS;
}
