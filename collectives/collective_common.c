/* Host steps shared by the data collectives: checks, then tuning, then kernel arguments. */
#include "collective_common.h"
#include "copy_engine.h"
#include "env.h"
#include "tuning_override.h"

symcoll_status_t symcoll_coll_begin(symcoll_coll_call_t *call, const char *fn,
                                    symcoll_collective_t collective, symcoll_team_t team,
                                    symcoll_datatype_t type, cudaStream_t stream) {
    call->fn = fn;
    call->collective = collective;
    symcoll_status_t st = symcoll_team_for_call(fn, team, &call->team);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st != SYMCOLL_SUCCESS)
        return st;
    call->elem_size = symcoll_datatype_size(type);
    if (!call->elem_size)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: type %d is not a symcoll_datatype_t", fn, (int)type);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_coll_bytes(const symcoll_coll_call_t *call, const char *arg, size_t count,
                                    size_t per_count, size_t *bytes) {
    return symcoll_check_count(call->fn, arg, count, call->elem_size * per_count, bytes);
}

symcoll_status_t symcoll_coll_check_buffers(const symcoll_coll_call_t *call, void *dst,
                                            size_t dst_bytes, const void *src, size_t src_bytes,
                                            bool in_place_ok) {
    symcoll_status_t st = symcoll_check_symmetric(call->fn, "dst", dst, dst_bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(call->fn, "src", src, src_bytes);
    if (st == SYMCOLL_SUCCESS && !(in_place_ok && dst == src))
        st = symcoll_check_no_overlap(call->fn, "dst", dst, dst_bytes, "src", src, src_bytes);
    return st;
}

symcoll_tuning_query_t symcoll_coll_query(symcoll_collective_t collective, size_t tuning_bytes,
                                          size_t elem_size, int team_size, topo_class_t topo,
                                          int sm_count, const char *env_forced,
                                          const symcoll_tuning_file_t *file) {
    symcoll_tuning_query_t query = {
        .collective = collective,
        .bytes = tuning_bytes,
        .elem_size = elem_size,
        .team_size = team_size,
        .topo = topo,
        .sm_count = sm_count,
        .file = file->n_rows ? file : NULL,
    };
    if (!symcoll_tuning_override_apply(&query)) {
        query.forced = env_forced;
        query.forced_by = SYMCOLL_CHOICE_ENV;
    }
    return query;
}

symcoll_status_t symcoll_coll_prepare(const symcoll_coll_call_t *call, size_t tuning_bytes,
                                      void *dst, const void *src, size_t bytes,
                                      symcoll_coll_args_t *args, symcoll_choice_t *choice) {
    const symcoll_team_state_t *t = call->team;
    symcoll_status_t st = symcoll_check_team_p2p(call->fn, t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_tuning_query_t query = symcoll_coll_query(
        call->collective, tuning_bytes, call->elem_size, t->size, t->topo_class, symcoll_g.sm_count,
        symcoll_env_algo(call->collective), &symcoll_g.tuning_file);
    st = symcoll_tuning_choose(&query, choice);
    if (st != SYMCOLL_SUCCESS)
        return symcoll_set_error(st, "%s: %s", call->fn, choice->why);
    *args = (symcoll_coll_args_t){
        .h = symcoll_team_device(t),
        .dst = dst,
        .src = src,
        .bytes = bytes,
        .root = 0,
        .algo = choice->algo,
        .collective = call->collective,
    };
    return SYMCOLL_SUCCESS;
}

cudaError_t symcoll_coll_launch(const symcoll_coll_args_t *args, const symcoll_choice_t *choice,
                                symcoll_datatype_t type, symcoll_op_t op, cudaStream_t stream) {
    switch (args->collective) {
    case SYMCOLL_COLL_BROADCAST:
        return choice->algo == SYMCOLL_BROADCAST_CE
                   ? symcoll_broadcast_copy_engine(args, stream)
                   : symcoll_broadcast_launch(args, choice->blocks, choice->threads, stream);
    case SYMCOLL_COLL_FCOLLECT:
        return symcoll_fcollect_launch(args, choice->blocks, choice->threads, stream);
    case SYMCOLL_COLL_ALLTOALL:
        return symcoll_alltoall_launch(args, choice->blocks, choice->threads, stream);
    default:
        return symcoll_reduce_launch(args, type, op, choice->blocks, choice->threads, stream);
    }
}

symcoll_status_t symcoll_coll_launched(const symcoll_coll_call_t *call, cudaError_t err) {
    return symcoll_cuda_status(err, call->fn, "kernel launch");
}

symcoll_status_t symcoll_coll_check_counted(const symcoll_coll_call_t *call, void *dst,
                                            const void *src, size_t count, int root,
                                            size_t *bytes) {
    *bytes = 0;
    symcoll_status_t st = symcoll_coll_bytes(call, "count", count, 1, bytes);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_check_buffers(call, dst, *bytes, src, *bytes, true);
    if (st == SYMCOLL_SUCCESS && (root < 0 || root >= call->team->size))
        st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                               "%s: root %d out of range for team %d of %d PEs", call->fn, root,
                               (int)call->team->handle, call->team->size);
    if (st != SYMCOLL_SUCCESS)
        *bytes = 0;
    return st;
}

static symcoll_status_t check_op(const char *fn, symcoll_datatype_t type, symcoll_op_t op) {
    if ((int)op < 0 || op >= SYMCOLL_NUM_OPS)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: op %d is not a symcoll_op_t",
                                 fn, (int)op);
    if (symcoll_datatype_is_float(type) &&
        (op == SYMCOLL_AND || op == SYMCOLL_OR || op == SYMCOLL_XOR))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: op %s is defined for integer types only, not for type %s", fn,
                                 symcoll_op_name(op), symcoll_datatype_name(type));
    return SYMCOLL_SUCCESS;
}

/* The reduction kernels load whole elements, and 16-byte vectors after an element-aligned
 * head: a pointer into the middle of an element would fault the GPU (a sticky error). */
static symcoll_status_t check_aligned(const char *fn, const char *arg, const void *p,
                                      size_t elem_size) {
    if ((uintptr_t)p % elem_size == 0)
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                             "%s: %s %p is not aligned to its %zu-byte elements", fn, arg, p,
                             elem_size);
}

symcoll_status_t symcoll_coll_check_reduction(const symcoll_coll_call_t *call,
                                              symcoll_datatype_t type, symcoll_op_t op,
                                              const void *dst, const void *src) {
    symcoll_status_t st = check_op(call->fn, type, op);
    if (st == SYMCOLL_SUCCESS)
        st = check_aligned(call->fn, "dst", dst, call->elem_size);
    if (st == SYMCOLL_SUCCESS)
        st = check_aligned(call->fn, "src", src, call->elem_size);
    return st;
}
