/* Public symmetric allocation: symcoll_malloc/calloc/free/ptr on top of the heap. */
#include <stdio.h>
#include "bootstrap/bootstrap.h"
#include "heap.h"
#include "internal.h"

symcoll_status_t symcoll_heap_alloc(const char *fn, size_t bytes, void **out) {
    *out = NULL;
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    size_t offset;
    st = symcoll_symmetric_alloc(&symcoll_g.heap->allocator, symcoll_g.boot, fn, bytes, &offset);
    if (st == SYMCOLL_SUCCESS)
        *out = symcoll_g.heap->base + offset;
    return st;
}

symcoll_status_t symcoll_heap_free(const char *fn, void *ptr) {
    symcoll_status_t st = symcoll_check_initialized(fn);
    if (st != SYMCOLL_SUCCESS)
        return st;
    /* A failed wait (a faulted context: no kernel of ours runs on) still joins the collective
     * free, which the other PEs are in; its error is returned once the block is freed. */
    char waited[512] = "";
    symcoll_status_t wait =
        symcoll_cuda_status(cudaDeviceSynchronize(), fn, "waiting for the device");
    if (wait != SYMCOLL_SUCCESS)
        snprintf(waited, sizeof waited, "%s", symcoll_last_error());
    void *base;
    size_t size, offset = SIZE_MAX;
    if (symcoll_heap_find(ptr, &base, &size) && base == ptr)
        offset = (size_t)((char *)ptr - symcoll_g.heap->base);
    st = symcoll_symmetric_free(&symcoll_g.heap->allocator, symcoll_g.boot, fn, offset);
    if (st != SYMCOLL_SUCCESS && offset == SIZE_MAX)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: ptr %p is not the start of a live symmetric allocation", fn,
                                 ptr);
    if (st == SYMCOLL_SUCCESS && wait != SYMCOLL_SUCCESS)
        return symcoll_set_error(wait, "%s", waited);
    return st;
}

bool symcoll_heap_find(const void *ptr, void **base, size_t *size) {
    if (!symcoll_g.initialized || !ptr)
        return false;
    const char *p = ptr, *heap = symcoll_g.heap->base;
    if (p < heap || p >= heap + symcoll_g.heap->size)
        return false;
    symcoll_block_t block;
    if (symcoll_allocator_find(&symcoll_g.heap->allocator, (size_t)(p - heap), &block) != 0)
        return false;
    *base = (char *)heap + block.offset;
    *size = block.size;
    return true;
}

void *symcoll_malloc(size_t bytes) {
    void *out = NULL;
    if (bytes == 0) {
        symcoll_clear_error();
        return NULL;
    }
    symcoll_heap_alloc("symcoll_malloc", bytes, &out);
    return out;
}

void *symcoll_calloc(size_t n, size_t size) {
    size_t bytes;
    if (symcoll_check_count("symcoll_calloc", "n", n, size, &bytes) != SYMCOLL_SUCCESS)
        return NULL;
    if (bytes == 0) {
        symcoll_clear_error();
        return NULL;
    }
    void *out = NULL;
    if (symcoll_heap_alloc("symcoll_calloc", bytes, &out) != SYMCOLL_SUCCESS)
        return NULL;
    symcoll_status_t st =
        symcoll_cuda_status(cudaMemset(out, 0, bytes), "symcoll_calloc", "cudaMemset");
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaDeviceSynchronize(), "symcoll_calloc", "synchronize");
    /* No peer may write into the block before every PE has zeroed its copy; and a PE that
     * failed to frees it, collectively, only with every other PE. */
    st = symcoll_bootstrap_agree(symcoll_g.boot, "symcoll_calloc", st);
    if (st != SYMCOLL_SUCCESS) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
        symcoll_heap_free("symcoll_calloc", out);
        symcoll_set_error(st, "%s", reason);
        return NULL;
    }
    return out;
}

symcoll_status_t symcoll_free_checked(void *ptr) {
    if (!ptr)
        return SYMCOLL_SUCCESS;
    return symcoll_heap_free("symcoll_free", ptr);
}

void symcoll_free(void *ptr) {
    symcoll_free_checked(ptr);
}

void *symcoll_ptr(const void *sym_addr, int pe) {
    static const char fn[] = "symcoll_ptr";
    if (symcoll_check_initialized(fn) != SYMCOLL_SUCCESS)
        return NULL;
    if (symcoll_check_symmetric(fn, "sym_addr", sym_addr, 0) != SYMCOLL_SUCCESS)
        return NULL;
    if (symcoll_check_pe(fn, pe) != SYMCOLL_SUCCESS)
        return NULL;
    return symcoll_peer_address(sym_addr, pe);
}
