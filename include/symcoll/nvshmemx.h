/* The nvshmemx_ extensions of symcoll's NVSHMEM header (see nvshmem.h): init attributes (an
 * MPI communicator, a unique id), stream-ordered RMA and collectives, warp- and block-scope
 * device RMA, barriers and team collectives. Header-only, built on symcoll's public API.
 */
#ifndef SYMCOLL_NVSHMEMX_H
#define SYMCOLL_NVSHMEMX_H

#include "nvshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- init with attributes ---- */

/* An NVSHMEM unique id carries symcoll's (an NCCL unique id). */
typedef struct {
    symcoll_uniqueid_t id;
} nvshmemx_uniqueid_t;
#define NVSHMEMX_UNIQUEID_INITIALIZER                                                              \
    {                                                                                              \
        {                                                                                          \
            { 0 }                                                                                  \
        }                                                                                          \
    }

typedef struct {
    int myrank;
    int nranks;
    nvshmemx_uniqueid_t *id;
} nvshmemx_uniqueid_args_t;

typedef struct {
    nvshmemx_uniqueid_args_t uid_args;
} nvshmemx_init_args_t;

typedef struct {
    int version;
    void *mpi_comm; /* NVSHMEMX_INIT_WITH_MPI_COMM: points to an MPI_Comm */
    nvshmemx_init_args_t args;
} nvshmemx_init_attr_t;
#define NVSHMEMX_INIT_ATTR_INITIALIZER                                                             \
    {                                                                                              \
        0, NULL, {                                                                                 \
            { 0, 0, NULL }                                                                         \
        }                                                                                          \
    }

#define NVSHMEMX_INIT_THREAD_PES (1 << 0)
#define NVSHMEMI_INIT_WITH_MPI_COMM (1 << 1)
#define NVSHMEMX_INIT_WITH_UNIQUEID (1 << 3)
#define NVSHMEMX_INIT_WITH_SHMEM                                                                   \
    NVSHMEMI_REFUSE_CALL(NVSHMEMX_INIT_WITH_SHMEM, "there is no OpenSHMEM bootstrap: use "         \
                                                   "nvshmem_init, MPI or a unique id")
#ifdef MPI_VERSION
#define NVSHMEMX_INIT_WITH_MPI_COMM NVSHMEMI_INIT_WITH_MPI_COMM
#else
#define NVSHMEMX_INIT_WITH_MPI_COMM                                                                \
    NVSHMEMI_REFUSE_CALL(NVSHMEMX_INIT_WITH_MPI_COMM, "include <mpi.h> before <nvshmem.h>")
#endif

static inline int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id) {
    if (!id) {
        fprintf(stderr, "nvshmemx_get_uniqueid: id is NULL\n");
        return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
    }
    return nvshmemi_report(symcoll_get_uniqueid(&id->id), "nvshmemx_get_uniqueid");
}

static inline int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                                  const nvshmemx_uniqueid_t *id,
                                                  nvshmemx_init_attr_t *attr) {
    if (!id || !attr) {
        fprintf(stderr, "nvshmemx_set_attr_uniqueid_args: %s is NULL\n", id ? "attr" : "id");
        return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
    }
    attr->args.uid_args.myrank = myrank;
    attr->args.uid_args.nranks = nranks;
    attr->args.uid_args.id = (nvshmemx_uniqueid_t *)id;
    return 0;
}

#ifdef MPI_VERSION
/* symcoll exchanges over a duplicate of the program's communicator (its own context, so that
 * its collectives never match the program's), through the program-provided bootstrap: no NCCL
 * and no PMIx, so PEs may share a GPU. symcoll exchanges at malloc, free and finalize too, so
 * the duplicate lives on after init: until a failed init, the next init from MPI after a
 * finalize, or MPI_Finalize. */
static MPI_Comm nvshmemi_mpi_comm = MPI_COMM_NULL;

static inline int nvshmemi_mpi_allgather(const void *mine, void *all, size_t bytes, void *context) {
    if (bytes > (size_t)INT_MAX)
        return 1;
    return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                         *(MPI_Comm *)context) != MPI_SUCCESS;
}

static inline int nvshmemi_mpi_barrier(void *context) {
    return MPI_Barrier(*(MPI_Comm *)context) != MPI_SUCCESS;
}

static inline int nvshmemi_bootstrap_from_mpi(symcoll_init_attr_t *a, const void *mpi_comm) {
    MPI_Comm comm = mpi_comm ? *(const MPI_Comm *)mpi_comm : MPI_COMM_WORLD;
    if (nvshmemi_mpi_comm != MPI_COMM_NULL) /* an instance finalized before */
        MPI_Comm_free(&nvshmemi_mpi_comm);
    if (MPI_Comm_dup(comm, &nvshmemi_mpi_comm) != MPI_SUCCESS ||
        MPI_Comm_rank(nvshmemi_mpi_comm, &a->rank) != MPI_SUCCESS ||
        MPI_Comm_size(nvshmemi_mpi_comm, &a->size) != MPI_SUCCESS) {
        fprintf(stderr, "nvshmemx_init_attr: MPI_Comm_dup, MPI_Comm_rank or MPI_Comm_size of the "
                        "communicator failed\n");
        return (int)SYMCOLL_ERROR_BOOTSTRAP;
    }
    a->bootstrap = SYMCOLL_BOOTSTRAP_CALLBACKS;
    a->callbacks.allgather = nvshmemi_mpi_allgather;
    a->callbacks.barrier = nvshmemi_mpi_barrier;
    a->callbacks.context = &nvshmemi_mpi_comm;
    return 0;
}
#endif

