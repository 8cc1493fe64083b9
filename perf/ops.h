/* The collectives symcoll-perf measures: names, sizes as nccl-tests counts them, bandwidth. */
#ifndef SYMCOLL_PERF_OPS_H
#define SYMCOLL_PERF_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include "alltoallv_counts.h"
#include "coll_algorithms.h"
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PERF_OP_<ID> for each collective of the registry (kernels/collectives.def), in its order. */
#define PERF_OP_ENUM(id, name, nccl, tuned, flow, algorithms) PERF_OP_##id,
typedef enum { SYMCOLL_COLLECTIVES(PERF_OP_ENUM) PERF_NUM_OPS } perf_op_t;
#undef PERF_OP_ENUM

typedef struct {
    const char *name;                 /* as on the command line and in the CSV */
    symcoll_collective_t collective;  /* for the tuning query */
    const char *nccl_name;            /* NCCL's name of it, "" where NCCL has none */
    const char *algo_env;             /* SYMCOLL_ALGO_<COLLECTIVE>, which forces an algorithm */
    const char *const *algorithms;    /* the names it takes, NULL-terminated, registry order */
    double (*busbw_factor)(int npes); /* NULL: the operation moves no data */
} perf_op_info_t;

/* One call as every PE issues it: count is the element count of the API call (count per PE
 * for fcollect and alltoall; for alltoallv what each PE sends to each PE on average, the
 * matrix of counts says how much exactly); root is a team PE (broadcast only). */
typedef struct {
    perf_op_t op;
    symcoll_datatype_t type;
    symcoll_op_t redop;
    int root;
    size_t count;
    const perf_counts_t *counts; /* alltoallv: its counts, drawn for count; NULL otherwise */
} perf_call_t;

const perf_op_info_t *perf_op_info(perf_op_t op);
/* The op named name (or NCCL's name of it: "allreduce" is reduce, "allgather" fcollect), or
 * -1. */
int perf_op_from_name(const char *name);
/* The datatype named name (symcoll names such as "float32", or the nccl-tests names "half",
 * "float", "double", "int"), or -1. */
int perf_datatype_from_name(const char *name);
/* The reduction op named name ("sum", "prod", ...), or -1. */
int perf_redop_from_name(const char *name);
/* Whether op reduces (reduce, reduce_scatter): it takes -o/--redop. */
bool perf_op_reduces(perf_op_t op);
/* Whether NCCL's counterpart of op waits on the host (alltoallv: NCCL needs the counts on the
 * host before it can post its sends and receives), which a CUDA graph cannot capture. */
bool perf_op_nccl_syncs_host(perf_op_t op);
/* False for bitwise ops on floating-point types. */
bool perf_redop_valid(symcoll_datatype_t type, symcoll_op_t redop);

/* The count of the API call for a requested size (rounded down, as nccl-tests does); 0 when
 * the size holds less than one element (per PE, for fcollect and alltoall). */
size_t perf_op_count(perf_op_t op, size_t bytes, size_t elem_size, int npes);
/* Bytes in the nccl-tests convention: broadcast and reduce count * size; fcollect, alltoall
 * and alltoallv the whole destination (alltoallv's with uniform counts; every PE sends that
 * much with any skew), reduce_scatter the whole source, count * size * npes. */
size_t perf_op_bytes(perf_op_t op, size_t count, size_t elem_size, int npes);
/* Bytes of each PE's source and destination buffer for a call. */
size_t perf_op_src_bytes(perf_op_t op, size_t count, size_t elem_size, int npes);
size_t perf_op_dst_bytes(perf_op_t op, size_t count, size_t elem_size, int npes);
/* Bytes of dst that call c uses on each PE: perf_op_dst_bytes, but alltoallv's capacity,
 * which its counts set. */
size_t perf_call_dst_bytes(const perf_call_t *c, int npes);

/* The collectives that --op dev_<name> times inside kernels (symcoll_device_coll.cuh), as an
 * X-macro: X(ID, name), ID that of the registry (PERF_OP_<ID>), in the order of their rows. */
#define PERF_DEV_COLLS(X)                                                                          \
    X(REDUCE, reduce) X(BROADCAST, broadcast) X(FCOLLECT, fcollect) X(ALLTOALL, alltoall)
#define PERF_DEV_COLL_ENUM(id, name) PERF_DEV_COLL_##id,
typedef enum { PERF_DEV_COLLS(PERF_DEV_COLL_ENUM) PERF_DEV_NUM_COLLS } perf_dev_coll_t;
#undef PERF_DEV_COLL_ENUM

/* The op of the host API that c calls inside a kernel: its sizes, bus bandwidth, check and
 * host-launched counterpart. */
perf_op_t perf_dev_coll_op(perf_dev_coll_t c);
/* "dev_reduce", "dev_broadcast", ...: its name on the command line and in the output. */
const char *perf_dev_coll_name(perf_dev_coll_t c);
/* The in-kernel collective named name ("dev_reduce", ...), or -1. */
int perf_dev_coll_from_name(const char *name);

/* Algorithm bandwidth in GB/s (1e9 bytes per second) of bytes moved in time_us. */
double perf_algbw_gbps(size_t bytes, double time_us);

#ifdef __cplusplus
}
#endif
#endif
