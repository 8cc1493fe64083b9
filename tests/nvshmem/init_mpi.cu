/* Initialization from MPI, as NVIDIA's multi-GPU Jacobi does it: with the communicator
 * (argument "mpi_comm") or with a unique id that rank 0 makes and MPI_Bcast sends
 * ("uniqueid"). Then a ring of p and a barrier checks that the PEs are MPI's ranks. */
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <string.h>
#include "check.h"

__global__ void ring(int *slot) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_int_p(slot, me, (me + 1) % n);
    nvshmem_barrier_all();
}

/* This host's ranks outnumber its GPUs. */
static int ranks_share_a_gpu(void) {
    MPI_Comm host;
    int locals = 0, devices = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &locals);
    MPI_Comm_free(&host);
    return cudaGetDeviceCount(&devices) == cudaSuccess && locals > devices;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    int status;
    if (argc > 1 && strcmp(argv[1], "uniqueid") == 0) {
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        if (rank == 0)
            nvshmemx_get_uniqueid(&id);
        MPI_Bcast(&id, sizeof(nvshmemx_uniqueid_t), MPI_UINT8_T, 0, MPI_COMM_WORLD);
        nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
        status = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
        if (status == SYMCOLL_ERROR_NCCL && ranks_share_a_gpu()) {
            printf("[  SKIPPED ] ranks share a GPU: the unique-id path forms an NCCL "
                   "communicator, which needs one GPU per rank (NCCL refused it)\n");
            MPI_Finalize();
            return 77;
        }
    } else {
        MPI_Comm comm = MPI_COMM_WORLD;
        attr.mpi_comm = &comm;
        status = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
    }
    exit_on_init_failure(status);
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long bad = (me != rank) + (n != size);
    int *slot = (int *)nvshmem_calloc(1, sizeof(int));
    nvshmem_barrier_all();
    ring<<<1, 1>>>(slot);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    bad += nvshmem_int_g(slot, me) != (me + n - 1) % n;
    nvshmem_barrier_all();
    nvshmem_free(slot);
    nvshmem_finalize();
    int verdict = report(argc > 1 ? argv[1] : "mpi_comm", me, bad);
    MPI_Finalize();
    return verdict;
}