/* Returns 0 on success, else symcoll's status (the reason on stderr). */
static inline int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
    symcoll_init_attr_t a;
    symcoll_init_attr_default(&a);
    if ((flags & (NVSHMEMI_INIT_WITH_MPI_COMM | NVSHMEMX_INIT_WITH_UNIQUEID)) && !attr) {
        fprintf(stderr, "nvshmemx_init_attr: attr is NULL\n");
        return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
    }
    if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
        const nvshmemx_uniqueid_args_t *u = &attr->args.uid_args;
        if (!u->id) {
            fprintf(stderr, "nvshmemx_init_attr: no unique id: call "
                            "nvshmemx_set_attr_uniqueid_args first\n");
            return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
        }
        a.bootstrap = SYMCOLL_BOOTSTRAP_UNIQUEID;
        a.uniqueid = u->id->id;
        a.rank = u->myrank;
        a.size = u->nranks;
    } else if (flags & NVSHMEMI_INIT_WITH_MPI_COMM) {
#ifdef MPI_VERSION
        /* A running instance keeps its communicator: symcoll refuses the second init. */
        if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED)
            return nvshmemi_init(&a, "nvshmemx_init_attr");
        int status = nvshmemi_bootstrap_from_mpi(&a, attr->mpi_comm);
        if (status == 0)
            status = nvshmemi_init(&a, "nvshmemx_init_attr");
        if (status != 0 && nvshmemi_mpi_comm != MPI_COMM_NULL)
            MPI_Comm_free(&nvshmemi_mpi_comm);
        return status;
#else
        fprintf(stderr, "nvshmemx_init_attr: include <mpi.h> before <nvshmem.h> to initialize "
                        "from an MPI communicator\n");
        return (int)SYMCOLL_ERROR_UNSUPPORTED;
#endif
    }
    return nvshmemi_init(&a, "nvshmemx_init_attr");
}

/* ---- stream-ordered RMA ---- */

static inline void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                             cudaStream_t stream) {
    nvshmemi_report(symcoll_put_on_stream(dest, source, nelems, pe, stream),
                    "nvshmemx_putmem_on_stream");
}
static inline void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                             cudaStream_t stream) {
    nvshmemi_report(symcoll_get_on_stream(dest, source, nelems, pe, stream),
                    "nvshmemx_getmem_on_stream");
}
static inline void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                                    uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                    int pe, cudaStream_t stream) {
    nvshmemi_report(symcoll_put_signal_on_stream(dest, source, nelems, sig_addr, signal,
                                                 (symcoll_signal_op_t)sig_op, pe, stream),
                    "nvshmemx_putmem_signal_on_stream");
}
/* A signal update alone: symcoll's put with signal, of no bytes. */
static inline void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                int pe, cudaStream_t stream) {
    nvshmemi_report(symcoll_put_signal_on_stream(NULL, NULL, 0, sig_addr, signal,
                                                 (symcoll_signal_op_t)sig_op, pe, stream),
                    "nvshmemx_signal_op_on_stream");
}
static inline void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp,
                                                        uint64_t cmp_value, cudaStream_t stream) {
    nvshmemi_report(
        symcoll_signal_wait_until_on_stream(sig_addr, (symcoll_cmp_t)cmp, cmp_value, stream),
        "nvshmemx_signal_wait_until_on_stream");
}
/* Stream-ordered puts complete in stream order, and kernels' stores are visible once the
 * kernel ends; what stream must still wait for is the host _nbi puts, which run on the
 * calling thread's default stream. Each thread records one event there per compilation unit
 * (created on first use, kept for the thread's life: a captured graph refers to it). In a
 * capture of stream, the wait becomes an external event node: a replay waits for the puts
 * issued before the latest quiet call of this thread and unit, not for puts issued later
 * (call the quiet again, outside the capture, before the replay). While the calling thread's
 * default stream is itself being captured and stream is not, its puts are graph work that
 * stream cannot wait for: the call says so on stderr and does nothing. */
