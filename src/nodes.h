/* Nodes: the PEs whose heaps a PE maps and whose NODE team it joins. A node is a host, or,
 * where SYMCOLL_NODE_ID is set (tests that simulate nodes on one host), the PEs of one host
 * with the same value. */
#ifndef SYMCOLL_NODES_H
#define SYMCOLL_NODES_H

#include <stdbool.h>

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

/* From every PE's identity (n PEs, this one me): other[pe] (pe is on another node, reachable
 * only through a transport); returns the number of nodes. Every PE has the same ids, so every PE
 * comes to the same count: the transport is created collectively or not at all. */
int symcoll_nodes_others(const unsigned long long *ids, int n, int me, bool *other);

/* The number of nodes, and into leaders (unless NULL) each node's first PE, in rank order. */
int symcoll_nodes_leaders(const unsigned long long *ids, int n, int *leaders);

#ifdef __cplusplus
}
#endif
#endif
