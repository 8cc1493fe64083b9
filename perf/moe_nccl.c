#include "moe_nccl.h"

#include <stdlib.h>

#include "fail.h"
#include "moe_routing.h"

int perf_moe_nccl_init(perf_moe_nccl_t *m, int npes, int experts) {
    *m = (perf_moe_nccl_t){.npes = npes, .experts = experts};
    size_t segments = (size_t)npes * (size_t)experts;
    m->host_offsets = malloc(sizeof *m->host_offsets * segments);
    if (m->host_offsets == NULL) {
        return perf_fail("moe: out of host memory");
    }
    PERF_CUDA(cudaMallocHost((void **)&m->host, sizeof *m->host * 2 * segments));
    return 0;
}

int perf_moe_nccl_fini(perf_moe_nccl_t *m) {
    free(m->host_offsets);
    m->host_offsets = NULL;
    int rc = perf_cuda_check(cudaFreeHost(m->host), "cudaFreeHost");
    m->host = NULL;
    return rc;
}

/* One group of a segment per (peer, expert) each way. to_experts: the dispatch (src's packed
 * segments out, received ones into their groups); else the combine (the reverse). */
static int exchange(const perf_moe_nccl_t *m, ncclComm_t comm, char *packed, char *grouped,
                    bool to_experts, cudaStream_t stream) {
    const int segments = m->npes * m->experts;
    const size_t *sent = m->host, *received = m->host + segments;
    size_t packed_at = 0;
    PERF_NCCL(ncclGroupStart());
    for (int k = 0; k < segments; k++) {
        int peer = k / m->experts;
        char *out = to_experts ? packed + packed_at : grouped + m->host_offsets[k];
        char *in = to_experts ? grouped + m->host_offsets[k] : packed + packed_at;
        size_t out_count = to_experts ? sent[k] : received[k];
        size_t in_count = to_experts ? received[k] : sent[k];
        /* Sends and receives between two ranks pair up in the order they are posted: expert
         * order on both sides. */
        PERF_NCCL(ncclSend(out, out_count, ncclUint8, peer, comm, stream));
        PERF_NCCL(ncclRecv(in, in_count, ncclUint8, peer, comm, stream));
        packed_at += sent[k];
    }
    PERF_NCCL(ncclGroupEnd());
    return 0;
}

int perf_moe_nccl_enqueue(const perf_nccl_t *nc, perf_moe_nccl_t *m, size_t *device_counts,
                          size_t align, bool symmetric, cudaStream_t stream) {
    const size_t segments = (size_t)m->npes * (size_t)m->experts;
    PERF_NCCL(ncclAlltoAll(device_counts, device_counts + segments, (size_t)m->experts, ncclUint64,
                           nc->comm, stream));
    PERF_CUDA(cudaMemcpyAsync(m->host, device_counts, sizeof *m->host * 2 * segments,
                              cudaMemcpyDeviceToHost, stream));
    PERF_CUDA(cudaStreamSynchronize(stream));
    perf_moe_layout(m->host + segments, m->npes, m->experts, align, m->host_offsets);
    char *src = symmetric ? nc->sym_src : nc->plain_src;
    char *dst = symmetric ? nc->sym_dst : nc->plain_dst;
    if (exchange(m, nc->comm, src, dst, true, stream) != 0) {
        return -1;
    }
    return exchange(m, nc->comm, src, dst, false, stream);
}
