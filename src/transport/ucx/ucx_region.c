/* Regions: memory registered with UCX, its address, size and packed remote key sent to
 * every PE in one variable-size exchange, and the keys unpacked on the endpoints. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

/* What one PE publishes of its region; the packed key follows. */
typedef struct {
    uint64_t base, bytes;
} region_header_t;

static symcoll_status_t map_local(symcoll_ucx_t *t, symcoll_ucx_region_t *r) {
    ucp_mem_map_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    params.address = r->base;
    params.length = r->bytes;
    params.memory_type =
        r->memory == SYMCOLL_UCX_MEMORY_CUDA ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
    ucs_status_t status = t->lib.ucp_mem_map(t->context, &params, &r->memh);
    if (status != UCS_OK) {
        r->memh = NULL;
        return symcoll_ucx_fail(&t->lib, "ucp_mem_map", status, "%zu bytes at %p", r->bytes,
                                (void *)r->base);
    }
    return SYMCOLL_SUCCESS;
}

/* This PE's header and packed key in one blob (*blob: free it). */
static symcoll_status_t pack_blob(symcoll_ucx_t *t, symcoll_ucx_region_t *r, char **blob,
                                  size_t *bytes) {
    void *key = NULL;
    size_t key_bytes = 0;
    ucs_status_t status = t->lib.ucp_rkey_pack(t->context, r->memh, &key, &key_bytes);
    if (status != UCS_OK)
        return symcoll_ucx_fail(&t->lib, "ucp_rkey_pack", status, "%zu bytes", r->bytes);
    region_header_t header = {(uint64_t)(uintptr_t)r->base, r->bytes};
    *bytes = sizeof header + key_bytes;
    *blob = malloc(*bytes);
    if (*blob) {
        memcpy(*blob, &header, sizeof header);
        memcpy(*blob + sizeof header, key, key_bytes);
    }
    t->lib.ucp_rkey_buffer_release(key);
    return *blob
               ? SYMCOLL_SUCCESS
               : symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                   "symcoll_ucx_region_map: no memory for a %zu-byte key", *bytes);
}

static symcoll_status_t unpack_keys(symcoll_ucx_t *t, symcoll_ucx_region_t *r,
                                    const symcoll_bootstrap_blobs_t *blobs) {
    for (int pe = 0; pe < t->boot->size; pe++) {
        const char *blob = blobs->data + pe * blobs->stride;
        region_header_t header;
        memcpy(&header, blob, sizeof header);
        r->remote_base[pe] = header.base;
        r->remote_bytes[pe] = header.bytes;
        if (!t->peers[pe].ep)
            continue;
        ucs_status_t status =
            t->lib.ucp_ep_rkey_unpack(t->peers[pe].ep, blob + sizeof header, &r->rkeys[pe]);
        if (status != UCS_OK) {
            r->rkeys[pe] = NULL;
            return symcoll_ucx_fail(&t->lib, "ucp_ep_rkey_unpack", status, "the key of PE %d", pe);
        }
    }
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_region_map(symcoll_ucx_t *t, void *base, size_t bytes,
                                        symcoll_ucx_memory_t memory, symcoll_ucx_region_t **out) {
    const char *fn = "symcoll_ucx_region_map";
    int n = t->boot->size;
    *out = NULL;
    symcoll_ucx_region_t *r = calloc(1, sizeof *r);
    if (r) {
        r->remote_base = calloc((size_t)n, sizeof *r->remote_base);
        r->remote_bytes = calloc((size_t)n, sizeof *r->remote_bytes);
        r->rkeys = calloc((size_t)n, sizeof *r->rkeys);
    }
    symcoll_status_t st = symcoll_ucx_check_memory(t, fn, "the region", memory);
    if (st == SYMCOLL_SUCCESS && (!r || !r->remote_base || !r->remote_bytes || !r->rkeys))
        st =
            symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: no memory for %d PEs' keys", fn, n);
    char *blob = NULL;
    size_t blob_bytes = 0;
    if (st == SYMCOLL_SUCCESS) {
        r->base = base;
        r->bytes = bytes;
        r->memory = memory;
        st = map_local(t, r);
    }
    if (st == SYMCOLL_SUCCESS)
        st = pack_blob(t, r, &blob, &blob_bytes);
    /* Every PE joins the exchange only if every PE got this far. */
    st = symcoll_bootstrap_agree(t->boot, fn, st);
    symcoll_bootstrap_blobs_t blobs = {0};
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_bootstrap_allgatherv(t->boot, fn, blob, blob_bytes, &blobs);
    free(blob);
    if (st == SYMCOLL_SUCCESS) {
        st = unpack_keys(t, r, &blobs);
        /* Mapped everywhere or nowhere. */
        st = symcoll_bootstrap_agree(t->boot, fn, st);
    }
    symcoll_bootstrap_blobs_free(&blobs);
    if (st != SYMCOLL_SUCCESS) {
        if (r)
            symcoll_ucx_region_release(t, r);
        return st;
    }
    r->next = t->regions;
    t->regions = r;
    *out = r;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ucx_region_release(symcoll_ucx_t *t, symcoll_ucx_region_t *r) {
    for (symcoll_ucx_region_t **link = &t->regions; *link; link = &(*link)->next)
        if (*link == r) {
            *link = r->next;
            break;
        }
    for (int pe = 0; r->rkeys && pe < t->boot->size; pe++)
        if (r->rkeys[pe])
            t->lib.ucp_rkey_destroy(r->rkeys[pe]);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (r->memh) {
        ucs_status_t status = t->lib.ucp_mem_unmap(t->context, r->memh);
        if (status != UCS_OK)
            st = symcoll_ucx_fail(&t->lib, "ucp_mem_unmap", status, "%zu bytes at %p", r->bytes,
                                  (void *)r->base);
    }
    free(r->remote_base);
    free(r->remote_bytes);
    free(r->rkeys);
    free(r);
    return st;
}

symcoll_status_t symcoll_ucx_region_unmap(symcoll_ucx_t *t, symcoll_ucx_region_t *r) {
    /* No PE may still be writing into the region when it goes. */
    symcoll_status_t st = symcoll_ucx_barrier(t);
    symcoll_status_t released = symcoll_ucx_region_release(t, r);
    return st != SYMCOLL_SUCCESS ? st : released;
}
