/* The symmetric heap: one cuMemCreate allocation per PE, every reachable node peer's heap
 * mapped into one reservation at a fixed stride. */
#ifndef SYMCOLL_HEAP_H
#define SYMCOLL_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include "allocator.h"
#include "bootstrap/bootstrap.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t heap_size;     /* requested bytes per PE */
    int device;           /* this PE's CUDA device */
    const int *same_node; /* same_node[pe] != 0: pe is on this PE's node (nodes.h): mapped */
    const symcoll_topology_t *topo;
    uint64_t job; /* job-unique value for the socket names */
    int timeout_ms;
    symcoll_bootstrap_t *boot;
} symcoll_heap_params_t;

typedef struct symcoll_heap {
    char *base;         /* this PE's heap */
    size_t size;        /* usable bytes (rounded up to the granularity) */
    size_t stride;      /* distance between PEs' heaps */
    uint64_t reachable; /* mapped PEs (bit per WORLD PE), this PE included */
    symcoll_allocator_t allocator;
    /* private */
    char *reservation;
    size_t reservation_bytes;
    unsigned long long local_handle;
    unsigned long long peer_handle[64];
    int my_pe, n_pes;
} symcoll_heap_t;

symcoll_status_t symcoll_heap_create(const symcoll_heap_params_t *p, symcoll_heap_t **out);
/* Unmaps and releases; the caller has synchronized the device and the PEs. */
void symcoll_heap_destroy(symcoll_heap_t *h);

#ifdef __cplusplus
}
#endif
#endif
