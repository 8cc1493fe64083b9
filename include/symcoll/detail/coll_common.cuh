/* Internal, not API: the device helpers under every collective algorithm, for the library's
 * kernels and the device API's collectives alike: team members, equal shares of the work and
 * group-wide copies at the widest common alignment. */
#ifndef SYMCOLL_DETAIL_COLL_COMMON_CUH
#define SYMCOLL_DETAIL_COLL_COMMON_CUH

#include <stdint.h>
#include "symcoll/detail/coll_args.h"
#include "symcoll_device.cuh"

/* The team member `step` places after this PE (modulo the team): PEs that walk their peers
 * this way start with different ones. */
SYMCOLL_DEV int symcoll_coll_member_after(const symcoll_device_t &h, int step) {
    return (h.team_my_pe + step) % h.team_size;
}

/* Team member `member`'s copy of the symmetric address addr. */
template <typename T>
SYMCOLL_DEV T *symcoll_coll_member_ptr(const symcoll_device_t &h, T *addr, int member) {
    return symcoll_dev_peer(h, addr, symcoll_dev_team_to_world(h, member));
}

/* Part `index` of `parts` equal parts of [0, total), with boundaries at multiples of align. */
SYMCOLL_DEV void symcoll_coll_share(size_t total, unsigned parts, unsigned index, size_t align,
                                    size_t *begin, size_t *end) {
    size_t share = (total + parts - 1) / parts;
    share = (share + align - 1) / align * align;
    size_t first = (size_t)index * share;
    *begin = first < total ? first : total;
    *end = first + share < total ? first + share : total;
}

/* Group-wide copy at the widest access that dst and src allow together: the device API's wide
 * copy (any length: the ends of a short copy go one byte per thread). */
SYMCOLL_DEV void symcoll_coll_copy(const symcoll_dev_group_t &g, char *dst, const char *src,
                                   size_t len) {
    symcoll_dev_copy_wide(dst, src, len, g.lane, g.lanes);
}

#endif