static inline void nvshmemx_quiet_on_stream(cudaStream_t stream) {
    static NVSHMEMI_THREAD_LOCAL cudaEvent_t nbi_done;
    const char *fn = "nvshmemx_quiet_on_stream";
    if (stream == cudaStreamPerThread)
        return;
    enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone, puts = capturing;
    if (nvshmemi_report_cuda(cudaStreamIsCapturing(stream, &capturing), fn) ||
        nvshmemi_report_cuda(cudaStreamIsCapturing(cudaStreamPerThread, &puts), fn))
        return;
    if (puts == cudaStreamCaptureStatusActive && capturing != cudaStreamCaptureStatusActive) {
        fprintf(stderr,
                "%s: the calling thread's default stream is being captured and the stream is "
                "not: quiet after the graph has run\n",
                fn);
        return;
    }
    if (!nbi_done &&
        nvshmemi_report_cuda(cudaEventCreateWithFlags(&nbi_done, cudaEventDisableTiming), fn))
        return;
    if (nvshmemi_report_cuda(cudaEventRecord(nbi_done, cudaStreamPerThread), fn))
        return;
    unsigned int flags =
        capturing == cudaStreamCaptureStatusActive && puts != cudaStreamCaptureStatusActive
            ? cudaEventWaitExternal
            : cudaEventWaitDefault;
    nvshmemi_report_cuda(cudaStreamWaitEvent(stream, nbi_done, flags), fn);
}

#define NVSHMEMI_DEFINE_RMA_ON_STREAM(TYPE, NAME)                                                  \
    static inline void nvshmemx_##NAME##_put_on_stream(                                            \
        TYPE *dest, const TYPE *source, size_t nelems, int pe, cudaStream_t stream) {              \
        nvshmemi_report(symcoll_put_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream),    \
                        "nvshmemx_" #NAME "_put_on_stream");                                       \
    }                                                                                              \
    static inline void nvshmemx_##NAME##_get_on_stream(                                            \
        TYPE *dest, const TYPE *source, size_t nelems, int pe, cudaStream_t stream) {              \
        nvshmemi_report(symcoll_get_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream),    \
                        "nvshmemx_" #NAME "_get_on_stream");                                       \
    }                                                                                              \
    static inline void nvshmemx_##NAME##_put_signal_on_stream(                                     \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
        int sig_op, int pe, cudaStream_t stream) {                                                 \
        nvshmemi_report(symcoll_put_signal_on_stream(dest, source, nelems * sizeof(TYPE),          \
                                                     sig_addr, signal,                             \
                                                     (symcoll_signal_op_t)sig_op, pe, stream),     \
                        "nvshmemx_" #NAME "_put_signal_on_stream");                                \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_RMA_ON_STREAM)

/* ---- barriers on a stream (include quiet) ---- */

/* The team forms return 0 or symcoll's status, as NVSHMEM's team collectives return a status;
 * the _all forms return nothing, as NVSHMEM's. */
static inline int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
    return nvshmemi_report(symcoll_barrier_on_stream(nvshmemi_team(team), stream),
                           "nvshmemx_barrier_on_stream");
}
static inline int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
    return nvshmemi_report(symcoll_barrier_on_stream(nvshmemi_team(team), stream),
                           "nvshmemx_team_sync_on_stream");
}
static inline void nvshmemx_barrier_all_on_stream(cudaStream_t stream) {
    nvshmemi_report(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream),
                    "nvshmemx_barrier_all_on_stream");
}
static inline void nvshmemx_sync_all_on_stream(cudaStream_t stream) {
    nvshmemi_report(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream),
                    "nvshmemx_sync_all_on_stream");
}

/* ---- collectives: _on_stream, and the blocking host forms ---- */

/* The blocking forms run after this PE's earlier GPU work and wait for their result. */
static inline int nvshmemi_blocking_begin(const char *fn) {
    return nvshmemi_report_cuda(cudaDeviceSynchronize(), fn);
}
static inline int nvshmemi_blocking_end(symcoll_status_t status, const char *fn) {
    if (nvshmemi_report(status, fn) != 0)
        return (int)status;
    return nvshmemi_report_cuda(cudaStreamSynchronize(cudaStreamPerThread), fn);
}

/* Plain char is signed or unsigned as the compiler has it (unsigned on aarch64): its min and
 * max compare as the program's own comparisons do. */
#if CHAR_MIN < 0
#define NVSHMEMI_CHAR_DATATYPE SYMCOLL_INT8
#else
#define NVSHMEMI_CHAR_DATATYPE SYMCOLL_UINT8
#endif

/* Reductions: every PE of the team gets the result (an all-reduce, as NVSHMEM's team
 * reductions), and reduce-scatters. The types: X(TYPE, TYPENAME, symcoll datatype, Y), Y handed
 * through to X, so that NVSHMEMI_REDUCTIONS gives one definer every (type, op) pair. */
#define NVSHMEMI_REDUCE_INTEGER_TYPES(X, Y)                                                        \
    X(char, char, NVSHMEMI_CHAR_DATATYPE, Y)                                                       \
    X(signed char, schar, SYMCOLL_INT8, Y)                                                         \
    X(int, int, SYMCOLL_INT32, Y)                                                                  \
    X(long, long, SYMCOLL_INT64, Y)                                                                \
    X(long long, longlong, SYMCOLL_INT64, Y)                                                       \
    X(ptrdiff_t, ptrdiff, SYMCOLL_INT64, Y)                                                        \
    X(unsigned char, uchar, SYMCOLL_UINT8, Y)                                                      \
    X(unsigned int, uint, SYMCOLL_UINT32, Y)                                                       \
    X(unsigned long, ulong, SYMCOLL_UINT64, Y)                                                     \
    X(unsigned long long, ulonglong, SYMCOLL_UINT64, Y)                                            \
    X(size_t, size, SYMCOLL_UINT64, Y)                                                             \
    X(int8_t, int8, SYMCOLL_INT8, Y)                                                               \
    X(int32_t, int32, SYMCOLL_INT32, Y)                                                            \
    X(int64_t, int64, SYMCOLL_INT64, Y)                                                            \
    X(uint8_t, uint8, SYMCOLL_UINT8, Y)                                                            \
    X(uint32_t, uint32, SYMCOLL_UINT32, Y)                                                         \
    X(uint64_t, uint64, SYMCOLL_UINT64, Y)
