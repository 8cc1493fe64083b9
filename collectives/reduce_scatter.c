/* reduce_scatter (ncclReduceScatter semantics): this PE's dst (count_per_pe elements) = op
 * over every member's block me of src (count_per_pe * n elements); in place when dst is
 * block me of src. The reduce kernels run it. */
#include "nodes_plan.h"

symcoll_status_t symcoll_reduce_scatter_on_stream(symcoll_team_t team, void *dst, const void *src,
                                                  size_t count_per_pe, symcoll_datatype_t type,
                                                  symcoll_op_t op, cudaStream_t stream) {
    symcoll_coll_call_t call;
    size_t total = 0;
    symcoll_status_t st = symcoll_coll_begin(&call, "symcoll_reduce_scatter_on_stream",
                                             SYMCOLL_COLL_REDUCE_SCATTER, team, type, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_check_reduction(&call, type, op, dst, src);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_coll_bytes(&call, "count_per_pe", count_per_pe, (size_t)call.team->size,
                                &total);
    size_t block = st == SYMCOLL_SUCCESS ? total / (size_t)call.team->size : 0;
    /* As addresses: src may be NULL here (refused below), where pointer arithmetic is not
     * defined. */
    bool in_place = st == SYMCOLL_SUCCESS &&
                    (uintptr_t)dst == (uintptr_t)src + (size_t)call.team->my_pe * block;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(call.fn, "dst", dst, block);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_symmetric(call.fn, "src", src, total);
    if (st == SYMCOLL_SUCCESS && !in_place && dst == src)
        st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                               "%s: dst == src %p is not in place on PE %d: in place, dst is this "
                               "PE's block of src (src + %d * count_per_pe elements)",
                               call.fn, src, call.team->my_pe, call.team->my_pe);
    if (st == SYMCOLL_SUCCESS && !in_place)
        st = symcoll_check_no_overlap(call.fn, "dst", dst, block, "src", src, total);
    if (st != SYMCOLL_SUCCESS || block == 0)
        return st;
    if (symcoll_nodes_spans(call.team))
        return symcoll_nodes_reduce_scatter(&call, dst, src, count_per_pe, type, op, stream);
    symcoll_coll_args_t args;
    symcoll_choice_t choice;
    st = symcoll_coll_prepare(&call, total, dst, src, block, &args, &choice);
    return st != SYMCOLL_SUCCESS
               ? st
               : symcoll_coll_launched(&call, symcoll_reduce_launch(&args, type, op, choice.blocks,
                                                                    choice.threads, stream));
}
