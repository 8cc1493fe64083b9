/* Stream-ordered collectives over NVSHMEM_TEAM_WORLD: all-reduces (every PE gets the result)
 * of several types and ops, broadcast from the last PE, fcollect, alltoall and a reducescatter;
 * outputs poisoned first, results checked against the CPU, small and large counts; an all-reduce
 * captured into a CUDA graph and replayed; the blocking host forms. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

static int value(int pe, size_t i) {
    return (int)((pe * 7919 + i * 31) % 1000) - 500;
}

/* Copies count elements of dev into a host buffer it allocates. */
static void *to_host(const void *dev, size_t bytes) {
    void *host = malloc(bytes);
    CHECK_CUDA(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    return host;
}
static void from_host(void *dev, const void *host, size_t bytes) {
    CHECK_CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
}

static long check_reduces(size_t count, cudaStream_t stream, int me, int n) {
    long bad = 0;
    int *isrc = (int *)nvshmem_malloc(count * sizeof(int));
    int *idst = (int *)nvshmem_malloc(count * sizeof(int));
    float *fsrc = (float *)nvshmem_malloc(count * sizeof(float));
    float *fdst = (float *)nvshmem_malloc(count * sizeof(float));
    uint32_t *usrc = (uint32_t *)nvshmem_malloc(count * sizeof(uint32_t));
    uint32_t *udst = (uint32_t *)nvshmem_malloc(count * sizeof(uint32_t));
    int *ih = (int *)malloc(count * sizeof(int));
    float *fh = (float *)malloc(count * sizeof(float));
    uint32_t *uh = (uint32_t *)malloc(count * sizeof(uint32_t));
    for (size_t i = 0; i < count; i++) {
        ih[i] = value(me, i);
        fh[i] = (float)value(me, i) * 0.25f;
        uh[i] = (uint32_t)value(me, i) * 2654435761u;
    }
    from_host(isrc, ih, count * sizeof(int));
    from_host(fsrc, fh, count * sizeof(float));
    from_host(usrc, uh, count * sizeof(uint32_t));
    CHECK_CUDA(cudaMemset(idst, 0xff, count * sizeof(int)));
    CHECK_CUDA(cudaMemset(fdst, 0xff, count * sizeof(float)));
    CHECK_CUDA(cudaMemset(udst, 0xff, count * sizeof(uint32_t)));
    nvshmem_barrier_all();

    bad += nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, idst, isrc, count, stream) != 0;
    bad += nvshmemx_float_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, fdst, fsrc, count, stream) != 0;
    bad += nvshmemx_uint32_xor_reduce_on_stream(NVSHMEM_TEAM_WORLD, udst, usrc, count, stream) != 0;
    /* In place: every PE's isrc becomes the minimum. */
    bad += nvshmemx_int_min_reduce_on_stream(NVSHMEM_TEAM_WORLD, isrc, isrc, count, stream) != 0;
    CHECK_CUDA(cudaStreamSynchronize(stream));

    int *isum = (int *)to_host(idst, count * sizeof(int));
    int *imin = (int *)to_host(isrc, count * sizeof(int));
    float *fmax = (float *)to_host(fdst, count * sizeof(float));
    uint32_t *uxor = (uint32_t *)to_host(udst, count * sizeof(uint32_t));
    for (size_t i = 0; i < count; i++) {
        int sum = 0, min = value(0, i);
        float max = (float)value(0, i) * 0.25f;
        uint32_t x = 0;
        for (int p = 0; p < n; p++) {
            sum += value(p, i);
            min = value(p, i) < min ? value(p, i) : min;
            max = (float)value(p, i) * 0.25f > max ? (float)value(p, i) * 0.25f : max;
            x ^= (uint32_t)value(p, i) * 2654435761u;
        }
        bad += isum[i] != sum;
        bad += imin[i] != min;
        bad += fmax[i] != max;
        bad += uxor[i] != x;
    }
    free(isum), free(imin), free(fmax), free(uxor), free(ih), free(fh), free(uh);
    nvshmem_barrier_all();
    nvshmem_free(udst), nvshmem_free(usrc), nvshmem_free(fdst), nvshmem_free(fsrc);
    nvshmem_free(idst), nvshmem_free(isrc);
    return bad;
}

