/* fcollect and alltoall: the same checks and steps, apart from how much src holds and which
 * kernel moves the blocks. */
#include "nodes_plan.h"

symcoll_status_t symcoll_coll_exchange(const char *fn, symcoll_collective_t collective,
                                       symcoll_team_t team, void *dst, const void *src,
                                       size_t count_per_pe, symcoll_datatype_t type,
                                       cudaStream_t stream, symcoll_exchange_launch_t launch) {
    symcoll_coll_call_t call;
    size_t total = 0;
    symcoll_status_t st = symcoll_coll_begin(&call, fn, collective, team, type, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_bytes(&call, "count_per_pe", count_per_pe, (size_t)call.team->size,
                                &total);
    size_t block = st == SYMCOLL_SUCCESS ? total / (size_t)call.team->size : 0;
    size_t src_bytes = collective == SYMCOLL_COLL_ALLTOALL ? total : block;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_check_buffers(&call, dst, total, src, src_bytes, false);
    if (st != SYMCOLL_SUCCESS || block == 0)
        return st;
    if (symcoll_nodes_spans(call.team))
        return collective == SYMCOLL_COLL_ALLTOALL
                   ? symcoll_nodes_alltoall(&call, dst, src, block, stream)
                   : symcoll_nodes_fcollect(&call, dst, src, block, stream);
    symcoll_coll_args_t args;
    symcoll_choice_t choice;
    st = symcoll_coll_prepare(&call, total, dst, src, block, &args, &choice);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_coll_launched(&call, launch(&args, choice.blocks, choice.threads, stream));
}
