/* An MPI program starts symcoll itself: rank 0 creates a unique id, MPI_Bcast hands it to
 * every rank, and each rank passes it with its rank and the job size to symcoll_init. The
 * PEs are then the MPI ranks, in the same order.
 *
 *   mpirun -np 2 ./init_from_mpi */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "example_check.h"
#include "example_mpi.h"
#include "symcoll.h"

int main(int argc, char **argv) {
    int rank, size;
    int device = example_mpi_start(&argc, &argv, &rank, &size);

    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_UNIQUEID;
    attr.rank = rank;
    attr.size = size;
    attr.device = device;
    /* The status travels with the id, so that every rank stops if rank 0 could not make one. */
    struct {
        int status;
        symcoll_uniqueid_t id;
    } start;
    memset(&start, 0, sizeof start);
    if (rank == 0)
        start.status = symcoll_get_uniqueid(&start.id);
    MPI_Bcast(&start, (int)sizeof start, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (start.status != SYMCOLL_SUCCESS) {
        fprintf(stderr, "rank %d: symcoll_get_uniqueid failed on rank 0: %s\n", rank,
                symcoll_status_string((symcoll_status_t)start.status));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    attr.uniqueid = start.id;
    example_init(&attr);

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int ok =
        symcoll_my_pe() == rank && symcoll_n_pes() == size && example_gather_pe_numbers(stream);
    printf("MPI rank %d of %d: symcoll PE %d of %d: %s\n", rank, size, symcoll_my_pe(),
           symcoll_n_pes(), ok ? "correct" : "WRONG");
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_SYMCOLL(symcoll_finalize());
    MPI_Finalize();
    return ok ? 0 : 1;
}