#define NVSHMEMI_REDUCE_FLOAT_TYPES(X, Y)                                                          \
    X(float, float, SYMCOLL_FLOAT32, Y)                                                            \
    X(double, double, SYMCOLL_FLOAT64, Y)
#ifdef __cplusplus
/* C++ only, as in NVSHMEM; symcoll accumulates them in float32. */
#define NVSHMEMI_REDUCE_HALF_TYPES(X, Y)                                                           \
    X(half, half, SYMCOLL_FLOAT16, Y)                                                              \
    X(__nv_bfloat16, bfloat16, SYMCOLL_BFLOAT16, Y)
#else
#define NVSHMEMI_REDUCE_HALF_TYPES(X, Y)
#endif
/* The ops of a type: Y(TYPE, TYPENAME, DT, OPNAME, symcoll op) for each. */
#define NVSHMEMI_REDUCE_ARITHMETIC_OPS(TYPE, NAME, DT, Y)                                          \
    Y(TYPE, NAME, DT, sum, SYMCOLL_SUM)                                                            \
    Y(TYPE, NAME, DT, prod, SYMCOLL_PROD)                                                          \
    Y(TYPE, NAME, DT, min, SYMCOLL_MIN)                                                            \
    Y(TYPE, NAME, DT, max, SYMCOLL_MAX)
#define NVSHMEMI_REDUCE_INTEGER_OPS(TYPE, NAME, DT, Y)                                             \
    NVSHMEMI_REDUCE_ARITHMETIC_OPS(TYPE, NAME, DT, Y)                                              \
    Y(TYPE, NAME, DT, and, SYMCOLL_AND)                                                            \
    Y(TYPE, NAME, DT, or, SYMCOLL_OR)                                                              \
    Y(TYPE, NAME, DT, xor, SYMCOLL_XOR)
/* Every (type, op) pair of NVSHMEM's reductions that symcoll serves, host and device alike:
 * Y(TYPE, TYPENAME, DT, OPNAME, OP). */
#define NVSHMEMI_REDUCTIONS(Y)                                                                     \
    NVSHMEMI_REDUCE_INTEGER_TYPES(NVSHMEMI_REDUCE_INTEGER_OPS, Y)                                  \
    NVSHMEMI_REDUCE_FLOAT_TYPES(NVSHMEMI_REDUCE_ARITHMETIC_OPS, Y)                                 \
    NVSHMEMI_REDUCE_HALF_TYPES(NVSHMEMI_REDUCE_ARITHMETIC_OPS, Y)

/* KIND reduce (every PE gets the reduction of all of source) or reducescatter (nreduce elements
 * per PE: PE i's dest gets the reduction of every PE's block i of source), run by FN. */
#define NVSHMEMI_DEFINE_REDUCTION(TYPE, NAME, DT, OPNAME, OP, KIND, FN)                            \
    static inline int nvshmemx_##NAME##_##OPNAME##_##KIND##_on_stream(                             \
        nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce,                       \
        cudaStream_t stream) {                                                                     \
        return nvshmemi_report(FN(nvshmemi_team(team), dest, source, nreduce, DT, OP, stream),     \
                               "nvshmemx_" #NAME "_" #OPNAME "_" #KIND "_on_stream");              \
    }                                                                                              \
    static inline int nvshmem_##NAME##_##OPNAME##_##KIND(nvshmem_team_t team, TYPE *dest,          \
                                                         const TYPE *source, size_t nreduce) {     \
        const char *fn = "nvshmem_" #NAME "_" #OPNAME "_" #KIND;                                   \
        int status = nvshmemi_blocking_begin(fn);                                                  \
        return status ? status                                                                     \
                      : nvshmemi_blocking_end(FN(nvshmemi_team(team), dest, source, nreduce, DT,   \
                                                 OP, cudaStreamPerThread),                         \
                                              fn);                                                 \
    }
#define NVSHMEMI_DEFINE_REDUCE(TYPE, NAME, DT, OPNAME, OP)                                         \
    NVSHMEMI_DEFINE_REDUCTION(TYPE, NAME, DT, OPNAME, OP, reduce, symcoll_reduce_on_stream)        \
    NVSHMEMI_DEFINE_REDUCTION(TYPE, NAME, DT, OPNAME, OP, reducescatter,                           \
                              symcoll_reduce_scatter_on_stream)
NVSHMEMI_REDUCTIONS(NVSHMEMI_DEFINE_REDUCE)

/* Broadcast, fcollect and alltoall move bytes: any element type. nelems counts elements of
 * elem_size bytes (fcollect and alltoall: per PE). */
