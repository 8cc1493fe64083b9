/* reduce (OpenSHMEM semantics: every team member gets the result): dst = op over the
 * members' src, count elements (in place: dst == src). */
#include "nodes_plan.h"

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
        st = symcoll_coll_check_reduction(&call, type, op, dst, src);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_check_counted(&call, dst, src, count, 0, &bytes);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    if (symcoll_nodes_spans(call.team))
        return symcoll_nodes_reduce(&call, dst, src, count, type, op, stream);
    st = symcoll_coll_prepare(&call, bytes, dst, src, bytes, &args, &choice);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_coll_launched(
        &call, symcoll_reduce_launch(&args, type, op, choice.blocks, choice.threads, stream));
}
