/* Symmetric heap: reserve, create, export/import, map. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "driver.h"
#include "heap.h"
#include "internal.h"
#include "ipc.h"

static symcoll_status_t map_range(const symcoll_driver_t *d, char *at, size_t size,
                                  unsigned long long handle, int device, const char *what) {
    symcoll_status_t st = symcoll_driver_status(
        d->mem_map((CUdeviceptr)at, size, 0, (CUmemGenericAllocationHandle)handle, 0),
        "symcoll_init", what);
    if (st != SYMCOLL_SUCCESS)
        return st;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    st = symcoll_driver_status(d->mem_set_access((CUdeviceptr)at, size, &access, 1), "symcoll_init",
                               what);
    if (st != SYMCOLL_SUCCESS)
        d->mem_unmap((CUdeviceptr)at, size);
    return st;
}

static symcoll_status_t create_local(const symcoll_driver_t *d, symcoll_heap_t *h,
                                     const symcoll_heap_params_t *p) {
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = p->device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t granularity = 0;
    symcoll_status_t st = symcoll_driver_status(
        d->mem_get_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
        "symcoll_init", "cuMemGetAllocationGranularity");
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (p->heap_size > SIZE_MAX / (size_t)h->n_pes - granularity)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "symcoll_init: a symmetric heap of %zu bytes per PE on %d PEs "
                                 "exceeds the address space; lower SYMCOLL_SYMMETRIC_SIZE (or "
                                 "symcoll_init_attr_t.heap_size)",
                                 p->heap_size, h->n_pes);
    h->size = (p->heap_size + granularity - 1) / granularity * granularity;
    h->stride = h->size;
    h->reservation_bytes = h->stride * (size_t)h->n_pes;
    CUdeviceptr reservation = 0;
    st = symcoll_driver_status(
        d->mem_address_reserve(&reservation, h->reservation_bytes, granularity, 0, 0),
        "symcoll_init", "cuMemAddressReserve of the symmetric heap range");
    if (st != SYMCOLL_SUCCESS)
        return st;
    h->reservation = (char *)reservation;
    h->base = h->reservation + h->stride * (size_t)h->my_pe;
    CUmemGenericAllocationHandle local;
    CUresult rc = d->mem_create(&local, h->size, &prop, 0);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "symcoll_init: the GPU has no room for a symmetric heap of %zu "
                                 "bytes; lower SYMCOLL_SYMMETRIC_SIZE (or "
                                 "symcoll_init_attr_t.heap_size)",
                                 h->size);
    st = symcoll_driver_status(rc, "symcoll_init", "cuMemCreate of the symmetric heap");
    if (st != SYMCOLL_SUCCESS)
        return st;
    h->local_handle = local;
    st = map_range(d, h->base, h->size, local, p->device, "mapping the local heap");
    if (st == SYMCOLL_SUCCESS)
        h->reachable |= 1ull << h->my_pe;
    return st;
}

/* Imports and maps the heap of every peer of this PE's node (nodes.h); a peer whose memory this
 * GPU cannot access stays unmapped (not reachable) rather than failing init. */
static symcoll_status_t map_peers(const symcoll_driver_t *d, symcoll_heap_t *h,
                                  const symcoll_heap_params_t *p) {
    int n_local_peers = 0;
    for (int pe = 0; pe < h->n_pes; pe++)
        n_local_peers += pe != h->my_pe && p->same_node[pe];
    int fd = -1;
    symcoll_status_t st =
        symcoll_driver_status(d->mem_export(&fd, (CUmemGenericAllocationHandle)h->local_handle,
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                              "symcoll_init", "cuMemExportToShareableHandle");
    char name[64];
    symcoll_ipc_name(p->job, h->my_pe, name, sizeof name);
    symcoll_ipc_server_t *server = NULL;
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_ipc_serve(name, fd, n_local_peers, &server);
    /* Every server listens from here on, or every PE knows that one does not: then none asks
     * for a handle, and the servers stop without waiting for their peers. */
    st = symcoll_bootstrap_agree(p->boot, "symcoll_init", st);
    for (int pe = 0; pe < h->n_pes && st == SYMCOLL_SUCCESS; pe++) {
        if (pe == h->my_pe || !p->same_node[pe])
            continue;
        int peer_fd = -1;
        symcoll_ipc_name(p->job, pe, name, sizeof name);
        st = symcoll_ipc_fetch(name, p->timeout_ms, &peer_fd);
        if (st != SYMCOLL_SUCCESS)
            break;
        CUmemGenericAllocationHandle handle;
        st = symcoll_driver_status(d->mem_import(&handle, (void *)(intptr_t)peer_fd,
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                                   "symcoll_init", "cuMemImportFromShareableHandle of a peer heap");
        close(peer_fd);
        if (st != SYMCOLL_SUCCESS)
            break;
        h->peer_handle[pe] = handle;
        if (p->topo->link[h->my_pe][pe].cls == TOPO_NO_P2P)
            continue;
        char *at = h->reservation + h->stride * (size_t)pe;
        if (map_range(d, at, h->size, handle, p->device, "mapping a peer heap") == SYMCOLL_SUCCESS)
            h->reachable |= 1ull << pe;
        else
            symcoll_debug(SYMCOLL_LOG_WARN, "PE %d is not load/store reachable: %s", pe,
                          symcoll_last_error());
    }
    if (server) {
        symcoll_status_t served =
            symcoll_ipc_serve_finish(server, st == SYMCOLL_SUCCESS ? p->timeout_ms : 0);
        if (st == SYMCOLL_SUCCESS)
            st = served;
    }
    if (fd >= 0)
        close(fd);
    return st;
}

symcoll_status_t symcoll_heap_create(const symcoll_heap_params_t *p, symcoll_heap_t **out) {
    *out = NULL;
    const symcoll_driver_t *d;
    symcoll_status_t st = symcoll_driver_load(&d);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (p->boot->size > 64)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "symcoll_init: %d PEs; this version maps at most 64",
                                 p->boot->size);
    symcoll_heap_t *h = calloc(1, sizeof *h);
    if (!h)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "symcoll_init: out of host memory");
    h->my_pe = p->boot->rank;
    h->n_pes = p->boot->size;
    /* Every PE learns of a failure on another here, so that none waits for a peer's heap
     * that will never be offered (map_peers), and none goes on with a heap the others lack. */
    st = symcoll_bootstrap_agree(p->boot, "symcoll_init", create_local(d, h, p));
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_bootstrap_agree(p->boot, "symcoll_init", map_peers(d, h, p));
    if (st != SYMCOLL_SUCCESS) {
        symcoll_heap_destroy(h);
        return st;
    }
    symcoll_allocator_init(&h->allocator, h->size, 256);
    *out = h;
    return SYMCOLL_SUCCESS;
}

void symcoll_heap_destroy(symcoll_heap_t *h) {
    const symcoll_driver_t *d;
    if (!h || symcoll_driver_load(&d) != SYMCOLL_SUCCESS)
        return;
    for (int pe = 0; pe < h->n_pes; pe++) {
        if ((h->reachable >> pe) & 1ull)
            d->mem_unmap((CUdeviceptr)(h->reservation + h->stride * (size_t)pe), h->size);
        if (pe != h->my_pe && h->peer_handle[pe])
            d->mem_release((CUmemGenericAllocationHandle)h->peer_handle[pe]);
    }
    if (h->local_handle)
        d->mem_release((CUmemGenericAllocationHandle)h->local_handle);
    if (h->reservation)
        d->mem_address_free((CUdeviceptr)h->reservation, h->reservation_bytes);
    symcoll_allocator_destroy(&h->allocator);
    free(h);
}
