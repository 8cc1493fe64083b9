/* Internal runtime interface shared by src/, collectives/ and perf/ (not installed). */
#ifndef SYMCOLL_INTERNAL_H
#define SYMCOLL_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include "coll_launch.h"
#include "symcoll.h"
#include "topology.h"
#include "tuning_file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYMCOLL_MAX_TEAMS 64
/* Teams that may exist at once, each with its synchronization area (WORLD and NODE included). */
#define SYMCOLL_TEAM_SYNC_SLOTS 8

typedef struct {
    bool in_use;
    symcoll_team_t handle;
    int start, stride, size; /* WORLD PE of member i: start + i * stride */
    int my_pe;               /* this PE's number in the team, -1 if not a member */
    char *sync;              /* symmetric synchronization area (SYMCOLL_SYNC_BYTES(size)) */
    symcoll_timeout_record_t *record;           /* host-mapped timeout record */
    symcoll_timeout_record_t *record_device;    /* its device address */
    symcoll_overflow_record_t *overflow;        /* host-mapped alltoallv overflow record */
    symcoll_overflow_record_t *overflow_device; /* its device address */
    topo_class_t topo_class;                    /* slowest link between two members */
    int sync_slot;                              /* which area of the pool it uses */
} symcoll_team_state_t;

struct symcoll_bootstrap;
struct symcoll_ucx;
struct symcoll_proxy;

typedef struct {
    bool initialized;
    int my_pe, n_pes;
    int local_rank, local_size;
    int device;
    int sm_count; /* the least SM share of the job's PEs: every PE's grid fits it, and
                     the grids of PEs that share a GPU fit it together */
    symcoll_gpu_sharing_t sharing;
    char *heap_base;    /* this PE's heap (inside the reservation) */
    size_t heap_size;   /* usable bytes per PE */
    size_t heap_stride; /* distance between two PEs' heaps in the reservation */
    uint64_t reachable; /* bit p: WORLD PE p is mapped and load/store reachable */
    uint64_t timeout_ns;
    struct symcoll_bootstrap *boot;
    struct symcoll_ucx *ucx;         /* the transport to the PEs of other nodes; NULL on one node */
    struct symcoll_proxy *proxy;     /* RMA to them over ucx (src/rma_remote.c); NULL on one node */
    symcoll_proxy_ring_t proxy_ring; /* the device API's way to the proxy; zeroed on one node */
    /* Where every node's PEs are contiguous in rank (the NODE team is the whole node): the
     * nodes' first PEs, which meet for a barrier across nodes; n_nodes 0 otherwise. */
    int n_nodes;
    int node_leaders[SYMCOLL_MAX_PES];
    uint64_t *nodes_sync; /* symmetric, SYMCOLL_NODES_SYNC_WORDS words */
    char *nodes_scratch;  /* symmetric, nodes_scratch_size bytes: collectives across nodes */
    size_t nodes_scratch_size;
    struct symcoll_heap *heap;
    symcoll_topology_t topo;
    symcoll_tuning_file_t tuning_file; /* SYMCOLL_TUNING_FILE's rows; none when n_rows is 0 */
    symcoll_team_state_t teams[SYMCOLL_MAX_TEAMS];
} symcoll_state_t;

extern symcoll_state_t symcoll_g;

/* The signals from other nodes that a team's calls across nodes count as they arrive: one word
 * for the leaders' barrier, one for the data, one for alltoallv's headers (a fast peer's data
 * may arrive before a slow peer's header: counted together, the data could pass for the missing
 * header). */
enum {
    SYMCOLL_NODES_BARRIER_ARRIVALS,
    SYMCOLL_NODES_DATA_ARRIVALS,
    SYMCOLL_NODES_HEADER_ARRIVALS,
    SYMCOLL_NODES_KINDS
};
/* symcoll_g.nodes_sync: the arrivals of every team's synchronization slot (a team's own, so
 * that a PE outside a team, already in a later call of another team, cannot pass for a member;
 * only the proxy writes them), then as many counts of the arrivals this PE has waited for
 * (symcoll_arrivals_wait_launch), SYMCOLL_NODES_AWAITED words after their arrivals. Zeroed at
 * init only: a team's calls wait for every signal they send, so whenever none runs a slot's
 * two counts are equal (for a barrier's word, the larger of it and its host-mapped mirror,
 * src/nodes_proxy_memory.c), and the next team of the slot goes on from them (a late signal after a
 * timeout fills in what was missed, as zeroing under the proxy's feet would not). A team
 * broken by a timeout, whose members went on sending to the PE that refused its calls, leaves
 * that PE's arrivals ahead: a later team of the slot would see its first waits there pass early,
 * so symcoll_team_destroy keeps such a team's slot out of use until finalize. */
#define SYMCOLL_NODES_AWAITED (SYMCOLL_TEAM_SYNC_SLOTS * SYMCOLL_NODES_KINDS)
#define SYMCOLL_NODES_SYNC_WORDS (2 * SYMCOLL_NODES_AWAITED)

/* The arrivals word of kind SYMCOLL_NODES_*_ARRIVALS for team t on this PE. */
static inline uint64_t *symcoll_nodes_arrivals(const symcoll_team_state_t *t, int kind) {
    return &symcoll_g.nodes_sync[t->sync_slot * SYMCOLL_NODES_KINDS + kind];
}

