/* Deterministic first-fit allocator over offsets of one heap (no memory of its own): the
 * same sequence of calls gives the same offsets on every PE. */
#ifndef SYMCOLL_ALLOCATOR_H
#define SYMCOLL_ALLOCATOR_H

#include <stddef.h>
#include <stdint.h>
#include "bootstrap/bootstrap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t offset, size;
} symcoll_block_t;

typedef struct {
    size_t capacity, alignment;
    symcoll_block_t *live; /* sorted by offset */
    size_t n_live, max_live;
    uint64_t sequence; /* collective calls so far, for the symmetry check */
} symcoll_allocator_t;

void symcoll_allocator_init(symcoll_allocator_t *a, size_t capacity, size_t alignment);
void symcoll_allocator_destroy(symcoll_allocator_t *a);
/* 0 and *offset, or -1 when no gap fits (or out of host memory). */
int symcoll_allocator_alloc(symcoll_allocator_t *a, size_t size, size_t *offset);
/* 0, or -1 when no live block starts at offset. */
int symcoll_allocator_free(symcoll_allocator_t *a, size_t offset);
/* The live block containing offset; 0, or -1 if none. */
int symcoll_allocator_find(const symcoll_allocator_t *a, size_t offset, symcoll_block_t *out);
size_t symcoll_allocator_largest_free(const symcoll_allocator_t *a);

/* Collective allocation checked across PEs through the bootstrap: SYMMETRY when the PEs
 * disagree on size or order, OUT_OF_MEMORY (naming the heap size, request and
 * SYMCOLL_SYMMETRIC_SIZE) when it does not fit; the allocator is unchanged on failure. */
symcoll_status_t symcoll_symmetric_alloc(symcoll_allocator_t *a, symcoll_bootstrap_t *b,
                                         const char *fn, size_t bytes, size_t *offset);
/* Collective free of the block at offset (SIZE_MAX: this PE passed a bad pointer). */
symcoll_status_t symcoll_symmetric_free(symcoll_allocator_t *a, symcoll_bootstrap_t *b,
                                        const char *fn, size_t offset);

#ifdef __cplusplus
}
#endif
#endif
