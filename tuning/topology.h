/* Who can reach whom, and how (pure data + pure functions; probing lives in topology.c). */
#ifndef SYMCOLL_TOPOLOGY_H
#define SYMCOLL_TOPOLOGY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SYMCOLL_TOPO_MAX_PES 64

/* Ordered from fastest to slowest, so the slowest link of a set is the maximum. */
typedef enum {
    TOPO_SAME_GPU = 0,
    TOPO_NVLINK = 1,
    TOPO_PCIE_P2P = 2,
    TOPO_NO_P2P = 3
} topo_class_t;

typedef struct {
    topo_class_t cls;
    int nvlinks;    /* NVLink count between the two GPUs (TOPO_NVLINK), 0 if unknown */
    int other_node; /* the PEs are on different nodes (cls TOPO_NO_P2P): reached through the
                       proxy, "NET" in the text form */
} topo_link_t;

typedef struct {
    int n_pes;
    char bus_id[SYMCOLL_TOPO_MAX_PES][32]; /* PCI bus id of each PE's GPU */
    topo_link_t link[SYMCOLL_TOPO_MAX_PES][SYMCOLL_TOPO_MAX_PES];
} symcoll_topology_t;

const char *symcoll_topo_class_name(topo_class_t cls);
/* The slowest link between two members of the team start + i * stride, i < size. */
topo_class_t symcoll_topology_team_class(const symcoll_topology_t *t, int start, int stride,
                                         int size);
/* Writes the matrix as text (one row per PE); returns the length it needed. */
size_t symcoll_topology_format(const symcoll_topology_t *t, char *buf, size_t len);
/* Writes the matrix in the form symcoll_topology_parse reads (no bus ids); returns the
 * length it needed. */
size_t symcoll_topology_write(const symcoll_topology_t *t, char *buf, size_t len);
/* Parses a topology given as text: first line the PE count n, then n rows of n entries,
 * each "X" (same GPU), "NV<k>" (k NVLinks), "PIX" (PCIe P2P), "-" (no P2P) or "NET" (another
 * node). NET must split the PEs into nodes: symmetric, and a PE shares a node with every PE it
 * has no NET to, as they do with each other. Returns 0, or -1 with a message in err. */
int symcoll_topology_parse(const char *text, symcoll_topology_t *t, char *err, size_t err_len);
/* The nodes that t's NET links split its PEs into, as runs of contiguous ranks: each node's
 * first PE into leaders (SYMCOLL_TOPO_MAX_PES of room), and the count; 1 where there is no
 * NET; 0 where some node's PEs are not contiguous in rank (calls across nodes need them so). */
int symcoll_topology_nodes(const symcoll_topology_t *t, int *leaders);

#ifdef __cplusplus
}
#endif
#endif
