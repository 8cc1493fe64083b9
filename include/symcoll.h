/* symcoll: stream-ordered GPU collectives on symmetric memory (host API, C11).
 *
 * Conventions for every function below:
 * - Functions that can fail return a symcoll_status_t; on failure symcoll_last_error() holds
 *   a one-line reason that names the argument and its value. Allocators return NULL and
 *   symcoll_ptr returns NULL, with the reason in symcoll_last_error().
 * - "_on_stream" functions return as soon as the work is enqueued on the stream. The work
 *   runs in stream order on this PE's GPU; when it completes in stream order, destination
 *   buffers are final and source buffers may be reused. They never synchronize the host,
 *   allocate memory or copy to the host, so they may be captured into CUDA graphs.
 * - "Symmetric" pointers lie inside an allocation returned by symcoll_malloc/calloc.
 * - Every PE calls the collectives of a team in the same order; the collectives of one team
 *   never run concurrently (order calls on different streams with events). Collectives of
 *   different teams may run concurrently.
 */
#ifndef SYMCOLL_H
#define SYMCOLL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "symcoll_proxy_ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The release: the one source of symcoll's version (CMake reads these lines for the project,
 * the shared library and the pkg-config file). 0.2: attr.callbacks, SOVERSION 1. */
#define SYMCOLL_VERSION_MAJOR 0
#define SYMCOLL_VERSION_MINOR 2
#define SYMCOLL_VERSION_PATCH 0
/* As one number, like NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch. */
#define SYMCOLL_VERSION                                                                            \
    (SYMCOLL_VERSION_MAJOR * 10000 + SYMCOLL_VERSION_MINOR * 100 + SYMCOLL_VERSION_PATCH)

/* Marks every exported function: the library is built with hidden visibility. */
#if defined(__GNUC__)
#define SYMCOLL_API __attribute__((visibility("default")))
#else
#define SYMCOLL_API
#endif

typedef enum {
    SYMCOLL_SUCCESS = 0,
    SYMCOLL_ERROR_INVALID_ARGUMENT = 1, /* a bad argument; the message names it */
    SYMCOLL_ERROR_NOT_INITIALIZED = 2,  /* called before symcoll_init or after finalize */
    SYMCOLL_ERROR_OUT_OF_MEMORY = 3,    /* symmetric heap or host memory exhausted */
    SYMCOLL_ERROR_SYMMETRY = 4,         /* PEs disagree on a collective allocation */
    SYMCOLL_ERROR_TIMEOUT = 5,          /* a device wait or bootstrap exchange timed out */
    SYMCOLL_ERROR_CUDA = 6,             /* the CUDA runtime or driver failed */
    SYMCOLL_ERROR_NCCL = 7,             /* NCCL (bootstrap) failed */
    SYMCOLL_ERROR_BOOTSTRAP = 8,        /* the processes could not find each other */
    SYMCOLL_ERROR_NO_GPU = 9,           /* no usable GPU or driver on this machine */
    SYMCOLL_ERROR_UNSUPPORTED = 10,     /* valid, but not possible here (e.g. no P2P path) */
    SYMCOLL_ERROR_SYSTEM = 11,          /* an operating-system call failed */
    SYMCOLL_ERROR_INTERNAL = 12
} symcoll_status_t;

typedef enum {
    SYMCOLL_INT8 = 0,
    SYMCOLL_UINT8 = 1,
    SYMCOLL_INT32 = 2,
    SYMCOLL_UINT32 = 3,
    SYMCOLL_INT64 = 4,
    SYMCOLL_UINT64 = 5,
    SYMCOLL_FLOAT16 = 6,
    SYMCOLL_BFLOAT16 = 7,
    SYMCOLL_FLOAT32 = 8,
    SYMCOLL_FLOAT64 = 9,
    SYMCOLL_NUM_DATATYPES = 10
} symcoll_datatype_t;

typedef enum {
    SYMCOLL_SUM = 0,
    SYMCOLL_PROD = 1,
    SYMCOLL_MIN = 2,
    SYMCOLL_MAX = 3,
    SYMCOLL_AND = 4, /* integers only */
    SYMCOLL_OR = 5,  /* integers only */
    SYMCOLL_XOR = 6, /* integers only */
    SYMCOLL_NUM_OPS = 7
} symcoll_op_t;

typedef enum { SYMCOLL_SIGNAL_SET = 0, SYMCOLL_SIGNAL_ADD = 1 } symcoll_signal_op_t;

typedef enum {
    SYMCOLL_CMP_EQ = 0,
    SYMCOLL_CMP_NE = 1,
    SYMCOLL_CMP_GT = 2,
    SYMCOLL_CMP_GE = 3,
    SYMCOLL_CMP_LT = 4,
    SYMCOLL_CMP_LE = 5
} symcoll_cmp_t;

/* The most PEs one job may have: a device handle keeps one reachability bit per PE. A launch
 * of more makes symcoll_init fail with UNSUPPORTED (attr.size or SYMCOLL_SIZE above it with
 * INVALID_ARGUMENT), before any GPU work; symcoll-run refuses -n above it. */
