/* alltoall: block j of this member's src (count_per_pe elements) into block <this member> of
 * member j's dst; src and dst both hold count_per_pe x team size elements. */
#include "collective_common.h"

symcoll_status_t symcoll_alltoall_on_stream(symcoll_team_t team, void *dst, const void *src,
                                            size_t count_per_pe, symcoll_datatype_t type,
                                            cudaStream_t stream) {
    return symcoll_coll_exchange("symcoll_alltoall_on_stream", SYMCOLL_COLL_ALLTOALL, team, dst,
                                 src, count_per_pe, type, stream, symcoll_alltoall_launch);
}
