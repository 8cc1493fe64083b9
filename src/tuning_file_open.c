/* SYMCOLL_TUNING_FILE as init and symcoll_explain take it: read, then checked against the
 * job it is to serve, since a table measured on other links or PE counts would mislead. */
#include <string.h>
#include "internal.h"

symcoll_status_t symcoll_tuning_file_open(const char *fn, const char *path, int n_pes,
                                          topo_class_t topo, symcoll_tuning_file_t *out) {
    memset(out, 0, sizeof *out);
    if (!*path)
        return SYMCOLL_SUCCESS;
    char why[384];
    if (symcoll_tuning_file_load(path, out, why, sizeof why) != 0 ||
        symcoll_tuning_file_check(out, n_pes, topo, why, sizeof why) != 0) {
        symcoll_tuning_file_free(out);
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: SYMCOLL_TUNING_FILE %s", fn,
                                 why);
    }
    return SYMCOLL_SUCCESS;
}
