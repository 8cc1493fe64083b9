/* Agreement on a step's status over the bootstrap. */
#include "bootstrap.h"
#include "internal.h"

symcoll_status_t symcoll_bootstrap_agree(symcoll_bootstrap_t *b, const char *fn,
                                         symcoll_status_t mine) {
    /* On the stack: a PE out of host memory must still join the exchange. */
    int32_t all[SYMCOLL_MAX_PES], status = (int32_t)mine;
    if (b->size > SYMCOLL_MAX_PES)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED, "%s: %d PEs, more than %d", fn, b->size,
                                 SYMCOLL_MAX_PES);
    symcoll_status_t st = b->allgather(b, &status, all, sizeof status);
    if (mine != SYMCOLL_SUCCESS)
        st = mine;
    for (int pe = 0; pe < b->size && st == SYMCOLL_SUCCESS; pe++)
        if (all[pe] != SYMCOLL_SUCCESS)
            st = symcoll_set_error((symcoll_status_t)all[pe],
                                   "%s: PE %d failed (%s); its symcoll_last_error() says why", fn,
                                   pe, symcoll_status_string((symcoll_status_t)all[pe]));
    return st;
}
