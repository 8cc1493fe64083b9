/* broadcast: count elements of the root's src into every team member's dst (in place:
 * dst == src). */
#include "nodes_plan.h"

symcoll_status_t symcoll_broadcast_on_stream(symcoll_team_t team, void *dst, const void *src,
                                             size_t count, symcoll_datatype_t type, int root,
                                             cudaStream_t stream) {
    symcoll_coll_call_t call;
    symcoll_coll_args_t args;
    symcoll_choice_t choice;
    size_t bytes = 0;
    symcoll_status_t st = symcoll_coll_begin(&call, "symcoll_broadcast_on_stream",
                                             SYMCOLL_COLL_BROADCAST, team, type, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_check_counted(&call, dst, src, count, root, &bytes);
    if (st != SYMCOLL_SUCCESS || bytes == 0)
        return st;
    if (symcoll_nodes_spans(call.team))
        return symcoll_nodes_broadcast(&call, dst, src, bytes, root, stream);
    st = symcoll_coll_prepare(&call, bytes, dst, src, bytes, &args, &choice);
    if (st != SYMCOLL_SUCCESS)
        return st;
    args.root = root;
    return symcoll_coll_launched(&call,
                                 symcoll_coll_launch(&args, &choice, type, SYMCOLL_SUM, stream));
}
