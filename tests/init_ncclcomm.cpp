// Launch path "application's NCCL communicator": the program forms its own ncclComm_t (id
// through a file, device = local rank), inits symcoll on it, and after symcoll_finalize the
// communicator is still the application's to use and destroy.
// Usage: init_ncclcomm FILE_PREFIX (under symcoll-run)
#include <cstdio>
#include <cuda_runtime.h>
#include <nccl.h>
#include "init_check.h"

namespace {

bool nccl_ok(ncclResult_t r, const char *what) {
    if (r != ncclSuccess)
        std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(r));
    return r == ncclSuccess;
}

bool cuda_ok(cudaError_t err, const char *what) {
    if (err != cudaSuccess)
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    return err == cudaSuccess;
}

// One all-reduce of every rank's rank + 1 on the application's communicator.
bool comm_still_works(ncclComm_t comm, int size) {
    int *value = nullptr, got = 0, rank = -1;
    bool ok = nccl_ok(ncclCommUserRank(comm, &rank), "ncclCommUserRank") &&
              cuda_ok(cudaMalloc(&value, sizeof *value), "cudaMalloc");
    int mine = rank + 1;
    ok = ok && cuda_ok(cudaMemcpy(value, &mine, sizeof mine, cudaMemcpyHostToDevice), "cudaMemcpy");
    ok = ok && nccl_ok(ncclAllReduce(value, value, 1, ncclInt, ncclSum, comm, 0), "ncclAllReduce");
    ok = ok && cuda_ok(cudaMemcpy(&got, value, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(value);
    if (ok && got != size * (size + 1) / 2) {
        std::fprintf(stderr, "rank %d: all-reduce after symcoll_finalize gave %d, want %d\n", rank,
                     got, size * (size + 1) / 2);
        ok = false;
    }
    return ok;
}

} // namespace

int main(int argc, char **argv) {
    int rank = -1, size = -1;
    int code = init_start_under_launcher(argc, argv, &rank, &size);
    if (code != kContinue)
        return code;
    int local = init_env_int("SYMCOLL_LOCAL_RANK", rank), devices = 0;
    if (!cuda_ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount") ||
        !cuda_ok(cudaSetDevice(local % devices), "cudaSetDevice"))
        return 1;
    ncclUniqueId id;
    if (rank == 0 && !nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId"))
        return 1;
    if (!init_share_through_file(argv[1], rank, &id, sizeof id))
        return 1;
    ncclComm_t comm;
    bool formed = nccl_ok(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    init_remove_shared_file(argv[1], rank);
    if (!formed)
        return 1;
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_NCCL_COMM;
    attr.nccl_comm = comm;
    symcoll_status_t st = symcoll_init(&attr);
    if (st != SYMCOLL_SUCCESS) {
        ncclCommAbort(comm);
        return init_failed(st);
    }
    int rc = init_check_heap_and_finalize(rank, size);
    if (!comm_still_works(comm, size))
        rc = 1;
    if (!nccl_ok(ncclCommDestroy(comm), "ncclCommDestroy"))
        rc = 1;
    return rc;
}
