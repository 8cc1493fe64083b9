/* An MPI program starts symcoll itself over MPI: symcoll's exchanges (at init, malloc, free
 * and finalize) go through the program's own MPI_Allgather and MPI_Barrier, on a duplicate of
 * its communicator, as a program-provided bootstrap. No NCCL is involved, so ranks may share a
 * GPU (under MPS). The PEs are the MPI ranks, in the same order.
 *
 *   mpirun -np 2 ./init_from_mpi */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "example_mpi.h"
#include "symcoll.h"

static int mpi_allgather(const void *mine, void *all, size_t bytes, void *context) {
    if (bytes > INT_MAX)
        return 1;
    return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                         *(MPI_Comm *)context) != MPI_SUCCESS;
}

static int mpi_barrier(void *context) {
    return MPI_Barrier(*(MPI_Comm *)context) != MPI_SUCCESS;
}

int main(int argc, char **argv) {
    int rank, size, shared;
    int device = example_mpi_start(&argc, &argv, &rank, &size, &shared);
    /* Its own communicator: symcoll's exchanges never match the program's collectives. */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_CALLBACKS;
    attr.rank = rank;
    attr.size = size;
    attr.device = device;
    attr.callbacks.allgather = mpi_allgather;
    attr.callbacks.barrier = mpi_barrier;
    attr.callbacks.context = &comm;
    example_init(&attr);

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int ok =
        symcoll_my_pe() == rank && symcoll_n_pes() == size && example_gather_pe_numbers(stream);
    printf("MPI rank %d of %d: symcoll PE %d of %d: %s\n", rank, size, symcoll_my_pe(),
           symcoll_n_pes(), ok ? "correct" : "WRONG");
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_SYMCOLL(symcoll_finalize());
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return ok ? 0 : 1;
}