#define SYMCOLL_MAX_PES 64

/* Team handle. WORLD is every PE of the job, NODE the PEs on this PE's host. */
typedef int32_t symcoll_team_t;
#define SYMCOLL_TEAM_INVALID ((symcoll_team_t)-1)
#define SYMCOLL_TEAM_WORLD ((symcoll_team_t)0)
#define SYMCOLL_TEAM_NODE ((symcoll_team_t)1)

/* Opaque NCCL unique id (same size as ncclUniqueId), distributed by the application. */
typedef struct {
    char internal[128];
} symcoll_uniqueid_t;

typedef enum {
    SYMCOLL_BOOTSTRAP_AUTO = 0,      /* launcher env, PMIx, torchrun env, else one PE */
    SYMCOLL_BOOTSTRAP_UNIQUEID = 1,  /* attr.uniqueid + attr.rank + attr.size */
    SYMCOLL_BOOTSTRAP_NCCL_COMM = 2, /* attr.nccl_comm: an existing ncclComm_t */
    SYMCOLL_BOOTSTRAP_PMIX = 3,      /* PMIx only (no GPU exchange needed to find peers) */
    SYMCOLL_BOOTSTRAP_CALLBACKS = 4  /* attr.callbacks + attr.rank + attr.size */
} symcoll_bootstrap_kind_t;

/* A program-provided exchange (SYMCOLL_BOOTSTRAP_CALLBACKS): the program's own allgather and
 * barrier, over MPI, torch.distributed or anything else that reaches every PE. symcoll calls
 * them at init, malloc, free, team split, halo plan creation and finalize, from the thread
 * that made the symcoll call, and every PE makes the same calls in the same order. It is the
 * launch path that needs neither NCCL nor PMIx, so it serves PEs that share a GPU. Each
 * callback returns 0 on success; any other value fails the symcoll call with BOOTSTRAP. A
 * callback must not block forever when a peer is gone: give it a timeout of its own. */
typedef struct {
    /* Collective: all[r * bytes, (r + 1) * bytes) = PE r's mine, for every r below attr.size.
     * bytes is the same on every PE and may be 0. */
    int (*allgather)(const void *mine, void *all, size_t bytes, void *context);
    /* Collective: returns once every PE has called it. */
    int (*barrier)(void *context);
    void *context; /* passed to both as is */
} symcoll_bootstrap_callbacks_t;

/* 2 added attr.callbacks (library SOVERSION 1); an attr of version 1 is refused: rebuild
 * against this header. */
#define SYMCOLL_INIT_ATTR_VERSION 2

/* Versioned init attributes: always start from symcoll_init_attr_default(). */
typedef struct {
    uint32_t version;                   /* SYMCOLL_INIT_ATTR_VERSION */
    size_t heap_size;                   /* bytes per PE; 0: SYMCOLL_SYMMETRIC_SIZE */
    int device;                         /* CUDA device; -1: local rank (NCCL_COMM: current one) */
    symcoll_bootstrap_kind_t bootstrap; /* how the PEs find each other */
    symcoll_uniqueid_t uniqueid;        /* SYMCOLL_BOOTSTRAP_UNIQUEID */
    int rank;                           /* SYMCOLL_BOOTSTRAP_UNIQUEID and _CALLBACKS */
    int size;                           /* SYMCOLL_BOOTSTRAP_UNIQUEID and _CALLBACKS */
    void *nccl_comm;                    /* SYMCOLL_BOOTSTRAP_NCCL_COMM: an ncclComm_t */
    symcoll_bootstrap_callbacks_t callbacks; /* SYMCOLL_BOOTSTRAP_CALLBACKS */
} symcoll_init_attr_t;

/* Fills *attr with defaults: version set, heap_size 0 (SYMCOLL_SYMMETRIC_SIZE), device -1,
 * bootstrap AUTO, rank and size -1. */
SYMCOLL_API void symcoll_init_attr_default(symcoll_init_attr_t *attr);

/* Starts symcoll on this process: finds the other PEs (see the README for the launch paths
 * and their precedence; several PEs may share a GPU on every path but NCCL's), selects the
 * GPU, agrees on the SM share every grid is sized to (symcoll_gpu_sharing), maps the
 * symmetric heap of every reachable PE and creates SYMCOLL_TEAM_WORLD and SYMCOLL_TEAM_NODE.
 * Collective over all PEs. It also loads every kernel of the library (barrier, collectives, RMA,
 * halo exchange) and makes one empty launch, so that no later call pays for module loading or the
 * first launch. attr: NULL for defaults. Every attr field and every SYMCOLL_* variable is checked
 * before any GPU, NCCL or PMIx work. Errors: INVALID_ARGUMENT (an attr field or a variable, named
 * with its value and what is accepted; a second init without finalize), NO_GPU (says which
 * is missing: the driver, a driver as new as the CUDA runtime, or a device), UNSUPPORTED
 * (a launch of more than SYMCOLL_MAX_PES PEs; attr.size or SYMCOLL_SIZE above it is
 * INVALID_ARGUMENT; PEs on several nodes without the UCX transport, see the README), BOOTSTRAP (no
 * launch path found, peers missing, a callback failed, the callbacks disagree with attr.rank and
 * attr.size), TIMEOUT, CUDA, NCCL (PEs that share a GPU on an NCCL launch path: the message names
 * the paths that serve them), SYSTEM, OUT_OF_MEMORY (heap could not be created). */
