/* fcollect: dst (count_per_pe x team size elements) = every member's src in team order. */
#include "collective_common.h"

symcoll_status_t symcoll_fcollect_on_stream(symcoll_team_t team, void *dst, const void *src,
                                            size_t count_per_pe, symcoll_datatype_t type,
                                            cudaStream_t stream) {
    return symcoll_coll_exchange("symcoll_fcollect_on_stream", SYMCOLL_COLL_FCOLLECT, team, dst,
                                 src, count_per_pe, type, stream, symcoll_fcollect_launch);
}
