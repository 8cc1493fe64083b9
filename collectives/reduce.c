/* reduce (OpenSHMEM semantics: every team member gets the result): dst = op over the
 * members' src, count elements (in place: dst == src). */
#include "collective_common.h"

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

symcoll_status_t symcoll_reduce_on_stream(symcoll_team_t team, void *dst, const void *src,
                                          size_t count, symcoll_datatype_t type, symcoll_op_t op,
                                          cudaStream_t stream) {
    symcoll_coll_call_t call;
    symcoll_coll_args_t args;
    symcoll_choice_t choice;
    size_t bytes = 0;
    symcoll_status_t st = symcoll_coll_begin(&call, "symcoll_reduce_on_stream", SYMCOLL_COLL_REDUCE,
                                             team, type, stream);
    if (st == SYMCOLL_SUCCESS)
        st = check_op(call.fn, type, op);
    if (st == SYMCOLL_SUCCESS)
        st = check_aligned(call.fn, "dst", dst, call.elem_size);
    if (st == SYMCOLL_SUCCESS)
        st = check_aligned(call.fn, "src", src, call.elem_size);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_prepare_counted(&call, dst, src, count, 0, &bytes, &args, &choice);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    return symcoll_coll_launched(
        &call, symcoll_reduce_launch(&args, type, op, choice.blocks, choice.threads, stream));
}
