/* Nodes: the PEs whose heaps a PE maps and whose NODE team it joins. A node is a host, or,
 * where SYMCOLL_NODE_ID is set (tests that simulate nodes on one host), the PEs of one host
 * with the same value. */
#ifndef SYMCOLL_NODES_H
#define SYMCOLL_NODES_H

#ifdef __cplusplus
extern "C" {
#endif

/* The identity that PEs of one node share: host's, mixed with node_id unless it is -1. */
unsigned long long symcoll_node_identity(unsigned long long host, int node_id);

/* From every PE's identity (n PEs, this one me): same[pe] (pe's identity is mine), and this
 * PE's rank and count in its group when the group's PEs are contiguous in rank; otherwise 0
 * and 1 (the NODE team is then this PE alone). */
void symcoll_nodes_group(const unsigned long long *ids, int n, int me, int *same, int *local_rank,
                         int *local_size);

#ifdef __cplusplus
}
#endif
#endif
