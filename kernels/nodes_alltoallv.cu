/* alltoallv and the expert-grouped dispatch and combine on a team across nodes: two kernels
 * around host-enqueued waits (collectives/nodes_alltoallv.c). The header kernel sends this
 * PE's header (the LL path's first packets: shape, capacity, room in src, counts) into its row
 * of every PE's gathered headers; the data kernel then reads every row from memory, lays the
 * call out exactly as the LL path does (kernels/alltoallv_plan.cuh), and moves the segments:
 * to the PEs of its node by stores through the peer mappings, to the others through the
 * proxy's ring. Each PE of another node gets exactly one signal from each kernel, also when the
 * call does not fit and nothing moves, so that the host's waits count alike on every PE. */
#include "alltoallv_plan.cuh"
#include "kernel_load.h"

/* Posts a put of bytes from local to member m's copy of the symmetric remote, with an ADD of 1
 * to m's *arrivals where signal; its ticket, 0 when the ring had no room in time. */
SYMCOLL_DEV uint64_t nodes_a2av_post(const symcoll_device_t &h, int m, const void *remote,
                                     const void *local, size_t bytes, const uint64_t *arrivals,
                                     bool signal) {
    return symcoll_dev_proxy_post(h, SYMCOLL_PROXY_RING_PUT, symcoll_dev_team_to_world(h, m),
                                  (uint64_t)((const char *)remote - h.heap_base), local, bytes,
                                  signal ? arrivals : (const uint64_t *)0, 1, SYMCOLL_SIGNAL_ADD);
}

/* Member m is reached through the proxy. */
SYMCOLL_DEV bool nodes_a2av_remote(const symcoll_device_t &h, int m) {
    return symcoll_dev_proxied(h, symcoll_dev_team_to_world(h, m));
}

/* One block: this PE's row, then the row into every other PE's copy of it. */
static __global__ void COLL_LAUNCH_BOUNDS nodes_alltoallv_header_kernel(symcoll_alltoallv_args_t a,
                                                                        uint64_t *arrivals) {
    const symcoll_device_t &h = a.c.h;
    const int n = h.team_size, me = h.team_my_pe, words = A2AV_COUNTS + n * a.experts;
    uint64_t *row = a.headers + (size_t)me * SYMCOLL_ALLTOALLV_HEADER_WORDS;
    for (int w = threadIdx.x; w < words; w += blockDim.x) {
        uint64_t v = w == A2AV_SHAPE      ? a.shape
                     : w == A2AV_CAPACITY ? a.capacity
                     : w == A2AV_ROOM     ? a.src_room
                                          : a.send_counts[w - A2AV_COUNTS];
        row[w] = v;
        for (int m = 0; m < n; m++)
            if (m != me && !nodes_a2av_remote(h, m))
                symcoll_coll_member_ptr(h, row, m)[w] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int m = 0; m < n; m++)
            if (nodes_a2av_remote(h, m))
                nodes_a2av_post(h, m, row, row, (size_t)words * 8, arrivals, true);
}

/* Every block lays the call out from the rows; block 0 reports it and posts the segments for
 * other nodes, and every block stores its share of the segments for this node's PEs. Block 0
 * returns once the proxy has staged its posts: the stream may then reuse src. */
static __global__ void COLL_LAUNCH_BOUNDS nodes_alltoallv_kernel(symcoll_alltoallv_args_t a,
                                                                 uint64_t *arrivals) {
    __shared__ a2av_plan_t plan;
    const symcoll_device_t &h = a.c.h;
    const size_t es = a.elem_size;
    a2av_load_own(a, &plan);
    a2av_plan(a, 0, 0, &plan);
    a2av_report(a, &plan);
    const bool fits = a2av_fits(h, &plan);
    const a2av_list_t &sends = a2av_sends(a, &plan);
    for (int step = 0; fits && step < h.team_size; step++) {
        const int m = symcoll_coll_member_after(h, step + blockIdx.x);
        for (int e = 0; !nodes_a2av_remote(h, m) && e < a.experts; e++) {
            const int s = m * a.experts + e;
            size_t begin, end;
            symcoll_coll_share(sends.count[s] * es, gridDim.x, blockIdx.x, 16, &begin, &end);
            symcoll_coll_copy(coll_kernel_group(),
                              symcoll_coll_member_ptr(h, a.c.dst + sends.remote[s] * es, m) + begin,
                              a.c.src + sends.local[s] * es + begin, end - begin);
        }
    }
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    uint64_t last = 0;
    for (int m = 0; m < h.team_size; m++) {
        if (!nodes_a2av_remote(h, m))
            continue;
        for (int e = 0; fits && e < a.experts; e++) {
            const int s = m * a.experts + e;
            if (sends.count[s] > 0)
                last = nodes_a2av_post(h, m, a.c.dst + sends.remote[s] * es,
                                       a.c.src + sends.local[s] * es, sends.count[s] * es, arrivals,
                                       false);
        }
        /* After the segments to m: the proxy applies m's requests in order. */
        last = nodes_a2av_post(h, m, arrivals, arrivals, 0, arrivals, true);
    }
    if (last)
        symcoll_dev_proxy_wait(h, SYMCOLL_PROXY_RING_STAGED, last, -1);
}

extern "C" cudaError_t symcoll_nodes_alltoallv_header_launch(const symcoll_alltoallv_args_t *args,
                                                             uint64_t *arrivals,
                                                             cudaStream_t stream) {
    void *params[] = {(void *)args, &arrivals};
    return cudaLaunchKernel((const void *)nodes_alltoallv_header_kernel, dim3(1),
                            dim3(SYMCOLL_TUNING_MAX_THREADS), params, 0, stream);
}

extern "C" cudaError_t symcoll_nodes_alltoallv_launch(const symcoll_alltoallv_args_t *args,
                                                      uint64_t *arrivals, int blocks, int threads,
                                                      cudaStream_t stream) {
    void *params[] = {(void *)args, &arrivals};
    return cudaLaunchKernel((const void *)nodes_alltoallv_kernel, dim3(blocks), dim3(threads),
                            params, 0, stream);
}

extern "C" cudaError_t symcoll_nodes_alltoallv_kernels_load(void) {
    cudaError_t err = symcoll_kernel_load((const void *)nodes_alltoallv_header_kernel);
    return err != cudaSuccess ? err : symcoll_kernel_load((const void *)nodes_alltoallv_kernel);
}