/* ---- errors (src/error.c) ---- */
/* Records the reason for status on this thread; returns status. */
symcoll_status_t symcoll_set_error(symcoll_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void symcoll_clear_error(void);
/* Puts back a reason saved from symcoll_last_error() (already logged when it was set). */
void symcoll_restore_error(const char *text);
/* SUCCESS, or CUDA with "fn: what: cudaGetErrorString(err)". */
symcoll_status_t symcoll_cuda_status(cudaError_t err, const char *fn, const char *what);
/* Levels of SYMCOLL_DEBUG. */
enum {
    SYMCOLL_LOG_OFF = 0,
    SYMCOLL_LOG_ERROR = 1, /* every error status as it is set */
    SYMCOLL_LOG_WARN = 2,  /* degraded paths */
    SYMCOLL_LOG_INFO = 3,  /* the init summary */
    SYMCOLL_LOG_DEBUG = 4
};
/* Logs when SYMCOLL_DEBUG >= level. */
void symcoll_debug(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True for the cudaError values that mean "no GPU or no driver here" (34, 35, 100). */
bool symcoll_cuda_error_is_no_gpu(int err);

/* ---- before any GPU work (src/init_attr.c, src/gpu_presence.c) ---- */
/* Every field of attr (NULL is fine); INVALID_ARGUMENT names the field and value. */
symcoll_status_t symcoll_init_check_attr(const symcoll_init_attr_t *attr);
/* What was found when cudaGetDeviceCount gave no device. */
typedef struct {
    int cuda_error;      /* cudaGetDeviceCount's result */
    int driver_found;    /* libcuda.so.1 could be loaded */
    int driver_version;  /* cuDriverGetVersion, 0 if unknown (12080: CUDA 12.8) */
    int runtime_version; /* cudaRuntimeGetVersion */
} symcoll_gpu_probe_t;
/* One clause saying what is missing: the driver, a newer driver, or a device. */
void symcoll_describe_no_gpu(const symcoll_gpu_probe_t *probe, char *out, size_t len);
/* The number of devices; NO_GPU with symcoll_describe_no_gpu's reason when there is none. */
symcoll_status_t symcoll_gpu_count(const char *fn, int *n_devices);

/* ---- argument checks (src/check.c): each sets the error and returns its status ---- */
symcoll_status_t symcoll_check_initialized(const char *fn);
/* [ptr, ptr+bytes) lies inside one live symmetric allocation; arg names the argument. */
symcoll_status_t symcoll_check_symmetric(const char *fn, const char *arg, const void *ptr,
                                         size_t bytes);
/* pe is a WORLD PE that this PE can reach with loads and stores. */
symcoll_status_t symcoll_check_pe(const char *fn, int pe);
/* The stream belongs to this PE's device (or is a default stream). */
symcoll_status_t symcoll_check_stream(const char *fn, cudaStream_t stream);
/* count * elem_size fits in size_t; *bytes gets the product. */
symcoll_status_t symcoll_check_count(const char *fn, const char *arg, size_t count,
                                     size_t elem_size, size_t *bytes);
/* UNSUPPORTED when members of team t cannot reach each other with loads and stores. */
symcoll_status_t symcoll_check_team_p2p(const char *fn, const symcoll_team_state_t *t);
/* The same for a team whose slowest link is topo; whose names it ("team 3"). */
symcoll_status_t symcoll_check_p2p(const char *fn, const char *whose, topo_class_t topo);
/* Fails when [a, a+a_bytes) and [b, b+b_bytes) overlap. */
symcoll_status_t symcoll_check_no_overlap(const char *fn, const char *a_name, const void *a,
                                          size_t a_bytes, const char *b_name, const void *b,
                                          size_t b_bytes);

/* ---- SYMCOLL_TUNING_FILE (src/tuning_file_open.c) ---- */
/* Loads path ("" for none: no rows) into *out and checks its signature against n_pes and topo;
 * INVALID_ARGUMENT with fn, the file, line and reason, out then empty. Free with
 * symcoll_tuning_file_free. */
symcoll_status_t symcoll_tuning_file_open(const char *fn, const char *path, int n_pes,
                                          topo_class_t topo, symcoll_tuning_file_t *out);

/* ---- teams (src/team.c) ---- */
/* Looks up a team for a call: checks init, handle and membership, and whether a timeout
 * has broken it (TIMEOUT with the record's text). */
symcoll_status_t symcoll_team_for_call(const char *fn, symcoll_team_t team,
                                       symcoll_team_state_t **out);
symcoll_device_t symcoll_team_device(const symcoll_team_state_t *t);
/* Team t has PEs that this PE does not reach by loads and stores (PEs of other nodes). */
bool symcoll_nodes_spans(const symcoll_team_state_t *t);
/* The check of a caller's handle version and size against what this library fills (version
 * filled, filled_size bytes); zeroes the caller's out either way. INVALID_ARGUMENT for out
 * NULL, UNSUPPORTED (naming what) for another version or size. */
symcoll_status_t symcoll_handle_version_check(const char *fn, const char *what, uint32_t version,
                                              size_t size, uint32_t filled, size_t filled_size,
                                              void *out);
symcoll_status_t symcoll_teams_create_builtin(void);
/* TIMEOUT naming the first broken team (fn as the message's prefix), or SUCCESS. */
symcoll_status_t symcoll_teams_check_broken(const char *fn);
void symcoll_teams_destroy_all(void);

/* ---- symmetric heap (src/heap.c) ---- */
/* Internal collective allocation (same checks as symcoll_malloc). */
symcoll_status_t symcoll_heap_alloc(const char *fn, size_t bytes, void **out);
symcoll_status_t symcoll_heap_free(const char *fn, void *ptr);
/* Size of the live allocation containing ptr and its start, false if none. */
bool symcoll_heap_find(const void *ptr, void **base, size_t *size);

/* ---- the world PE of a remote copy ---- */
static inline void *symcoll_peer_address(const void *sym, int pe) {
    return (char *)sym + ((long long)pe - symcoll_g.my_pe) * (long long)symcoll_g.heap_stride;
}

#ifdef __cplusplus
}
#endif
#endif