SYMCOLL_API symcoll_status_t symcoll_init(const symcoll_init_attr_t *attr);

/* Waits for this PE's GPU, then for every PE (a bootstrap barrier; the NCCL bootstrap gives
 * up after SYMCOLL_INIT_TIMEOUT_MS), then unmaps and releases everything, the bootstrap first.
 * Collective. The barrier is skipped when the process of a PE of this host has ended: TIMEOUT
 * names that PE. A broken team gives TIMEOUT naming the team (the barrier still runs when every
 * PE is alive). Everything is released in every case. Safe to call after a failed or missing
 * init (returns NOT_INITIALIZED then). */
SYMCOLL_API symcoll_status_t symcoll_finalize(void);

/* This PE's number and the number of PEs in WORLD; -1 before init. */
SYMCOLL_API int symcoll_my_pe(void);
SYMCOLL_API int symcoll_n_pes(void);

/* Creates a new NCCL unique id for SYMCOLL_BOOTSTRAP_UNIQUEID; the application sends it to
 * every PE (MPI_Bcast, a file, torch.distributed). Callable before init. Errors:
 * INVALID_ARGUMENT (id NULL), NCCL. */
SYMCOLL_API symcoll_status_t symcoll_get_uniqueid(symcoll_uniqueid_t *id);

/* Collective symmetric allocation: every PE must call with the same size in the same order;
 * the result has the same offset on every PE, aligned to 256 bytes. Returns NULL on error:
 * SYMMETRY (PEs asked for different sizes or called in a different order), OUT_OF_MEMORY
 * (names the heap size, the request and SYMCOLL_SYMMETRIC_SIZE; the heap stays usable),
 * NOT_INITIALIZED. bytes == 0 returns NULL with SUCCESS status. Synchronizes the host. */
SYMCOLL_API void *symcoll_malloc(size_t bytes);
/* As symcoll_malloc, zero-filled on every PE before it returns. n * size overflow fails. */
SYMCOLL_API void *symcoll_calloc(size_t n, size_t size);
/* Collective: waits for this PE's GPU, then releases ptr on every PE. NULL is a no-op.
 * A non-symmetric pointer or a mismatch between PEs is reported by symcoll_last_error(). */
SYMCOLL_API void symcoll_free(void *ptr);
/* Same as symcoll_free, returning the status. */
SYMCOLL_API symcoll_status_t symcoll_free_checked(void *ptr);

/* Address of pe's copy of sym_addr, usable by this PE's GPU with loads and stores, or NULL
 * when pe is not load/store-reachable (or the arguments are bad; see symcoll_last_error). */
SYMCOLL_API void *symcoll_ptr(const void *sym_addr, int pe);

/* One-sided RMA on a stream. dst of a put and src of a get must be symmetric; the other
 * pointer may be any memory of this PE's GPU. The range [ptr, ptr+bytes) must stay inside
 * one allocation. pe: a WORLD PE. The operation is complete when it completes in stream
 * order on this PE (remote writes are visible to pe after a later barrier or signal).
 * A PE of another node is reached through the UCX proxy: the stream then runs a one-thread
 * kernel that posts the request into the proxy's ring and waits for it (a put until its source
 * is staged, a get until its data is here); a failure of the proxy is returned by the next such
 * call, a stall breaks WORLD (TIMEOUT) as a device wait does.
 * Errors: INVALID_ARGUMENT, NOT_INITIALIZED, UNSUPPORTED (pe not reachable), TIMEOUT (the
 * proxy gave up on a PE of another node), CUDA. */
