/* NCCL bootstrap: a non-blocking NCCL communicator carries the init-time exchanges, so that
 * a missing peer is noticed by a timeout and the communicator aborted instead of hanging. */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bootstrap.h"
#include "internal.h"

typedef struct {
    ncclComm_t comm;
    cudaStream_t stream;
    char *device_buffer;
    size_t device_bytes;
    uint64_t timeout_ms;
} nccl_impl_t;

static void pause_briefly(void) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}

static symcoll_status_t nccl_status(ncclResult_t rc, const char *what) {
    if (rc == ncclSuccess || rc == ncclInProgress)
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_NCCL, "NCCL bootstrap: %s: %s", what,
                             ncclGetErrorString(rc));
}

/* Waits until the communicator has no operation in progress; aborts it on timeout. */
static symcoll_status_t wait_comm(ncclComm_t comm, uint64_t timeout_ms, const char *what) {
    uint64_t start = symcoll_bootstrap_now_ms();
    for (;;) {
        ncclResult_t state;
        ncclResult_t rc = ncclCommGetAsyncError(comm, &state);
        if (rc != ncclSuccess)
            return nccl_status(rc, "ncclCommGetAsyncError");
        if (state == ncclSuccess)
            return SYMCOLL_SUCCESS;
        if (state == ncclInvalidUsage)
            return symcoll_set_error(
                SYMCOLL_ERROR_NCCL,
                "NCCL bootstrap: %s: %s; NCCL refuses two ranks on one GPU, "
                "so if PEs share a GPU, launch through symcoll-run, mpirun with PMIx "
                "(SYMCOLL_BOOTSTRAP=pmix), or the program's own exchange "
                "(attr.bootstrap = SYMCOLL_BOOTSTRAP_CALLBACKS)",
                what, ncclGetErrorString(state));
        if (state != ncclInProgress)
            return symcoll_set_error(SYMCOLL_ERROR_NCCL, "NCCL bootstrap: %s: %s", what,
                                     ncclGetErrorString(state));
        if (timeout_ms && symcoll_bootstrap_now_ms() - start > timeout_ms)
            return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "NCCL bootstrap: %s did not finish within %llu ms "
                                     "(SYMCOLL_INIT_TIMEOUT_MS): a PE is missing?",
                                     what, (unsigned long long)timeout_ms);
        pause_briefly();
    }
}

static symcoll_status_t wait_stream(nccl_impl_t *p, const char *what) {
    symcoll_status_t st = wait_comm(p->comm, p->timeout_ms, what);
    uint64_t start = symcoll_bootstrap_now_ms();
    while (st == SYMCOLL_SUCCESS) {
        cudaError_t err = cudaStreamQuery(p->stream);
        if (err == cudaSuccess)
            return SYMCOLL_SUCCESS;
        if (err != cudaErrorNotReady)
            return symcoll_cuda_status(err, "NCCL bootstrap", what);
        ncclResult_t state;
        if (ncclCommGetAsyncError(p->comm, &state) != ncclSuccess ||
            (state != ncclSuccess && state != ncclInProgress))
            return symcoll_set_error(SYMCOLL_ERROR_NCCL, "NCCL bootstrap: %s failed", what);
        if (p->timeout_ms && symcoll_bootstrap_now_ms() - start > p->timeout_ms)
            return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "NCCL bootstrap: %s did not finish within %llu ms "
                                     "(SYMCOLL_INIT_TIMEOUT_MS): a PE is missing?",
                                     what, (unsigned long long)p->timeout_ms);
        pause_briefly();
    }
    return st;
}

static symcoll_status_t ensure_buffer(nccl_impl_t *p, size_t bytes) {
    if (bytes <= p->device_bytes)
        return SYMCOLL_SUCCESS;
    if (p->device_buffer)
        cudaFree(p->device_buffer);
    p->device_buffer = NULL;
    p->device_bytes = 0;
    cudaError_t err = cudaMalloc((void **)&p->device_buffer, bytes);
    if (err != cudaSuccess)
        return symcoll_cuda_status(err, "NCCL bootstrap", "cudaMalloc of the exchange buffer");
    p->device_bytes = bytes;
    return SYMCOLL_SUCCESS;
}

/* After a failed exchange NCCL's kernel may wait forever for a missing PE, and everything that
 * synchronizes the device with it: aborting the communicator ends that kernel. */
static void abort_comm(nccl_impl_t *p) {
    ncclCommAbort(p->comm);
    p->comm = NULL;
}

