/* Names of the operations that a timeout record can name. */
#include "symcoll.h"

const char *symcoll_collective_name(symcoll_collective_t collective) {
    switch (collective) {
    case SYMCOLL_COLL_BARRIER:
        return "barrier";
    case SYMCOLL_COLL_BROADCAST:
        return "broadcast";
    case SYMCOLL_COLL_REDUCE:
        return "reduce";
    case SYMCOLL_COLL_FCOLLECT:
        return "fcollect";
    case SYMCOLL_COLL_ALLTOALL:
        return "alltoall";
    case SYMCOLL_COLL_SIGNAL_WAIT:
        return "signal_wait";
    case SYMCOLL_COLL_DEVICE_API:
        return "device_api";
    case SYMCOLL_COLL_HALO:
        return "halo";
    default:
        return "none";
    }
}