SYMCOLL_API symcoll_status_t symcoll_put_on_stream(void *dst, const void *src, size_t bytes, int pe,
                                                   cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_get_on_stream(void *dst, const void *src, size_t bytes, int pe,
                                                   cudaStream_t stream);
/* Put, then update pe's copy of the symmetric 64-bit signal sig (set to, or add, value)
 * once the data is visible on pe. */
SYMCOLL_API symcoll_status_t symcoll_put_signal_on_stream(void *dst, const void *src, size_t bytes,
                                                          uint64_t *sig, uint64_t value,
                                                          symcoll_signal_op_t op, int pe,
                                                          cudaStream_t stream);
/* Stream waits until this PE's copy of the symmetric signal satisfies (*sig cmp value).
 * The wait times out after SYMCOLL_TIMEOUT_MS; later calls then return TIMEOUT. */
SYMCOLL_API symcoll_status_t symcoll_signal_wait_until_on_stream(uint64_t *sig, symcoll_cmp_t cmp,
                                                                 uint64_t value,
                                                                 cudaStream_t stream);

/* Team barrier on a stream: one kernel; also a quiet (puts issued before it on this PE,
 * from the host on earlier stream work or from earlier kernels, are complete and visible on
 * every PE of the team after it). A team across nodes (each node's part of it one PE or the
 * whole node): the proxy's quiet, the NODE barrier where the team holds the whole node, the
 * team's first PE of each node meeting through the proxy, the NODE barrier (not beside a NODE
 * collective). Errors: INVALID_ARGUMENT, NOT_INITIALIZED, UNSUPPORTED (members without a P2P path
 * between them; across nodes, a team with other parts of nodes), TIMEOUT (the team is broken by
 * an earlier timeout), CUDA. */
SYMCOLL_API symcoll_status_t symcoll_barrier_on_stream(symcoll_team_t team, cudaStream_t stream);

/* Collectives. dst and src are symmetric; dst == src (in place) is allowed for broadcast
 * and reduce; for fcollect and alltoall dst and src must not overlap.
 * broadcast: count elements of root's src (root: team PE number) into every PE's dst.
 * reduce: every PE's dst = op over all PEs' src (count elements; OpenSHMEM semantics: an
 *   all-reduce). float16/bfloat16 accumulate in float32. Floating-point min and max propagate
 *   NaN (any NaN in, NaN out: the same NaN bits on every PE) and order -0 below +0, as IEEE
 *   754-2019's minimum/maximum and torch.minimum/maximum. dst and src are aligned to the
 *   element size, and every PE calls in place (dst == src) or none does.
 * fcollect: dst (count_per_pe * n elements) = concatenation of every PE's src in PE order.
 * alltoall: block j of this PE's src (count_per_pe elements) goes to block me of PE j's dst.
 * reduce_scatter: this PE's dst (count_per_pe elements) = op over all PEs' block me of src
 *   (src: count_per_pe * n elements, block j for PE j), as ncclReduceScatter; every type and
 *   op of reduce, with its rules (NaN, alignment); in place when dst is block me of src
 *   (dst == src + me * count_per_pe elements), on every PE or none. dst == src on every PE is
 *   not in place: PE 0 would take it as such and wait for the others, which refuse it.
 * A team across nodes (nodes contiguous in rank; the team holding one PE of each of its nodes,
 * or whole nodes, the same number on each): the node's kernels and puts through the proxy
 * between nodes, each call entered by the barrier across nodes, without its quiet, before its
 * first put (a collective does not complete the caller's earlier puts to other nodes: the barrier
 * does); reduce and reduce_scatter use SYMCOLL_NODES_SCRATCH per PE, larger messages in rounds
 * (not beside a NODE collective; calls across nodes of one PE ordered, as they share the
 * scratch).
 * Errors: INVALID_ARGUMENT (names the argument), NOT_INITIALIZED, UNSUPPORTED (members without
 * a P2P path between them on one node; across nodes: nodes not contiguous in rank, a team with
 * other parts of nodes or different numbers on them, a node without P2P, a scratch too small
 * for one element per slot), TIMEOUT, CUDA. */
SYMCOLL_API symcoll_status_t symcoll_broadcast_on_stream(symcoll_team_t team, void *dst,
                                                         const void *src, size_t count,
                                                         symcoll_datatype_t type, int root,
                                                         cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_reduce_on_stream(symcoll_team_t team, void *dst,
                                                      const void *src, size_t count,
                                                      symcoll_datatype_t type, symcoll_op_t op,
                                                      cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_fcollect_on_stream(symcoll_team_t team, void *dst,
                                                        const void *src, size_t count_per_pe,
                                                        symcoll_datatype_t type,
                                                        cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_alltoall_on_stream(symcoll_team_t team, void *dst,
                                                        const void *src, size_t count_per_pe,
                                                        symcoll_datatype_t type,
                                                        cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_reduce_scatter_on_stream(symcoll_team_t team, void *dst,
                                                              const void *src, size_t count_per_pe,
                                                              symcoll_datatype_t type,
                                                              symcoll_op_t op, cudaStream_t stream);

/* alltoallv with the counts in device memory, as earlier kernels on the stream wrote them: no
 * host sync, no host copy, and a captured graph replayed with new counts moves the new
 * amounts. send_counts[j] (team size entries) is how many elements this PE sends to team PE
 * j; src (symmetric) holds them packed in team order, sum(send_counts) elements. dst
 * (symmetric) holds dst_capacity elements, the same number on every PE: the algorithm and grid
 * follow it (tuning takes dst_capacity's bytes as alltoall takes its whole dst;
 * SYMCOLL_ALGO_ALLTOALLV: ll, push, pull), and every PE must launch alike. What PE i sends
 * lands at recv_offsets[i], the sources packed in team order, and the kernel writes
 * recv_counts[i] and recv_offsets[i] (team size entries each, device memory) for the kernels
 * that follow. Zero counts, a PE that sends nothing and a PE that receives nothing are fine;
 * dst and src must not overlap.
 * Calls that do not fit move nothing on any PE (nothing is written to any dst): a PE that
 * would receive more than dst_capacity, a sender whose counts run past the end of src's
 * allocation, and PEs whose calls differ (dst_capacity; n_experts, major_align, type or
 * direction below), the last only where the differing capacities still pick the same
 * algorithm and grid, else the call times out. Every PE still writes recv_counts and
 * recv_offsets (except for calls that differ), so that their sum tells the capacity needed,
 * and records the cause: symcoll_team_status(team), once the stream has passed the call,
 * returns INVALID_ARGUMENT naming the PE, the total and the capacity, once. No other call
 * refuses because of it: a PE that had not seen it yet would launch where this one did not.
 * send_counts, recv_counts and recv_offsets must not overlap each other or dst (the calls
 * refuse them inside dst). Errors: INVALID_ARGUMENT
 * (names the argument), NOT_INITIALIZED, UNSUPPORTED (across nodes: a team that holds part
 * of a node but more than one PE of it, or different numbers of PEs on its nodes), TIMEOUT,
 * CUDA. */
SYMCOLL_API symcoll_status_t symcoll_alltoallv_on_stream(
    symcoll_team_t team, void *dst, size_t dst_capacity, const void *src, const size_t *send_counts,
    size_t *recv_counts, size_t *recv_offsets, symcoll_datatype_t type, cudaStream_t stream);

/* The expert-grouped all-to-all of mixture-of-experts layers, with the counts in device memory
 * as for alltoallv (no host sync, graph-capturable, the same overflow rules, dst_capacity the
 * same on every PE). A team of n PEs holds n * n_experts experts; PE j holds experts
 * j * n_experts .. (j + 1) * n_experts - 1, its local experts 0 .. n_experts - 1.
 * dispatch: send_counts[g] (n * n_experts entries) is how many elements this PE sends to
 *   expert g; src holds them packed in g order (rank-major). On PE j, dst receives them grouped
 *   by local expert, then by source PE (expert-major): group e starts at a multiple of
 *   major_align elements (an empty group takes major_align elements when major_align > 1),
 *   and recv_counts[e * n + i] and recv_offsets[e * n + i] say what PE i sent to local expert
 *   e and where it is. These are the semantics of PyTorch's all_to_all_vdev_2d.
 * combine: the inverse of a dispatch with the same send_counts (this PE's, as passed to the
 *   dispatch), n_experts and major_align: src is laid out as the dispatch left its dst (the
 *   experts' outputs in place of their inputs), and dst receives every element at the position
 *   it had in the dispatch's src. Unlike PyTorch's all_to_all_vdev_2d_offset, the layout of
 *   src is the dispatch's, given by the counts, not arbitrary offsets.
 * Counts, capacities and major_align are in elements where PyTorch's are in rows: tokens of H
 * elements count H each (and major_align A tokens is A x H).
 * n * n_experts is at most 512; major_align is 1 to 2^32 (larger than dst_capacity is fine: the
 * padding after the last group is never written). Errors: INVALID_ARGUMENT (names the argument),
 * NOT_INITIALIZED, UNSUPPORTED, TIMEOUT, CUDA. */
SYMCOLL_API symcoll_status_t symcoll_moe_dispatch_on_stream(
    symcoll_team_t team, void *dst, size_t dst_capacity, const void *src, const size_t *send_counts,
    size_t *recv_counts, size_t *recv_offsets, int n_experts, size_t major_align,
    symcoll_datatype_t type, cudaStream_t stream);
SYMCOLL_API symcoll_status_t symcoll_moe_combine_on_stream(
    symcoll_team_t team, void *dst, size_t dst_capacity, const void *src, const size_t *send_counts,
    int n_experts, size_t major_align, symcoll_datatype_t type, cudaStream_t stream);

/* Teams. A handle names the same team on every PE that holds it.
 * split_strided: collective over WORLD (not only the parent), so that every PE agrees on the
 * new handle and on its synchronization area: every PE calls it, in the same order relative
 * to the other splits. The members of parent ask for the team of parent PEs start,
 * start+stride, ... (size of them); every other PE takes part with parent or
 * SYMCOLL_TEAM_INVALID. PEs outside the new team get SYMCOLL_TEAM_INVALID in *new_team and
 * SUCCESS. If any PE rejects its arguments, the call fails on every PE and creates nothing.
 * The new team takes one of 8 synchronization areas (WORLD and NODE hold two) that no PE holds
 * for a team sharing a PE with it: teams with no PE in common share areas, so a PE is in at most
 * 6 split teams at once (fewer where its teams' members hold other areas with other teams);
 * at most 62 split teams are alive at once. Errors:
 * INVALID_ARGUMENT, OUT_OF_MEMORY (too many teams), SYMMETRY (members asked for different
 * teams), TIMEOUT, NCCL, BOOTSTRAP. */
SYMCOLL_API symcoll_status_t symcoll_team_split_strided(symcoll_team_t parent, int start,
                                                        int stride, int size,
                                                        symcoll_team_t *new_team);
SYMCOLL_API int symcoll_team_my_pe(symcoll_team_t team); /* -1 if not a member or invalid */
SYMCOLL_API int symcoll_team_n_pes(symcoll_team_t team); /* -1 if invalid */
/* pe of src_team as numbered in dest_team, -1 if not a member. */
SYMCOLL_API int symcoll_team_translate_pe(symcoll_team_t src_team, int pe,
                                          symcoll_team_t dest_team);
/* Called by every member of team: waits for this PE's GPU, then releases the team on this
 * PE. It exchanges nothing: the handle goes back into use only when a later split finds it free
 * on every PE, and the synchronization area when no PE holds it for a team sharing a PE with
 * the later one, i.e. once every member has destroyed the team.
 * WORLD and NODE cannot be destroyed. Errors: INVALID_ARGUMENT, NOT_INITIALIZED, CUDA. */
SYMCOLL_API symcoll_status_t symcoll_team_destroy(symcoll_team_t team);
/* SUCCESS, or TIMEOUT with the record (collective, epoch, missing PE) in
 * symcoll_last_error() when a device wait of this team has timed out. Does not sync. */
SYMCOLL_API symcoll_status_t symcoll_team_status(symcoll_team_t team);

/* The links between the GPUs of the job as text: the number of PEs, then one row per WORLD
 * PE with its link to every PE: "X" itself, "SAME" the same GPU, "NV<k>" k NVLinks (NV0:
 * count unknown), "PIX" PCIe P2P, "-" no load/store path, "NET" a PE of another node
 * (symcoll-perf --topology-file reads this form; symcoll_explain plans a job with NET links
 * across its nodes). Writes at most len bytes, NUL-terminated, and returns the length of the whole
 * text (buf NULL and len 0 measure it); 0 on error (NOT_INITIALIZED, INVALID_ARGUMENT). */
SYMCOLL_API size_t symcoll_topology_text(char *buf, size_t len);

/* How this PE shares its GPU, as init agreed it. */
typedef struct {
    int sm_share;   /* multiprocessors every PE's collective grids are sized to: the job's
                       least share, so that every block of every PE can be resident at once */
    int device_sms; /* multiprocessors of this PE's GPU, from the shares and their
                       CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (under MPS the GPU reports a share) */
    int pes_on_gpu; /* PEs of the job on this PE's GPU (1: a GPU of its own) */
    int mps;        /* 1: the PEs on this GPU run under MPS; 0: time-sliced or alone */
    int divided;    /* 1: their shares (MPS) or whole GPUs (time slicing) add up to more than
                       the GPU, so init divided it among them */
} symcoll_gpu_sharing_t;

/* Fills *out. Errors: NOT_INITIALIZED, INVALID_ARGUMENT (out NULL). */
SYMCOLL_API symcoll_status_t symcoll_gpu_sharing(symcoll_gpu_sharing_t *out);

/* Reads a size as every symcoll setting does (SYMCOLL_SYMMETRIC_SIZE, symcoll-perf's -b/-e,
 * NVSHMEM_SYMMETRIC_SIZE): a decimal number, a fraction too, then an optional k, m, g or t
 * (powers of 1024, any case) and an optional b: "4096", "512m", "1.5g", "16GB". A fraction of
 * a byte is rounded up. Callable before init. Errors: INVALID_ARGUMENT (text is not a size,
 * quoted, or overflows; bytes NULL); *bytes is untouched then. */
SYMCOLL_API symcoll_status_t symcoll_parse_bytes(const char *text, size_t *bytes);

/* The version of the library that runs, as SYMCOLL_VERSION (a program may have been built
 * against another header). Callable before init. Errors: INVALID_ARGUMENT (version NULL). */
SYMCOLL_API symcoll_status_t symcoll_get_version(int *version);

/* Reason for the last failure on this thread, "" if none. */
SYMCOLL_API const char *symcoll_last_error(void);
/* Constant name of a status, datatype or op ("SYMCOLL_ERROR_SYMMETRY", "float32", "sum"). */
SYMCOLL_API const char *symcoll_status_string(symcoll_status_t status);
SYMCOLL_API const char *symcoll_datatype_name(symcoll_datatype_t type);
SYMCOLL_API const char *symcoll_op_name(symcoll_op_t op);
/* Size in bytes of one element of type, 0 for an invalid type. */
SYMCOLL_API size_t symcoll_datatype_size(symcoll_datatype_t type);
/* 1 for the floating-point types (float16, bfloat16, float32, float64), on which the bitwise
 * ops (and, or, xor) are not defined; 0 for the others and an invalid type. */
SYMCOLL_API int symcoll_datatype_is_float(symcoll_datatype_t type);

/* ---- Device handle (passed by value to user kernels; see symcoll_device.cuh) ---- */

/* Identifies the operation in a timeout record (symcoll_collective_name names it). */
typedef enum {
    SYMCOLL_COLL_NONE = 0,
    SYMCOLL_COLL_BARRIER = 1,
    SYMCOLL_COLL_BROADCAST = 2,
    SYMCOLL_COLL_REDUCE = 3,
    SYMCOLL_COLL_FCOLLECT = 4,
    SYMCOLL_COLL_ALLTOALL = 5,
    SYMCOLL_COLL_SIGNAL_WAIT = 6,
    SYMCOLL_COLL_DEVICE_API = 7,
    SYMCOLL_COLL_HALO = 8,
    SYMCOLL_COLL_REDUCE_SCATTER = 9,
    SYMCOLL_COLL_ALLTOALLV = 10
} symcoll_collective_t;

/* Constant name of a collective ("reduce"), "none" for an unknown value. */
SYMCOLL_API const char *symcoll_collective_name(symcoll_collective_t collective);

/* Expert tuning: makes every later call of collective (one with a choice of algorithms:
 * broadcast, reduce, fcollect, alltoall, reduce_scatter, alltoallv) in this process use algorithm,
 * ahead of SYMCOLL_ALGO_<COLLECTIVE>, the tuning file and the built-in table. The names are those
 * SYMCOLL_ALGO_<COLLECTIVE> takes, in any case
 * ("ll", "one_shot", "two_shot", "push", "pull", "ce"; symcoll-perf --help lists them). blocks and
 * threads act as a tuning-table row's: the most blocks the grid may use (fewer for a small
 * message, never more than the job's fewest multiprocessors) and the block size (the LL algorithms
 * use fewer threads for a small message); 0 keeps the grid the table gives the algorithm.
 * blocks is at most 128 (16 for "ll", 1 for "ce"), threads a multiple of 32 up to 512 (32 for
 * "ce"). algorithm NULL or "" clears the override (blocks and threads must then be 0).
 * A call captured into a CUDA graph keeps the choice made at capture. Needs no init; every
 * PE of a team must set the same override. Not thread-safe: set it while no other thread
 * enqueues collectives. Errors: INVALID_ARGUMENT (names the argument and its value). */
SYMCOLL_API symcoll_status_t symcoll_tuning_override(symcoll_collective_t collective,
                                                     const char *algorithm, int blocks,
                                                     int threads);

/* What decided a collective's algorithm and grid: OVERRIDE to MODEL first to last in
 * precedence; FIXED where there was nothing to decide. */
typedef enum {
    SYMCOLL_CHOICE_OVERRIDE = 0,    /* symcoll_tuning_override */
    SYMCOLL_CHOICE_ENV = 1,         /* SYMCOLL_ALGO_<COLLECTIVE> */
    SYMCOLL_CHOICE_TUNING_FILE = 2, /* a row of SYMCOLL_TUNING_FILE */
    SYMCOLL_CHOICE_TABLE = 3,       /* a row of the built-in table */
    SYMCOLL_CHOICE_MODEL = 4,       /* the cost model: no row fits */
    SYMCOLL_CHOICE_FIXED = 5        /* no choice: the collective has one algorithm (barrier), or
                                       the call launches nothing (count 0) */
} symcoll_choice_source_t;

/* The layout of symcoll_explain_query_t and symcoll_explanation_t that a caller was compiled
 * with: query.version says it, and the library fills *out in that layout (a later library
 * keeps serving this one). */
#define SYMCOLL_EXPLAIN_VERSION 1

/* A call to explain: a collective of a team of this job, or of a job described by its links. */
typedef struct {
    uint32_t version;                /* SYMCOLL_EXPLAIN_VERSION */
    symcoll_collective_t collective; /* barrier, broadcast, reduce, fcollect, alltoall,
                                        reduce_scatter or alltoallv (with the moe calls) */
    size_t count;            /* as the call takes it: count (broadcast, reduce), count_per_pe
                                (fcollect, alltoall, reduce_scatter), dst_capacity (alltoallv,
                                moe dispatch and combine); barrier ignores it */
    symcoll_datatype_t type; /* barrier ignores it */
    symcoll_team_t team;     /* a team this PE is a member of (after symcoll_init), or
                                SYMCOLL_TEAM_INVALID for the job that topology describes */
    const char *topology;    /* with SYMCOLL_TEAM_INVALID only: the links as symcoll_topology_text
                                writes them, every PE a member of the team; else NULL */
    int sm_count;            /* with SYMCOLL_TEAM_INVALID only: multiprocessors per PE, as
                                symcoll_gpu_sharing's sm_share (0: tuning's assumption, 132) */
} symcoll_explain_query_t;

typedef struct {
    char algorithm[32];             /* a name that SYMCOLL_ALGO_<COLLECTIVE> takes; "" when
                                       the call launches nothing (count 0) */
    int blocks;                     /* the grid the call launches (0: none) */
    int threads;                    /* its block size (0: none) */
    symcoll_choice_source_t source; /* what decided */
    char link[16];                  /* the team's slowest link: "same-gpu", "nvlink", "pcie-p2p"
                                       or "no-p2p" */
    char why[192];                  /* one line: the override or variable, the table row (file
                                       and line), the model's estimate of every algorithm, "the
                                       only algorithm", or "nothing to move (count 0)" */
} symcoll_explanation_t;

/* Fills *out with the algorithm and grid that the call of query would use, and why: the
 * choice of symcoll_tuning_override, SYMCOLL_ALGO_<COLLECTIVE>, SYMCOLL_TUNING_FILE, the
 * built-in table and the cost model, in that order, as the collective itself makes it; a
 * collective with one algorithm has it (source SYMCOLL_CHOICE_FIXED), and a call of count 0,
 * which returns at once and launches nothing, has algorithm "" and a grid of 0 x 0 (source
 * SYMCOLL_CHOICE_FIXED, why "nothing to move (count 0)").
 * For a team of this job the settings are those init read and the override of now. A
 * described job (team SYMCOLL_TEAM_INVALID) needs no init and no GPU (symcoll-perf --explain):
 * before init the SYMCOLL_* variables are read now, as init would read them (and left
 * unpublished: a concurrent init or collective sees no change), after init init's values
 * stand; SYMCOLL_TUNING_FILE is checked against the topology's PE count and
 * slowest link. Moves no data and touches no GPU. Errors: INVALID_ARGUMENT (query or out NULL,
 * a collective without algorithms, a bad type, count overflowing, team and topology both or
 * neither given, a topology that does not parse, sm_count negative or given with a team, a bad
 * SYMCOLL_* variable or tuning file, a version other than SYMCOLL_EXPLAIN_VERSION; the message
 * names it and its value), NOT_INITIALIZED (a
 * team before init), TIMEOUT (a team broken by a timeout), UNSUPPORTED (a call that would
 * move data or synchronize over a team, or described job, whose slowest link is "no-p2p":
 * the call itself fails so). A team across nodes, or a described job whose topology has NET
 * links (its nodes), for the calls that run there (barrier, broadcast, reduce,
 * reduce_scatter, fcollect, alltoall, alltoallv): the choice for the node's steps, link the
 * node's (for a described job the slowest inside any node), and why starts "across N nodes
 * (the plan)"; with one PE of the team per node the data steps are copies (algorithm "", grid
 * 0 x 0, source SYMCOLL_CHOICE_FIXED); alltoallv's are fixed kernels (algorithm "", source
 * SYMCOLL_CHOICE_FIXED); UNSUPPORTED, as the call, where the nodes are not contiguous in rank
 * or the team holds part of a node but more than one PE of it, and, for all but the barrier,
 * where its nodes hold different numbers of its PEs. */
SYMCOLL_API symcoll_status_t symcoll_explain(const symcoll_explain_query_t *query,
                                             symcoll_explanation_t *out);

/* Written by the first device wait of a team that times out (host-mapped memory). */
typedef struct {
    volatile int32_t expired; /* 0, or 1 once a wait has timed out */
    int32_t collective;       /* symcoll_collective_t */
    int32_t team;             /* team handle */
    int32_t missing_pe;       /* WORLD PE that did not arrive, -1 if unknown */
    uint64_t epoch;           /* the value that was awaited */
} symcoll_timeout_record_t;

/* Version of symcoll_device_t and of the device API's view of a team's synchronization area.
 * A kernel compiled against one version works with a library that fills that version. */
#define SYMCOLL_DEVICE_HANDLE_VERSION 3 /* 2: the grid word of the sync area; 3: proxy_ring */

typedef struct {
    uint32_t version;     /* SYMCOLL_DEVICE_HANDLE_VERSION it was filled for; 0: no handle */
    uint32_t size;        /* sizeof(symcoll_device_t) of that version */
    char *heap_base;      /* this PE's heap in this PE's address space */
    uint64_t heap_stride; /* PE p's heap starts at heap_base + (p - my_pe) * heap_stride */
    uint64_t heap_size;   /* usable bytes of one PE's heap */
    uint64_t reachable;   /* bit p: WORLD PE p is load/store reachable (p < SYMCOLL_MAX_PES) */
    int32_t my_pe, n_pes; /* WORLD numbering */
    int32_t team;         /* team handle */
    int32_t team_start, team_stride, team_size, team_my_pe; /* WORLD PE of member i:
                                                                start + i * stride */
    char *team_sync;                  /* this PE's copy of the team's synchronization area */
    uint64_t timeout_ns;              /* 0: device waits never time out */
    symcoll_timeout_record_t *record; /* the team's timeout record (host-mapped) */
    symcoll_proxy_ring_t proxy_ring;  /* RMA to PEs of other nodes (entries NULL on one node) */
} symcoll_device_t;

/* Fills *out with the handle of team for user kernels. version and size are those of the
 * caller's header (SYMCOLL_DEVICE_HANDLE_VERSION, sizeof(symcoll_device_t)); use
 * symcoll_device_handle below, which passes them. Errors: INVALID_ARGUMENT (out NULL, bad
 * team), NOT_INITIALIZED, UNSUPPORTED (a version or size this library does not fill: rebuild
 * the kernels against the installed headers). On error *out is zeroed (team_size 0). */
SYMCOLL_API symcoll_status_t symcoll_device_handle_get(symcoll_team_t team, uint32_t version,
                                                       size_t size, symcoll_device_t *out);

/* Handle of team for user kernels (by value), checked against this header's version. On
 * error the handle has team_size 0 and symcoll_last_error() says why. */
static inline symcoll_device_t symcoll_device_handle(symcoll_team_t team) {
    symcoll_device_t handle;
    symcoll_device_handle_get(team, SYMCOLL_DEVICE_HANDLE_VERSION, sizeof handle, &handle);
    return handle;
}

#ifdef __cplusplus
}
#endif

#include "symcoll_halo.h"
#endif
