/* First-fit allocation over a sorted array of live blocks. */
#include <stdlib.h>
#include <string.h>
#include "allocator.h"

void symcoll_allocator_init(symcoll_allocator_t *a, size_t capacity, size_t alignment) {
    memset(a, 0, sizeof *a);
    a->capacity = capacity;
    a->alignment = alignment;
}

void symcoll_allocator_destroy(symcoll_allocator_t *a) {
    free(a->live);
    memset(a, 0, sizeof *a);
}

static size_t align_up(size_t v, size_t alignment) {
    return (v + alignment - 1) / alignment * alignment;
}

int symcoll_allocator_alloc(symcoll_allocator_t *a, size_t size, size_t *offset) {
    if (size == 0 || size > a->capacity)
        return -1;
    size_t rounded = align_up(size, a->alignment);
    size_t start = 0, slot = 0;
    for (; slot <= a->n_live; slot++) {
        size_t end = slot < a->n_live ? a->live[slot].offset : a->capacity;
        if (end >= start && end - start >= rounded)
            break;
        if (slot < a->n_live)
            start = align_up(a->live[slot].offset + a->live[slot].size, a->alignment);
    }
    if (slot > a->n_live)
        return -1;
    if (a->n_live == a->max_live) {
        size_t grown = a->max_live ? 2 * a->max_live : 64;
        symcoll_block_t *live = realloc(a->live, grown * sizeof *live);
        if (!live)
            return -1;
        a->live = live;
        a->max_live = grown;
    }
    memmove(a->live + slot + 1, a->live + slot, (a->n_live - slot) * sizeof *a->live);
    a->live[slot].offset = start;
    a->live[slot].size = size;
    a->n_live++;
    *offset = start;
    return 0;
}

/* Index of the last live block starting at or before offset, or n_live if none. */
static size_t block_at_or_before(const symcoll_allocator_t *a, size_t offset) {
    size_t lo = 0, hi = a->n_live;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->live[mid].offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? a->n_live : lo - 1;
}

int symcoll_allocator_free(symcoll_allocator_t *a, size_t offset) {
    size_t i = block_at_or_before(a, offset);
    if (i == a->n_live || a->live[i].offset != offset)
        return -1;
    memmove(a->live + i, a->live + i + 1, (a->n_live - i - 1) * sizeof *a->live);
    a->n_live--;
    return 0;
}

int symcoll_allocator_find(const symcoll_allocator_t *a, size_t offset, symcoll_block_t *out) {
    size_t i = block_at_or_before(a, offset);
    if (i == a->n_live)
        return -1;
    const symcoll_block_t *b = &a->live[i];
    /* The end itself belongs to the block: a zero-byte range may sit there. */
    if (offset > b->offset + b->size)
        return -1;
    *out = *b;
    return 0;
}

size_t symcoll_allocator_largest_free(const symcoll_allocator_t *a) {
    size_t best = 0, start = 0;
    for (size_t i = 0; i <= a->n_live; i++) {
        size_t end = i < a->n_live ? a->live[i].offset : a->capacity;
        if (end > start && end - start > best)
            best = end - start;
        if (i < a->n_live)
            start = align_up(a->live[i].offset + a->live[i].size, a->alignment);
    }
    return best;
}