static inline int nvshmemi_broadcast(nvshmem_team_t team, void *dest, const void *source,
                                     size_t bytes, int root, cudaStream_t stream) {
    return (int)symcoll_broadcast_on_stream(nvshmemi_team(team), dest, source, bytes, SYMCOLL_UINT8,
                                            root, stream);
}
static inline int nvshmemi_fcollect(nvshmem_team_t team, void *dest, const void *source,
                                    size_t bytes, int root, cudaStream_t stream) {
    (void)root;
    return (int)symcoll_fcollect_on_stream(nvshmemi_team(team), dest, source, bytes, SYMCOLL_UINT8,
                                           stream);
}
static inline int nvshmemi_alltoall(nvshmem_team_t team, void *dest, const void *source,
                                    size_t bytes, int root, cudaStream_t stream) {
    (void)root;
    return (int)symcoll_alltoall_on_stream(nvshmemi_team(team), dest, source, bytes, SYMCOLL_UINT8,
                                           stream);
}
static inline int nvshmemi_on_stream(int status, const char *fn) {
    return nvshmemi_report((symcoll_status_t)status, fn);
}
static inline int nvshmemi_blocking(int (*collective)(nvshmem_team_t, void *, const void *, size_t,
                                                      int, cudaStream_t),
                                    nvshmem_team_t team, void *dest, const void *source,
                                    size_t bytes, int root, const char *fn) {
    int status = nvshmemi_blocking_begin(fn);
    if (status)
        return status;
    return nvshmemi_blocking_end(
        (symcoll_status_t)collective(team, dest, source, bytes, root, cudaStreamPerThread), fn);
}

static inline int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest,
                                                  const void *source, size_t nelems, int PE_root,
                                                  cudaStream_t stream) {
    return nvshmemi_on_stream(nvshmemi_broadcast(team, dest, source, nelems, PE_root, stream),
                              "nvshmemx_broadcastmem_on_stream");
}
static inline int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest,
                                                 const void *source, size_t nelems,
                                                 cudaStream_t stream) {
    return nvshmemi_on_stream(nvshmemi_fcollect(team, dest, source, nelems, 0, stream),
                              "nvshmemx_fcollectmem_on_stream");
}
static inline int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest,
                                                 const void *source, size_t nelems,
                                                 cudaStream_t stream) {
    return nvshmemi_on_stream(nvshmemi_alltoall(team, dest, source, nelems, 0, stream),
                              "nvshmemx_alltoallmem_on_stream");
}

static inline int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source,
                                       size_t nelems, int PE_root) {
    return nvshmemi_blocking(nvshmemi_broadcast, team, dest, source, nelems, PE_root,
                             "nvshmem_broadcastmem");
}
static inline int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source,
                                      size_t nelems) {
    return nvshmemi_blocking(nvshmemi_fcollect, team, dest, source, nelems, 0,
                             "nvshmem_fcollectmem");
}
static inline int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source,
                                      size_t nelems) {
    return nvshmemi_blocking(nvshmemi_alltoall, team, dest, source, nelems, 0,
                             "nvshmem_alltoallmem");
}

