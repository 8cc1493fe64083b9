/* A program that already has an NCCL communicator starts symcoll on it: symcoll takes the
 * ranks, the job size and its peers' addresses from the communicator, which stays the
 * program's (it is still usable after symcoll_finalize, and the program destroys it). Here
 * MPI forms the communicator, as many NCCL programs do.
 *
 *   mpirun -np 2 ./init_from_nccl_comm */
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "example_mpi.h"
#include "symcoll.h"

#define CHECK_NCCL(call)                                                                           \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, ncclGetErrorString(r_));                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    int rank, size, shared;
    int device = example_mpi_start(&argc, &argv, &rank, &size, &shared);
    if (shared) {
        printf("skipped: ranks share a GPU, and NCCL refuses two ranks on one GPU, so there is "
               "no communicator to start from (init_from_mpi starts without NCCL)\n");
        MPI_Finalize();
        return EXAMPLE_SKIPPED;
    }
    CHECK_CUDA(cudaSetDevice(device));

    /* The program's own communicator. */
    ncclUniqueId id;
    if (rank == 0)
        CHECK_NCCL(ncclGetUniqueId(&id));
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    CHECK_NCCL(ncclCommInitRank(&comm, size, id, rank));

    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_NCCL_COMM;
    attr.nccl_comm = comm;
    attr.device = device;
    example_init(&attr);

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int ok =
        symcoll_my_pe() == rank && symcoll_n_pes() == size && example_gather_pe_numbers(stream);
    CHECK_SYMCOLL(symcoll_finalize());

    /* The communicator is still the program's: one NCCL all-reduce of the ranks on it. */
    int *sum, host_sum = 0;
    CHECK_CUDA(cudaMalloc((void **)&sum, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(sum, &rank, sizeof(int), cudaMemcpyHostToDevice));
    CHECK_NCCL(ncclAllReduce(sum, sum, 1, ncclInt, ncclSum, comm, stream));
    CHECK_CUDA(cudaMemcpyAsync(&host_sum, sum, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    ok = ok && host_sum == size * (size - 1) / 2;
    printf("rank %d of %d: symcoll on the NCCL communicator, then NCCL again: %s\n", rank, size,
           ok ? "correct" : "WRONG");
    CHECK_CUDA(cudaFree(sum));
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_NCCL(ncclCommDestroy(comm));
    MPI_Finalize();
    return ok ? 0 : 1;
}
