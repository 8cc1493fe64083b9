/* The cross-PE check that makes collective allocation symmetric: every PE publishes what it
 * is about to do, and every PE compares; all PEs see the same records, so all agree on the
 * outcome. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include "allocator.h"
#include "internal.h"

enum { OP_ALLOC = 1, OP_FREE = 2 };

typedef struct {
    uint64_t op, sequence, value;
} call_record_t;

static symcoll_status_t exchange(symcoll_allocator_t *a, symcoll_bootstrap_t *b, const char *fn,
                                 uint64_t op, uint64_t value) {
    call_record_t mine = {op, a->sequence++, value};
    call_record_t *all = malloc(sizeof *all * (size_t)b->size);
    if (!all)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    symcoll_status_t st = b->allgather(b, &mine, all, sizeof mine);
    for (int pe = 0; pe < b->size && st == SYMCOLL_SUCCESS; pe++) {
        const call_record_t *r = &all[pe];
        if (r->op == mine.op && r->sequence == mine.sequence && r->value == mine.value)
            continue;
        const char *what = op == OP_ALLOC ? "size" : "offset";
        if (r->op != mine.op || r->sequence != mine.sequence)
            st = symcoll_set_error(SYMCOLL_ERROR_SYMMETRY,
                                   "%s: PE %d is in a different collective call (%s #%" PRIu64
                                   ") than PE %d (%s #%" PRIu64 ")",
                                   fn, pe, r->op == OP_ALLOC ? "malloc" : "free", r->sequence,
                                   b->rank, op == OP_ALLOC ? "malloc" : "free", mine.sequence);
        /* SIZE_MAX marks a bad pointer only in a free; in a malloc it is a size asked for. */
        else if (op == OP_FREE && (r->value == SIZE_MAX || mine.value == SIZE_MAX))
            st = symcoll_set_error(SYMCOLL_ERROR_SYMMETRY,
                                   "%s: PE %d passed a pointer that is not a live symmetric "
                                   "allocation",
                                   fn, r->value == SIZE_MAX ? pe : b->rank);
        else
            st = symcoll_set_error(SYMCOLL_ERROR_SYMMETRY,
                                   "%s: %s differs between PEs: PE %d has %" PRIu64
                                   ", PE %d has %" PRIu64 " (call #%" PRIu64 ")",
                                   fn, what, pe, r->value, b->rank, mine.value, mine.sequence);
    }
    free(all);
    return st;
}

symcoll_status_t symcoll_symmetric_alloc(symcoll_allocator_t *a, symcoll_bootstrap_t *b,
                                         const char *fn, size_t bytes, size_t *offset) {
    symcoll_status_t st = exchange(a, b, fn, OP_ALLOC, bytes);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (symcoll_allocator_alloc(a, bytes, offset) != 0)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "%s: out of symmetric memory: asked for %zu bytes, the largest "
                                 "free block is %zu bytes of a %zu-byte heap; raise "
                                 "SYMCOLL_SYMMETRIC_SIZE (or symcoll_init_attr_t.heap_size)",
                                 fn, bytes, symcoll_allocator_largest_free(a), a->capacity);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_symmetric_free(symcoll_allocator_t *a, symcoll_bootstrap_t *b,
                                        const char *fn, size_t offset) {
    symcoll_status_t st = exchange(a, b, fn, OP_FREE, offset);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (symcoll_allocator_free(a, offset) != 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: offset %zu is not the start of a live allocation", fn,
                                 offset);
    return SYMCOLL_SUCCESS;
}