#define NVSHMEMI_DEFINE_EXCHANGE(TYPE, NAME)                                                       \
    static inline int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, TYPE *dest,       \
                                                            const TYPE *source, size_t nelems,     \
                                                            int PE_root, cudaStream_t stream) {    \
        return nvshmemi_on_stream(                                                                 \
            nvshmemi_broadcast(team, dest, source, nelems * sizeof(TYPE), PE_root, stream),        \
            "nvshmemx_" #NAME "_broadcast_on_stream");                                             \
    }                                                                                              \
    static inline int nvshmemx_##NAME##_fcollect_on_stream(                                        \
        nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, cudaStream_t stream) { \
        return nvshmemi_on_stream(                                                                 \
            nvshmemi_fcollect(team, dest, source, nelems * sizeof(TYPE), 0, stream),               \
            "nvshmemx_" #NAME "_fcollect_on_stream");                                              \
    }                                                                                              \
    static inline int nvshmemx_##NAME##_alltoall_on_stream(                                        \
        nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, cudaStream_t stream) { \
        return nvshmemi_on_stream(                                                                 \
            nvshmemi_alltoall(team, dest, source, nelems * sizeof(TYPE), 0, stream),               \
            "nvshmemx_" #NAME "_alltoall_on_stream");                                              \
    }                                                                                              \
    static inline int nvshmem_##NAME##_broadcast(nvshmem_team_t team, TYPE *dest,                  \
                                                 const TYPE *source, size_t nelems, int PE_root) { \
        return nvshmemi_blocking(nvshmemi_broadcast, team, dest, source, nelems * sizeof(TYPE),    \
                                 PE_root, "nvshmem_" #NAME "_broadcast");                          \
    }                                                                                              \
    static inline int nvshmem_##NAME##_fcollect(nvshmem_team_t team, TYPE *dest,                   \
                                                const TYPE *source, size_t nelems) {               \
        return nvshmemi_blocking(nvshmemi_fcollect, team, dest, source, nelems * sizeof(TYPE), 0,  \
                                 "nvshmem_" #NAME "_fcollect");                                    \
    }                                                                                              \
    static inline int nvshmem_##NAME##_alltoall(nvshmem_team_t team, TYPE *dest,                   \
                                                const TYPE *source, size_t nelems) {               \
        return nvshmemi_blocking(nvshmemi_alltoall, team, dest, source, nelems * sizeof(TYPE), 0,  \
                                 "nvshmem_" #NAME "_alltoall");                                    \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_EXCHANGE)

#ifdef __cplusplus
}
#endif

/* ---- device: warp- and block-scope RMA and barriers ---- */

#ifdef __CUDACC__
/* Every thread of the warp (block) calls with the same arguments. */
#define NVSHMEMI_DEFINE_MEM_SCOPE(SCOPE)                                                           \
    NVSHMEMI_DEV void nvshmemx_putmem_##SCOPE(void *dest, const void *source, size_t nelems,       \
                                              int pe) {                                            \
        symcoll_dev_put_##SCOPE(nvshmemi_symcoll_tu_state.world, dest, source, nelems, pe);        \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_putmem_nbi_##SCOPE(void *dest, const void *source, size_t nelems,   \
                                                  int pe) {                                        \
        symcoll_dev_put_##SCOPE(nvshmemi_symcoll_tu_state.world, dest, source, nelems, pe);        \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_getmem_##SCOPE(void *dest, const void *source, size_t nelems,       \
                                              int pe) {                                            \
        symcoll_dev_get_##SCOPE(nvshmemi_symcoll_tu_state.world, dest, source, nelems, pe);        \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_getmem_nbi_##SCOPE(void *dest, const void *source, size_t nelems,   \
                                                  int pe) {                                        \
        symcoll_dev_get_##SCOPE(nvshmemi_symcoll_tu_state.world, dest, source, nelems, pe);        \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_putmem_signal_##SCOPE(void *dest, const void *source,               \
                                                     size_t nelems, uint64_t *sig_addr,            \
                                                     uint64_t signal, int sig_op, int pe) {        \
        if (nvshmemi_sig_op_valid(sig_op, "nvshmemx_putmem_signal_" #SCOPE))                       \
            symcoll_dev_put_signal_##SCOPE(nvshmemi_symcoll_tu_state.world, dest, source, nelems,  \
                                           sig_addr, signal, (symcoll_signal_op_t)sig_op, pe);     \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_putmem_signal_nbi_##SCOPE(void *dest, const void *source,           \
                                                         size_t nelems, uint64_t *sig_addr,        \
                                                         uint64_t signal, int sig_op, int pe) {    \
        nvshmemx_putmem_signal_##SCOPE(dest, source, nelems, sig_addr, signal, sig_op, pe);        \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_barrier_all_##SCOPE(void) {                                         \
        nvshmemi_barrier_all(nvshmemi_##SCOPE##_group());                                          \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_sync_all_##SCOPE(void) {                                            \
        nvshmemi_barrier_all(nvshmemi_##SCOPE##_group());                                          \
    }
NVSHMEMI_DEFINE_MEM_SCOPE(warp)
NVSHMEMI_DEFINE_MEM_SCOPE(block)

#define NVSHMEMI_DEFINE_RMA_SCOPE(TYPE, NAME, SCOPE)                                               \
    NVSHMEMI_DEV void nvshmemx_##NAME##_put_##SCOPE(TYPE *dest, const TYPE *source, size_t nelems, \
                                                    int pe) {                                      \
        nvshmemx_putmem_##SCOPE(dest, source, nelems * sizeof(TYPE), pe);                          \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_##NAME##_put_nbi_##SCOPE(TYPE *dest, const TYPE *source,            \
                                                        size_t nelems, int pe) {                   \
        nvshmemx_putmem_##SCOPE(dest, source, nelems * sizeof(TYPE), pe);                          \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_##NAME##_get_##SCOPE(TYPE *dest, const TYPE *source, size_t nelems, \
                                                    int pe) {                                      \
        nvshmemx_getmem_##SCOPE(dest, source, nelems * sizeof(TYPE), pe);                          \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_##NAME##_get_nbi_##SCOPE(TYPE *dest, const TYPE *source,            \
                                                        size_t nelems, int pe) {                   \
        nvshmemx_getmem_##SCOPE(dest, source, nelems * sizeof(TYPE), pe);                          \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_##NAME##_put_signal_##SCOPE(TYPE *dest, const TYPE *source,         \
                                                           size_t nelems, uint64_t *sig_addr,      \
                                                           uint64_t signal, int sig_op, int pe) {  \
        nvshmemx_putmem_signal_##SCOPE(dest, source, nelems * sizeof(TYPE), sig_addr, signal,      \
                                       sig_op, pe);                                                \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmemx_##NAME##_put_signal_nbi_##SCOPE(                                    \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
        int sig_op, int pe) {                                                                      \
        nvshmemx_putmem_signal_##SCOPE(dest, source, nelems * sizeof(TYPE), sig_addr, signal,      \
                                       sig_op, pe);                                                \
    }
