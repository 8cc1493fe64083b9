/* First threshold table (2 x H200 NVLink estimates; PCIe guesses until swept) and the cost
 * model terms. Replace the rows with symcoll-perf sweeps; the order of rows matters. */
#include <stdbool.h>
#include <stdint.h>
#include "coll_algorithms.h"
#include "tuning_table.h"

#define KIB ((size_t)1024)
#define MIB (KIB * 1024)

/* Each collective's cost-model terms, from the registry (kernels/collectives.def). */
#define ALGORITHM_MODEL(coll, id, name, grid, syncs, efficiency, traffic)                          \
    {syncs, efficiency, TUNING_TRAFFIC_##traffic},
#define MODEL_LIST(id, name, nccl, tuned, flow, algorithms)                                        \
    static const tuning_algo_model_t name##_models[] = {algorithms(ALGORITHM_MODEL)};
SYMCOLL_COLLECTIVES(MODEL_LIST)

#define MODEL_SET(id, name, nccl, tuned, flow, algorithms) [SYMCOLL_COLL_##id] = name##_models,
static const tuning_algo_model_t *const algo_models[] = {SYMCOLL_COLLECTIVES(MODEL_SET)};

tuning_algo_set_t symcoll_tuning_algo_set(symcoll_collective_t collective) {
    bool known =
        (int)collective >= 0 && (size_t)collective < sizeof algo_models / sizeof algo_models[0];
    return (tuning_algo_set_t){symcoll_collective_algorithms(collective),
                               known ? algo_models[collective] : NULL};
}

const symcoll_tuning_row_t symcoll_tuning_rows[] = {
    /* 2 PEs over NVLink: from symcoll-perf sweeps of every algorithm in graph mode on
     * 2 x H200 (perf/NOTES.md, v0.3), grids from symcoll-perf --tune (v0.6). */
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 2, 256 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 2, 2 * MIB, "push", 128, 128},
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 2, 4 * MIB, "push", 128, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 2, 16 * MIB, "pull", 128, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 2, SIZE_MAX, "ce", 1, 32},
    /* --tune: two_shot from 256 KiB, 32 blocks up to 2 MiB, 256 threads up to 16 MiB. */
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 2, 128 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 2, 2 * MIB, "two_shot", 32, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 2, 16 * MIB, "two_shot", 128, 256},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 2, SIZE_MAX, "two_shot", 128, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_NVLINK, 2, 512 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_NVLINK, 2, SIZE_MAX, "push", 128, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_NVLINK, 2, 512 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_NVLINK, 2, SIZE_MAX, "push", 128, 512},
    /* alltoallv: alltoall's thresholds, by dst's capacity (the most it can receive). */
    {SYMCOLL_COLL_ALLTOALLV, TOPO_NVLINK, 2, 512 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALLV, TOPO_NVLINK, 2, SIZE_MAX, "push", 128, 512},
    /* reduce_scatter: estimates from fcollect's thresholds (the same traffic) until swept. */
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_NVLINK, 2, 512 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_NVLINK, 2, SIZE_MAX, "one_shot", 128, 512},
    /* Up to 8 PEs over NVLink: estimates until swept on 4 and 8 GPUs. */
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 8, 64 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_NVLINK, 8, SIZE_MAX, "pull", 128, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 8, 256 * KIB, "one_shot", 128, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_NVLINK, 8, SIZE_MAX, "two_shot", 128, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_NVLINK, 8, 64 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_NVLINK, 8, SIZE_MAX, "push", 128, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_NVLINK, 8, 64 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_NVLINK, 8, SIZE_MAX, "push", 128, 512},
    {SYMCOLL_COLL_ALLTOALLV, TOPO_NVLINK, 8, 64 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALLV, TOPO_NVLINK, 8, SIZE_MAX, "push", 128, 512},
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_NVLINK, 8, 64 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_NVLINK, 8, SIZE_MAX, "one_shot", 128, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_BROADCAST, TOPO_PCIE_P2P, 8, SIZE_MAX, "pull", 32, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE, TOPO_PCIE_P2P, 8, SIZE_MAX, "two_shot", 32, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_FCOLLECT, TOPO_PCIE_P2P, 8, SIZE_MAX, "push", 32, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALL, TOPO_PCIE_P2P, 8, SIZE_MAX, "push", 32, 512},
    {SYMCOLL_COLL_ALLTOALLV, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_ALLTOALLV, TOPO_PCIE_P2P, 8, SIZE_MAX, "push", 32, 512},
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_PCIE_P2P, 8, 16 * KIB, "ll", 16, 512},
    {SYMCOLL_COLL_REDUCE_SCATTER, TOPO_PCIE_P2P, 8, SIZE_MAX, "one_shot", 32, 512},
};
const size_t symcoll_tuning_n_rows = sizeof symcoll_tuning_rows / sizeof symcoll_tuning_rows[0];

static const tuning_link_model_t link_models[] = {
    [TOPO_SAME_GPU] = {1.0, 1500.0, 1500.0},
    [TOPO_NVLINK] = {1.6, 360.0, 1500.0},
    [TOPO_PCIE_P2P] = {4.0, 20.0, 1500.0},
    [TOPO_NO_P2P] = {10.0, 10.0, 1500.0},
};

const tuning_link_model_t *symcoll_tuning_link_model(topo_class_t topo) {
    if ((int)topo < 0 || (size_t)topo >= sizeof link_models / sizeof link_models[0])
        topo = TOPO_NO_P2P;
    return &link_models[topo];
}