static symcoll_status_t nccl_allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                       size_t bytes) {
    nccl_impl_t *p = b->impl;
    if (!p->comm)
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "NCCL bootstrap: the communicator was aborted after an earlier "
                                 "failure (a PE missing?)");
    size_t total = bytes * (size_t)b->size;
    symcoll_status_t st = ensure_buffer(p, total + bytes);
    if (st != SYMCOLL_SUCCESS)
        return st;
    char *send = p->device_buffer + total;
    cudaError_t err = cudaMemcpyAsync(send, mine, bytes, cudaMemcpyHostToDevice, p->stream);
    if (err != cudaSuccess)
        return symcoll_cuda_status(err, "NCCL bootstrap", "cudaMemcpyAsync");
    st = nccl_status(ncclAllGather(send, p->device_buffer, bytes, ncclChar, p->comm, p->stream),
                     "ncclAllGather");
    if (st == SYMCOLL_SUCCESS)
        st = wait_stream(p, "allgather");
    /* On the exchange's own stream, once it is idle: a copy to pageable memory blocks the host,
     * and the legacy stream would also wait for the application's streams. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(
            cudaMemcpyAsync(all, p->device_buffer, total, cudaMemcpyDeviceToHost, p->stream),
            "NCCL bootstrap", "cudaMemcpyAsync");
    if (st == SYMCOLL_SUCCESS)
        st = wait_stream(p, "copying the allgather's result");
    if (st != SYMCOLL_SUCCESS)
        abort_comm(p);
    return st;
}

static symcoll_status_t nccl_barrier(symcoll_bootstrap_t *b) {
    char mine = 0;
    char *all = malloc((size_t)b->size);
    if (!all)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "NCCL bootstrap: out of memory");
    symcoll_status_t st = nccl_allgather(b, &mine, all, 1);
    free(all);
    return st;
}

static void nccl_destroy(symcoll_bootstrap_t *b, int abort) {
    nccl_impl_t *p = b->impl;
    if (p->comm && abort) {
        abort_comm(p);
    } else if (p->comm) {
        if (ncclCommFinalize(p->comm) == ncclSuccess &&
            wait_comm(p->comm, p->timeout_ms, "ncclCommFinalize") == SYMCOLL_SUCCESS)
            ncclCommDestroy(p->comm);
        else
            ncclCommAbort(p->comm);
    }
    if (p->device_buffer)
        cudaFree(p->device_buffer);
    cudaStreamDestroy(p->stream);
    free(p);
    free(b);
}

/* torchrun: NCCL's root listens on NCCL_COMM_ID, set only while the communicator forms. */
static symcoll_status_t make_comm(const symcoll_launch_t *launch, ncclConfig_t *config,
                                  uint64_t timeout_ms, ncclComm_t *comm) {
    if (launch->nccl_comm) {
        symcoll_status_t st =
            nccl_status(ncclCommSplit((ncclComm_t)launch->nccl_comm, 0, launch->rank, comm, config),
                        "ncclCommSplit of the application's communicator");
        return st != SYMCOLL_SUCCESS ? st : wait_comm(*comm, timeout_ms, "ncclCommSplit");
    }
    ncclUniqueId id;
    memcpy(&id, launch->uniqueid.internal, sizeof id);
    symcoll_status_t st =
        nccl_status(ncclCommInitRankConfig(comm, launch->size, id, launch->rank, config),
                    "ncclCommInitRankConfig");
    return st != SYMCOLL_SUCCESS ? st : wait_comm(*comm, timeout_ms, "ncclCommInitRankConfig");
}

symcoll_status_t symcoll_bootstrap_nccl_create(const symcoll_launch_t *launch, uint64_t timeout_ms,
                                               symcoll_bootstrap_t **out) {
    *out = NULL;
    nccl_impl_t *p = calloc(1, sizeof *p);
    symcoll_bootstrap_t *b = calloc(1, sizeof *b);
    if (!p || !b) {
        free(p);
        free(b);
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "NCCL bootstrap: out of memory");
    }
    p->timeout_ms = timeout_ms;
    cudaError_t err = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        free(p);
        free(b);
        return symcoll_cuda_status(err, "NCCL bootstrap", "cudaStreamCreate");
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    int rank = launch->rank, size = launch->size;
    symcoll_status_t st = make_comm(launch, &config, timeout_ms, &p->comm);
    if (st == SYMCOLL_SUCCESS)
        st = nccl_status(ncclCommUserRank(p->comm, &rank), "ncclCommUserRank");
    if (st == SYMCOLL_SUCCESS)
        st = nccl_status(ncclCommCount(p->comm, &size), "ncclCommCount");
    if (st != SYMCOLL_SUCCESS) {
        if (p->comm)
            ncclCommAbort(p->comm);
        cudaStreamDestroy(p->stream);
        free(p);
        free(b);
        return st;
    }
    b->name = "nccl";
    b->rank = rank;
    b->size = size;
    b->local_rank = launch->local_rank;
    b->local_size = launch->local_size;
    b->allgather = nccl_allgather;
    b->barrier = nccl_barrier;
    b->destroy = nccl_destroy;
    b->impl = p;
    *out = b;
    return SYMCOLL_SUCCESS;
}

void symcoll_uniqueid_to_hex(const symcoll_uniqueid_t *id, char hex[257]) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof id->internal; i++) {
        unsigned char c = (unsigned char)id->internal[i];
        hex[2 * i] = digits[c >> 4];
        hex[2 * i + 1] = digits[c & 15];
    }
    hex[256] = '\0';
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int symcoll_uniqueid_from_hex(const char *hex, symcoll_uniqueid_t *id) {
    if (!hex || strlen(hex) != 2 * sizeof id->internal)
        return -1;
    for (size_t i = 0; i < sizeof id->internal; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        id->internal[i] = (char)(hi << 4 | lo);
    }
    return 0;
}

symcoll_status_t symcoll_get_uniqueid(symcoll_uniqueid_t *id) {
    if (!id)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_get_uniqueid: id is NULL");
    ncclUniqueId nccl_id;
    symcoll_status_t st = nccl_status(ncclGetUniqueId(&nccl_id), "ncclGetUniqueId");
    if (st == SYMCOLL_SUCCESS)
        memcpy(id->internal, &nccl_id, sizeof id->internal);
    return st;
}
