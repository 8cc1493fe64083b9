/* Names of the operations that a timeout record can name: the registry's collectives
 * (kernels/collectives.def) and the other operations that wait. */
#include "coll_algorithms.h"
#include "symcoll.h"

const char *symcoll_collective_name(symcoll_collective_t collective) {
    switch (collective) {
#define NAME_CASE(id, name, nccl, tuned, flow, algorithms)                                         \
    case SYMCOLL_COLL_##id:                                                                        \
        return #name;
        SYMCOLL_COLLECTIVES(NAME_CASE)
#undef NAME_CASE
    case SYMCOLL_COLL_SIGNAL_WAIT:
        return "signal_wait";
    case SYMCOLL_COLL_DEVICE_API:
        return "device_api";
    case SYMCOLL_COLL_HALO:
        return "halo";
    case SYMCOLL_COLL_NONE:
        break;
    }
    return "none";
}
