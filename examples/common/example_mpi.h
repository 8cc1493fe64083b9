/* The start of the MPI examples: MPI_Init, this rank, the job size and the GPU this rank
 * uses (its rank among the ranks of its host, several to a GPU where they outnumber the
 * GPUs); ends the program with 77 without a GPU. */
#ifndef SYMCOLL_EXAMPLE_MPI_H
#define SYMCOLL_EXAMPLE_MPI_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "example_check.h"

/* *shared: 1 when this host's ranks outnumber its GPUs, so that some share one. */
static inline int example_mpi_start(int *argc, char ***argv, int *rank, int *size, int *shared) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        printf("%s: skipped: no GPU (cudaGetDeviceCount: %s)\n", example_program(),
               err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        MPI_Finalize();
        exit(EXAMPLE_SKIPPED);
    }
    MPI_Comm host;
    int local, locals;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local);
    MPI_Comm_size(host, &locals);
    *shared = locals > devices;
    MPI_Comm_free(&host);
    return local % devices;
}

#endif
