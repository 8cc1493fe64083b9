/* Agreements over the bootstrap: a step's status, the smallest of a value. */
#include "bootstrap.h"
#include "internal.h"

/* Every PE's value into all. On the stack: a PE out of host memory must still join. */
static symcoll_status_t gather(symcoll_bootstrap_t *b, const char *fn, int32_t mine,
                               int32_t all[SYMCOLL_MAX_PES]) {
    if (b->size > SYMCOLL_MAX_PES)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED, "%s: %d PEs, more than %d", fn, b->size,
                                 SYMCOLL_MAX_PES);
    return b->allgather(b, &mine, all, sizeof mine);
}

symcoll_status_t symcoll_bootstrap_agree(symcoll_bootstrap_t *b, const char *fn,
                                         symcoll_status_t mine) {
    int32_t all[SYMCOLL_MAX_PES];
    symcoll_status_t st = gather(b, fn, (int32_t)mine, all);
    if (mine != SYMCOLL_SUCCESS)
        st = mine;
    for (int pe = 0; pe < b->size && st == SYMCOLL_SUCCESS; pe++)
        if (all[pe] != SYMCOLL_SUCCESS)
            st = symcoll_set_error((symcoll_status_t)all[pe],
                                   "%s: PE %d failed (%s); its symcoll_last_error() says why", fn,
                                   pe, symcoll_status_string((symcoll_status_t)all[pe]));
    return st;
}

symcoll_status_t symcoll_bootstrap_min(symcoll_bootstrap_t *b, const char *fn, int mine,
                                       int *smallest) {
    int32_t all[SYMCOLL_MAX_PES];
    symcoll_status_t st = gather(b, fn, mine, all);
    *smallest = mine;
    for (int pe = 0; pe < b->size && st == SYMCOLL_SUCCESS; pe++)
        *smallest = all[pe] < *smallest ? all[pe] : *smallest;
    return st;
}
