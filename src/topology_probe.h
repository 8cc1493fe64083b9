#ifndef SYMCOLL_TOPOLOGY_PROBE_H
#define SYMCOLL_TOPOLOGY_PROBE_H

#include "bootstrap/bootstrap.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills t for all PEs (collective); node_of_pe[pe] identifies each PE's node (nodes.h): PEs of
 * different nodes have no load/store path. */
symcoll_status_t symcoll_topology_probe(symcoll_bootstrap_t *b, int device,
                                        const unsigned long long *node_of_pe,
                                        symcoll_topology_t *t);
#ifdef __cplusplus
}
#endif
#endif