#define NVSHMEMI_DEFINE_RMA_SCOPES(TYPE, NAME)                                                     \
    NVSHMEMI_DEFINE_RMA_SCOPE(TYPE, NAME, warp)                                                    \
    NVSHMEMI_DEFINE_RMA_SCOPE(TYPE, NAME, block)
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_RMA_SCOPES)
#endif /* __CUDACC__ */

/* ---- device: warp- and block-scope team collectives ----
 *
 * NVSHMEM's team collectives inside kernels, at warp and block scope, run symcoll's device
 * collectives (symcoll_device_coll.cuh: the algorithms of the host calls, through the team's
 * scratch). C++17, nvcc's default; a unit built as C++14 or older gets the host API and the
 * device RMA, barrier_all and sync_all only.
 *
 * Every thread of the warp (block) calls, with the same arguments, and every PE of the team
 * makes the same calls in the same order. Per team and PE, at most one warp or block may be
 * inside a warp- or block-scope collective or team barrier at a time: they share the team's
 * synchronization slot. Calls by two warps of a block need a __syncthreads between them; of
 * two blocks, let one block make them all. No host collective of the team (_on_stream or
 * blocking) may run while the kernel does: order them on one stream. NVSHMEM asks as much of
 * a team's collectives; here a second warp or block goes undetected, and both calls may
 * return wrong data or time out. nvshmemx_barrier_all_<scope> and sync_all_<scope> (above)
 * are the header's own WORLD barrier, shared with the thread-scope nvshmem_barrier_all: they
 * may run beside these.
 *
 * Each returns 0, or symcoll's status in every thread of the group: INVALID_ARGUMENT for a
 * team the device does not know (it knows WORLD, NODE and SHARED) or a PE_root outside the
 * team, TIMEOUT when a wait ran past SYMCOLL_TIMEOUT_MS or the team had already broken: the
 * kernel must then return, and the host reports the timeout on the team's next call.
 * As for the host calls, reduce and broadcast may run in place (dest == source); the dest and
 * source of fcollect and alltoall must not overlap. nelems and nreduce count elements, the mem
 * forms bytes. The team barrier and team_sync include a quiet of the group's puts. */
#if defined(__CUDACC__) && __cplusplus >= 201703L
#include "../symcoll_device_coll.cuh"

/* The element type of each symcoll datatype, which the device reductions take. */
template <symcoll_datatype_t DT> struct nvshmemi_element;
#define NVSHMEMI_DEFINE_ELEMENT(DT, T)                                                             \
    template <> struct nvshmemi_element<DT> { typedef T type; };
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_INT8, int8_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_UINT8, uint8_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_INT32, int32_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_UINT32, uint32_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_INT64, int64_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_UINT64, uint64_t)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_FLOAT16, __half)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_BFLOAT16, __nv_bfloat16)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_FLOAT32, float)
NVSHMEMI_DEFINE_ELEMENT(SYMCOLL_FLOAT64, double)

/* Runs call(handle) on team's device handle: 0, or the status above. The arguments are
 * checked before any synchronization, so a refused call returns on every PE alike. */
template <typename Call>
NVSHMEMI_DEV int nvshmemi_team_collective(nvshmem_team_t team, Call call, int root = 0) {
    const symcoll_device_t *h = nvshmemi_device_team(nvshmemi_team(team));
    if (!h || root < 0 || root >= h->team_size)
        return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
    return call(*h) ? 0 : (int)SYMCOLL_ERROR_TIMEOUT;
}

/* Broadcast, fcollect and alltoall move bytes: the typed forms are the mem forms. KIND
 * fcollect or alltoall, of nelems bytes per PE. */
#define NVSHMEMI_DEFINE_BLOCKS_SCOPE(KIND, SCOPE)                                                  \
    NVSHMEMI_DEV int nvshmemx_##KIND##mem_##SCOPE(nvshmem_team_t team, void *dest,                 \
                                                  const void *source, size_t nelems) {             \
        return nvshmemi_team_collective(team, [&](const symcoll_device_t &h) {                     \
            return symcoll_dev_##KIND##_##SCOPE(h, (uint8_t *)dest, (const uint8_t *)source,       \
                                                nelems);                                           \
        });                                                                                        \
    }
#define NVSHMEMI_DEFINE_COLL_SCOPE(SCOPE)                                                          \
    NVSHMEMI_DEV int nvshmemx_barrier_##SCOPE(nvshmem_team_t team) {                               \
        return nvshmemi_team_collective(                                                           \
            team, [](const symcoll_device_t &h) { return symcoll_dev_barrier_##SCOPE(h); });       \
    }                                                                                              \
    NVSHMEMI_DEV int nvshmemx_team_sync_##SCOPE(nvshmem_team_t team) {                             \
        return nvshmemx_barrier_##SCOPE(team);                                                     \
    }                                                                                              \
    NVSHMEMI_DEV int nvshmemx_broadcastmem_##SCOPE(                                                \
        nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {         \
        return nvshmemi_team_collective(                                                           \
            team,                                                                                  \
            [&](const symcoll_device_t &h) {                                                       \
                return symcoll_dev_broadcast_##SCOPE(h, (uint8_t *)dest, (const uint8_t *)source,  \
                                                     nelems, PE_root);                             \
            },                                                                                     \
            PE_root);                                                                              \
    }                                                                                              \
    NVSHMEMI_DEFINE_BLOCKS_SCOPE(fcollect, SCOPE)                                                  \
    NVSHMEMI_DEFINE_BLOCKS_SCOPE(alltoall, SCOPE)
