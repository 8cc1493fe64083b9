/* Host steps shared by broadcast, reduce, fcollect, alltoall and reduce_scatter: argument checks,
 * algorithm choice and the kernel arguments. No host sync, allocation or copy on any of these
 * paths. */
#ifndef SYMCOLL_COLLECTIVE_COMMON_H
#define SYMCOLL_COLLECTIVE_COMMON_H

#include <stdbool.h>
#include "coll_launch.h"
#include "internal.h"
#include "tuning.h"

/* One call in progress. */
typedef struct {
    const char *fn;
    symcoll_collective_t collective;
    symcoll_team_state_t *team;
    size_t elem_size;
} symcoll_coll_call_t;

/* Checks init, team (membership, not broken), stream and datatype; fills *call. */
symcoll_status_t symcoll_coll_begin(symcoll_coll_call_t *call, const char *fn,
                                    symcoll_collective_t collective, symcoll_team_t team,
                                    symcoll_datatype_t type, cudaStream_t stream);

/* count elements of this call's type (times per_count) in bytes, checked for overflow. */
symcoll_status_t symcoll_coll_bytes(const symcoll_coll_call_t *call, const char *arg, size_t count,
                                    size_t per_count, size_t *bytes);

/* dst and src are symmetric ranges of dst_bytes and src_bytes; they do not overlap, except
 * that dst == src is allowed when in_place_ok. */
symcoll_status_t symcoll_coll_check_buffers(const symcoll_coll_call_t *call, void *dst,
                                            size_t dst_bytes, const void *src, size_t src_bytes,
                                            bool in_place_ok);

/* What a collective asks tuning for tuning_bytes (nccl-tests convention) on a team of team_size
 * PEs whose slowest link is topo, given the job's SM share and tuning file (no rows: none):
 * symcoll_tuning_override's algorithm, else env_forced (SYMCOLL_ALGO_<COLLECTIVE>'s, "" for
 * none), else automatic. The settings come as arguments, the file loaded from their
 * SYMCOLL_TUNING_FILE, so that symcoll_explain can ask with settings it has not published. */
symcoll_tuning_query_t symcoll_coll_query(symcoll_collective_t collective, size_t tuning_bytes,
                                          size_t elem_size, int team_size, topo_class_t topo,
                                          int sm_count, const char *env_forced,
                                          const symcoll_tuning_file_t *file);

/* Picks the algorithm and grid for a message of tuning_bytes (nccl-tests convention) and
 * fills *args (team handle, dst, src, bytes, algo). UNSUPPORTED for a team whose members
 * cannot all reach each other with loads and stores. */
symcoll_status_t symcoll_coll_prepare(const symcoll_coll_call_t *call, size_t tuning_bytes,
                                      void *dst, const void *src, size_t bytes,
                                      symcoll_coll_args_t *args, symcoll_choice_t *choice);

/* reduce and reduce_scatter: op is a symcoll_op_t defined for type, and dst and src are
 * aligned to the element size (the kernels load whole elements). */
symcoll_status_t symcoll_coll_check_reduction(const symcoll_coll_call_t *call,
                                              symcoll_datatype_t type, symcoll_op_t op,
                                              const void *dst, const void *src);

/* The kernels (or, for broadcast's "ce", the copies) of args->collective with the chosen grid:
 * broadcast, fcollect, alltoall, reduce and reduce_scatter (type and op for the reductions). */
cudaError_t symcoll_coll_launch(const symcoll_coll_args_t *args, const symcoll_choice_t *choice,
                                symcoll_datatype_t type, symcoll_op_t op, cudaStream_t stream);

/* The call's status after its launch function returned err. */
symcoll_status_t symcoll_coll_launched(const symcoll_coll_call_t *call, cudaError_t err);

/* broadcast and reduce after their own checks: dst and src hold count elements each (dst ==
 * src allowed) and root (0 for reduce) is a team member. *bytes is 0 when there is nothing to
 * move. */
symcoll_status_t symcoll_coll_check_counted(const symcoll_coll_call_t *call, void *dst,
                                            const void *src, size_t count, int root, size_t *bytes);

typedef cudaError_t (*symcoll_exchange_launch_t)(const symcoll_coll_args_t *args, int blocks,
                                                 int threads, cudaStream_t stream);

/* All of fcollect (src: one block of count_per_pe elements) and alltoall (src: one block per
 * member), with fn naming the public call in errors. */
symcoll_status_t symcoll_coll_exchange(const char *fn, symcoll_collective_t collective,
                                       symcoll_team_t team, void *dst, const void *src,
                                       size_t count_per_pe, symcoll_datatype_t type,
                                       cudaStream_t stream, symcoll_exchange_launch_t launch);

#endif
