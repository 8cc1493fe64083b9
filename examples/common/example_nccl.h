/* What the halo mini-apps (jacobi, heat3d) share beyond example_check.h: checked NCCL calls,
 * an NCCL communicator over the PEs for the baselines, and a sum over the PEs on the host. */
#ifndef SYMCOLL_EXAMPLE_NCCL_H
#define SYMCOLL_EXAMPLE_NCCL_H

#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include "example_check.h"

#define CHECK_NCCL(call)                                                                           \
    do {                                                                                           \
        ncclResult_t rc_ = (call);                                                                 \
        if (rc_ != ncclSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    ncclGetErrorString(rc_));                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* value summed over every PE (collective). */
static inline int example_sum_over_pes(int value, cudaStream_t stream) {
    int *sym = (int *)example_symmetric(sizeof(int));
    CHECK_CUDA(cudaMemcpy(sym, &value, sizeof value, cudaMemcpyHostToDevice));
    CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, sym, sym, 1, SYMCOLL_INT32,
                                           SYMCOLL_SUM, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(&value, sym, sizeof value, cudaMemcpyDeviceToHost));
    symcoll_free(sym);
    return value;
}

/* Whether the NCCL baseline can run: NCCL refuses two ranks on one GPU, which the job's
 * topology marks SAME. The same answer on every PE (each holds the whole matrix); PE 0 says
 * why when it cannot. */
static inline int example_nccl_can_run(void) {
    size_t len = symcoll_topology_text(NULL, 0);
    char *text = (char *)malloc(len + 1);
    if (!text || symcoll_topology_text(text, len + 1) != len) {
        fprintf(stderr, "symcoll_topology_text: %s\n", symcoll_last_error());
        exit(1);
    }
    int shared = strstr(text, "SAME") != NULL;
    free(text);
    if (shared && symcoll_my_pe() == 0)
        printf("nccl: n/a: PEs share a GPU (NCCL refuses two ranks on one GPU)\n");
    return !shared;
}

/* An NCCL communicator over the PEs (collective): PE 0's unique id reaches the others by a
 * symcoll broadcast. */
static inline ncclComm_t example_nccl_comm(cudaStream_t stream) {
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (symcoll_my_pe() == 0)
        CHECK_NCCL(ncclGetUniqueId(&id));
    char *shared = (char *)example_symmetric(sizeof id);
    CHECK_CUDA(cudaMemcpy(shared, &id, sizeof id, cudaMemcpyHostToDevice));
    CHECK_SYMCOLL(symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, shared, shared, sizeof id,
                                              SYMCOLL_UINT8, 0, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(&id, shared, sizeof id, cudaMemcpyDeviceToHost));
    symcoll_free(shared);
    ncclComm_t comm;
    CHECK_NCCL(ncclCommInitRank(&comm, symcoll_n_pes(), id, symcoll_my_pe()));
    return comm;
}

#endif
