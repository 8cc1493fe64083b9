#include "nccl_baseline.h"

#include <string.h>

#include "fail.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 28, 0)
#error "symcoll-perf --compare needs NCCL 2.28 or newer (symmetric windows, ncclAlltoAll)"
#endif

int perf_nccl_check(ncclResult_t rc, const char *what) {
    return rc == ncclSuccess ? 0 : perf_fail("%s: %s", what, ncclGetErrorString(rc));
}

int perf_nccl_init(perf_nccl_t *nc, perf_exchange_t *ex, size_t bytes) {
    memset(nc, 0, sizeof *nc);
    ncclUniqueId id;
    _Static_assert(sizeof id <= PERF_EXCHANGE_BYTES, "the unique id fits the exchange");
    if (ex->me == 0) {
        PERF_NCCL(ncclGetUniqueId(&id));
    }
    if (perf_exchange_broadcast(ex, &id, sizeof id) != 0) {
        return -1;
    }
    PERF_NCCL(ncclCommInitRank(&nc->comm, ex->npes, id, ex->me));
    PERF_CUDA(cudaMalloc(&nc->plain_src, bytes));
    PERF_CUDA(cudaMalloc(&nc->plain_dst, bytes));
    PERF_CUDA(cudaMemset(nc->plain_src, 0, bytes));
    PERF_NCCL(ncclMemAlloc(&nc->sym_src, bytes));
    PERF_NCCL(ncclMemAlloc(&nc->sym_dst, bytes));
    PERF_CUDA(cudaMemset(nc->sym_src, 0, bytes));
    PERF_NCCL(ncclCommWindowRegister(nc->comm, nc->sym_src, bytes, &nc->sym_src_win,
                                     NCCL_WIN_COLL_SYMMETRIC));
    PERF_NCCL(ncclCommWindowRegister(nc->comm, nc->sym_dst, bytes, &nc->sym_dst_win,
                                     NCCL_WIN_COLL_SYMMETRIC));
    PERF_CUDA(cudaMallocHost((void **)&nc->host_counts, sizeof *nc->host_counts * 2 * ex->npes));
    return 0;
}

int perf_nccl_fini(perf_nccl_t *nc) {
    int rc = perf_cuda_check(cudaFreeHost(nc->host_counts), "cudaFreeHost");
    rc |= perf_nccl_check(ncclCommWindowDeregister(nc->comm, nc->sym_dst_win),
                          "ncclCommWindowDeregister");
    rc |= perf_nccl_check(ncclCommWindowDeregister(nc->comm, nc->sym_src_win),
                          "ncclCommWindowDeregister");
    rc |= perf_nccl_check(ncclMemFree(nc->sym_dst), "ncclMemFree");
    rc |= perf_nccl_check(ncclMemFree(nc->sym_src), "ncclMemFree");
    rc |= perf_cuda_check(cudaFree(nc->plain_dst), "cudaFree");
    rc |= perf_cuda_check(cudaFree(nc->plain_src), "cudaFree");
    rc |= perf_nccl_check(ncclCommDestroy(nc->comm), "ncclCommDestroy");
    return rc;
}

static ncclDataType_t nccl_type(symcoll_datatype_t type) {
    static const ncclDataType_t types[SYMCOLL_NUM_DATATYPES] = {
        [SYMCOLL_INT8] = ncclInt8,       [SYMCOLL_UINT8] = ncclUint8,
        [SYMCOLL_INT32] = ncclInt32,     [SYMCOLL_UINT32] = ncclUint32,
        [SYMCOLL_INT64] = ncclInt64,     [SYMCOLL_UINT64] = ncclUint64,
        [SYMCOLL_FLOAT16] = ncclFloat16, [SYMCOLL_BFLOAT16] = ncclBfloat16,
        [SYMCOLL_FLOAT32] = ncclFloat32, [SYMCOLL_FLOAT64] = ncclFloat64,
    };
    return types[type];
}

static ncclRedOp_t nccl_op(symcoll_op_t op) {
    static const ncclRedOp_t ops[] = {
        [SYMCOLL_SUM] = ncclSum,
        [SYMCOLL_PROD] = ncclProd,
        [SYMCOLL_MIN] = ncclMin,
        [SYMCOLL_MAX] = ncclMax,
    };
    return ops[op];
}

bool perf_nccl_supports(const perf_call_t *c) {
    return !perf_op_reduces(c->op) || c->redop == SYMCOLL_SUM || c->redop == SYMCOLL_PROD ||
           c->redop == SYMCOLL_MIN || c->redop == SYMCOLL_MAX;
}

/* alltoallv as a NCCL user with the counts on the device runs it, all of it NCCL's time. NCCL
 * writes the received counts beside the send counts (into recv_counts of c->counts->device,
 * which each symcoll call writes anew), so that one copy brings both to the host. */
static int alltoallv(const perf_nccl_t *nc, const perf_call_t *c, const char *src, char *dst,
                     cudaStream_t stream) {
    int n = c->counts->npes;
    size_t *counts = c->counts->device, elem = symcoll_datatype_size(c->type);
    PERF_NCCL(ncclAlltoAll(counts, counts + n, 1, ncclUint64, nc->comm, stream));
    PERF_CUDA(cudaMemcpyAsync(nc->host_counts, counts, sizeof *counts * 2 * (size_t)n,
                              cudaMemcpyDeviceToHost, stream));
    PERF_CUDA(cudaStreamSynchronize(stream));
    const size_t *send = nc->host_counts, *recv = nc->host_counts + n;
    size_t send_at = 0, recv_at = 0;
    PERF_NCCL(ncclGroupStart());
    for (int p = 0; p < n; p++) {
        PERF_NCCL(ncclSend(src + send_at * elem, send[p], nccl_type(c->type), p, nc->comm, stream));
        PERF_NCCL(ncclRecv(dst + recv_at * elem, recv[p], nccl_type(c->type), p, nc->comm, stream));
        send_at += send[p];
        recv_at += recv[p];
    }
    PERF_NCCL(ncclGroupEnd());
    return 0;
}

int perf_nccl_enqueue(const perf_nccl_t *nc, const perf_call_t *c, bool symmetric,
                      cudaStream_t stream) {
    const void *src = symmetric ? nc->sym_src : nc->plain_src;
    void *dst = symmetric ? nc->sym_dst : nc->plain_dst;
    ncclDataType_t type = nccl_type(c->type);
    switch (c->op) {
    case PERF_OP_BARRIER:
        PERF_NCCL(ncclAllReduce(src, dst, 1, ncclFloat32, ncclSum, nc->comm, stream));
        break;
    case PERF_OP_BROADCAST:
        PERF_NCCL(ncclBroadcast(src, dst, c->count, type, c->root, nc->comm, stream));
        break;
    case PERF_OP_REDUCE:
        PERF_NCCL(ncclAllReduce(src, dst, c->count, type, nccl_op(c->redop), nc->comm, stream));
        break;
    case PERF_OP_FCOLLECT:
        PERF_NCCL(ncclAllGather(src, dst, c->count, type, nc->comm, stream));
        break;
    case PERF_OP_ALLTOALL:
        PERF_NCCL(ncclAlltoAll(src, dst, c->count, type, nc->comm, stream));
        break;
    case PERF_OP_REDUCE_SCATTER:
        PERF_NCCL(ncclReduceScatter(src, dst, c->count, type, nccl_op(c->redop), nc->comm, stream));
        break;
    case PERF_OP_ALLTOALLV:
        return alltoallv(nc, c, src, dst, stream);
    case PERF_NUM_OPS:
        break;
    }
    return 0;
}