static long check_exchanges(size_t count, cudaStream_t stream, int me, int n) {
    long bad = 0;
    int root = n - 1;
    long *src = (long *)nvshmem_malloc(count * n * sizeof(long));
    long *dst = (long *)nvshmem_malloc(count * n * sizeof(long));
    long *h = (long *)malloc(count * n * sizeof(long));
    for (size_t i = 0; i < count * n; i++)
        h[i] = (long)me * 100000000 + (long)i;
    from_host(src, h, count * n * sizeof(long));

    CHECK_CUDA(cudaMemset(dst, 0xff, count * n * sizeof(long)));
    nvshmem_barrier_all();
    bad +=
        nvshmemx_long_broadcast_on_stream(NVSHMEM_TEAM_WORLD, dst, src, count, root, stream) != 0;
    CHECK_CUDA(cudaStreamSynchronize(stream));
    long *got = (long *)to_host(dst, count * sizeof(long));
    for (size_t i = 0; i < count; i++)
        bad += got[i] != (long)root * 100000000 + (long)i;
    free(got);

    CHECK_CUDA(cudaMemset(dst, 0xff, count * n * sizeof(long)));
    nvshmem_barrier_all();
    bad += nvshmemx_long_fcollect_on_stream(NVSHMEM_TEAM_WORLD, dst, src, count, stream) != 0;
    CHECK_CUDA(cudaStreamSynchronize(stream));
    got = (long *)to_host(dst, count * n * sizeof(long));
    for (int p = 0; p < n; p++)
        for (size_t i = 0; i < count; i++)
            bad += got[p * count + i] != (long)p * 100000000 + (long)i;
    free(got);

    CHECK_CUDA(cudaMemset(dst, 0xff, count * n * sizeof(long)));
    nvshmem_barrier_all();
    bad += nvshmemx_long_alltoall_on_stream(NVSHMEM_TEAM_WORLD, dst, src, count, stream) != 0;
    CHECK_CUDA(cudaStreamSynchronize(stream));
    got = (long *)to_host(dst, count * n * sizeof(long));
    for (int p = 0; p < n; p++)
        for (size_t i = 0; i < count; i++)
            bad += got[p * count + i] != (long)p * 100000000 + (long)(me * count + i);
    free(got);

    /* reducescatter: PE me gets the sum over p of block me of PE p's src. */
    CHECK_CUDA(cudaMemset(dst, 0xff, count * n * sizeof(long)));
    nvshmem_barrier_all();
    bad +=
        nvshmemx_long_sum_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, dst, src, count, stream) != 0;
    CHECK_CUDA(cudaStreamSynchronize(stream));
    got = (long *)to_host(dst, count * sizeof(long));
    for (size_t i = 0; i < count; i++)
        bad += got[i] != (long)n * (n - 1) / 2 * 100000000 + (long)n * (long)(me * count + i);
    free(got);

    free(h);
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    return bad;
}

/* Captured once into a CUDA graph and replayed: each replay reduces that replay's input. */
static long check_graph(cudaStream_t stream, int me, int n) {
    const size_t count = 4096;
    long bad = 0;
    int *src = (int *)nvshmem_malloc(count * sizeof(int));
    int *dst = (int *)nvshmem_malloc(count * sizeof(int));
    int *h = (int *)malloc(count * sizeof(int));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    bad += nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, count, stream) != 0;
    nvshmemx_barrier_all_on_stream(stream);
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; replay++) {
        for (size_t i = 0; i < count; i++)
            h[i] = value(me, i) + replay;
        from_host(src, h, count * sizeof(int));
        CHECK_CUDA(cudaMemset(dst, 0xff, count * sizeof(int)));
        nvshmem_barrier_all();
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(h, dst, count * sizeof(int), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < count; i++) {
            int sum = n * replay;
            for (int p = 0; p < n; p++)
                sum += value(p, i);
            bad += h[i] != sum;
        }
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    free(h);
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    return bad;
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    set_device_of_node_pe();
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    long bad = 0;
    size_t counts[] = {1, 1000, 3 << 20};
    for (int c = 0; c < 3; c++) {
        bad += check_reduces(counts[c], stream, me, n);
        bad += check_exchanges(counts[c], stream, me, n);
    }
    bad += check_graph(stream, me, n);
    /* The blocking host form of a reduction. */
    int *x = (int *)nvshmem_malloc(sizeof(int));
    nvshmem_int_p(x, me + 1, me);
    nvshmem_barrier_all();
    bad += nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, x, x, 1) != 0;
    bad += nvshmem_int_g(x, me) != n * (n + 1) / 2;
    nvshmem_barrier_all();
    /* The blocking byte form of a broadcast, from the last PE. */
    nvshmem_int_p(x, me + 1, me);
    nvshmem_barrier_all();
    bad += nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, x, x, sizeof(int), n - 1) != 0;
    bad += nvshmem_int_g(x, me) != n;
    nvshmem_barrier_all();
    /* NVSHMEM_TEAM_SHARED is a handle of its own that means the node team. */
    bad += NVSHMEM_TEAM_SHARED == NVSHMEMX_TEAM_NODE;
    bad += nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED) != nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
    bad += nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED) != nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    nvshmem_int_p(x, me + 1, me);
    nvshmem_barrier_all();
    bad += nvshmem_int_sum_reduce(NVSHMEM_TEAM_SHARED, x, x, 1) != 0;
    int node = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE),
        first = me - nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    bad += nvshmem_int_g(x, me) != node * (2 * first + node + 1) / 2;
    nvshmem_barrier_all();
    nvshmem_free(x);
    CHECK_CUDA(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return report("collectives", me, bad);
}
