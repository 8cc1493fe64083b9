/* The job's topology as text, for tools (symcoll-perf) and users. */
#include "internal.h"

size_t symcoll_topology_text(char *buf, size_t len) {
    if (symcoll_check_initialized("symcoll_topology_text") != SYMCOLL_SUCCESS)
        return 0;
    if (!buf && len) {
        symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                          "symcoll_topology_text: buf is NULL and len is %zu", len);
        return 0;
    }
    return symcoll_topology_write(&symcoll_g.topo, buf, len);
}