NVSHMEMI_DEFINE_COLL_SCOPE(warp)
NVSHMEMI_DEFINE_COLL_SCOPE(block)

#define NVSHMEMI_DEFINE_EXCHANGE_SCOPE(TYPE, NAME, SCOPE)                                          \
    NVSHMEMI_DEV int nvshmemx_##NAME##_broadcast_##SCOPE(                                          \
        nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, int PE_root) {         \
        return nvshmemx_broadcastmem_##SCOPE(team, dest, source, nelems * sizeof(TYPE), PE_root);  \
    }                                                                                              \
    NVSHMEMI_DEV int nvshmemx_##NAME##_fcollect_##SCOPE(nvshmem_team_t team, TYPE *dest,           \
                                                        const TYPE *source, size_t nelems) {       \
        return nvshmemx_fcollectmem_##SCOPE(team, dest, source, nelems * sizeof(TYPE));            \
    }                                                                                              \
    NVSHMEMI_DEV int nvshmemx_##NAME##_alltoall_##SCOPE(nvshmem_team_t team, TYPE *dest,           \
                                                        const TYPE *source, size_t nelems) {       \
        return nvshmemx_alltoallmem_##SCOPE(team, dest, source, nelems * sizeof(TYPE));            \
    }
#define NVSHMEMI_DEFINE_EXCHANGE_SCOPES(TYPE, NAME)                                                \
    NVSHMEMI_DEFINE_EXCHANGE_SCOPE(TYPE, NAME, warp)                                               \
    NVSHMEMI_DEFINE_EXCHANGE_SCOPE(TYPE, NAME, block)
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_EXCHANGE_SCOPES)

/* KIND reduce or reducescatter (as on the host) at SCOPE, run by FN_<SCOPE> on symcoll's element
 * type of DT. */
#define NVSHMEMI_DEFINE_REDUCTION_SCOPE(TYPE, NAME, DT, OPNAME, OP, KIND, FN, SCOPE)               \
    NVSHMEMI_DEV int nvshmemx_##NAME##_##OPNAME##_##KIND##_##SCOPE(                                \
        nvshmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce) {                     \
        typedef nvshmemi_element<DT>::type T;                                                      \
        return nvshmemi_team_collective(team, [&](const symcoll_device_t &h) {                     \
            return FN##_##SCOPE<T, OP>(h, (T *)dest, (const T *)source, nreduce);                  \
        });                                                                                        \
    }
#define NVSHMEMI_DEFINE_REDUCE_SCOPE(TYPE, NAME, DT, OPNAME, OP, SCOPE)                            \
    NVSHMEMI_DEFINE_REDUCTION_SCOPE(TYPE, NAME, DT, OPNAME, OP, reduce, symcoll_dev_reduce, SCOPE) \
    NVSHMEMI_DEFINE_REDUCTION_SCOPE(TYPE, NAME, DT, OPNAME, OP, reducescatter,                     \
                                    symcoll_dev_reduce_scatter, SCOPE)
#define NVSHMEMI_DEFINE_REDUCE_SCOPES(TYPE, NAME, DT, OPNAME, OP)                                  \
    NVSHMEMI_DEFINE_REDUCE_SCOPE(TYPE, NAME, DT, OPNAME, OP, warp)                                 \
    NVSHMEMI_DEFINE_REDUCE_SCOPE(TYPE, NAME, DT, OPNAME, OP, block)
NVSHMEMI_REDUCTIONS(NVSHMEMI_DEFINE_REDUCE_SCOPES)
#endif /* __CUDACC__ and C++17 */

/* ---- refused at compile time ---- */

#define nvshmemx_collective_launch(...)                                                            \
    NVSHMEMI_REFUSE_CALL(nvshmemx_collective_launch,                                               \
                         "launch with <<<...>>>; the device barrier admits one thread, warp or "   \
                         "block per PE at a time")
#define nvshmemx_collective_launch_query_gridsize(...)                                             \
    NVSHMEMI_REFUSE_CALL(nvshmemx_collective_launch_query_gridsize, "there is no collective "      \
                                                                    "launch")
#define nvshmemx_hostlib_init(...)                                                                 \
    NVSHMEMI_REFUSE_CALL(nvshmemx_hostlib_init, "use nvshmem_init or nvshmemx_init_attr")
#define nvshmemx_buffer_register(...)                                                              \
    NVSHMEMI_REFUSE_CALL(nvshmemx_buffer_register,                                                 \
                         "registration serves network transports, and there are none (one node)")
#define nvshmemx_buffer_unregister(...)                                                            \
    NVSHMEMI_REFUSE_CALL(nvshmemx_buffer_unregister,                                               \
                         "registration serves network transports, and there are none (one node)")

#endif
