/* A variable-size allgather over the bootstrap's fixed-size one: the sizes first, then every
 * blob padded to the largest, so that each PE passes the same byte count to every exchange. */
#include <stdlib.h>
#include <string.h>
#include "bootstrap.h"
#include "internal.h"

symcoll_status_t symcoll_bootstrap_allgatherv(symcoll_bootstrap_t *b, const char *fn,
                                              const void *mine, size_t bytes,
                                              symcoll_bootstrap_blobs_t *out) {
    memset(out, 0, sizeof *out);
    int n = b->size;
    out->sizes = calloc((size_t)n, sizeof *out->sizes);
    symcoll_status_t st = out->sizes ? SYMCOLL_SUCCESS
                                     : symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                                         "%s: no memory for %d sizes", fn, n);
    /* Agreed before each exchange: a PE that failed to allocate must not leave the others
     * waiting in an allgather it never joins. */
    st = symcoll_bootstrap_agree(b, fn, st);
    uint64_t my_size = bytes;
    if (st == SYMCOLL_SUCCESS)
        st = b->allgather(b, &my_size, out->sizes, sizeof my_size);
    char *padded = NULL;
    if (st == SYMCOLL_SUCCESS) {
        for (int pe = 0; pe < n; pe++)
            out->stride = out->sizes[pe] > out->stride ? (size_t)out->sizes[pe] : out->stride;
        padded = calloc(1, out->stride ? out->stride : 1);
        out->data = calloc((size_t)n, out->stride ? out->stride : 1);
        if (!padded || !out->data)
            st = symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                   "%s: no memory for %d blobs of %zu bytes", fn, n, out->stride);
        st = symcoll_bootstrap_agree(b, fn, st);
    }
    if (st == SYMCOLL_SUCCESS) {
        memcpy(padded, mine, bytes);
        st = b->allgather(b, padded, out->data, out->stride);
    }
    free(padded);
    if (st != SYMCOLL_SUCCESS)
        symcoll_bootstrap_blobs_free(out);
    return st;
}

void symcoll_bootstrap_blobs_free(symcoll_bootstrap_blobs_t *blobs) {
    free(blobs->sizes);
    free(blobs->data);
    memset(blobs, 0, sizeof *blobs);
}
