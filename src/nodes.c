#include "nodes.h"
#include <stddef.h>

unsigned long long symcoll_node_identity(unsigned long long host, int node_id) {
    if (node_id < 0)
        return host;
    unsigned long long h = host;
    for (unsigned i = 0; i < sizeof node_id; i++)
        h = (h ^ (unsigned char)((unsigned)node_id >> (8 * i))) * 1099511628211ull;
    return h;
}

void symcoll_nodes_group(const unsigned long long *ids, int n, int me, int *same, int *local_rank,
                         int *local_size) {
    int first = -1, count = 0, before = 0;
    for (int pe = 0; pe < n; pe++) {
        same[pe] = ids[pe] == ids[me];
        if (same[pe]) {
            if (first < 0)
                first = pe;
            count++;
            before += pe < me;
        }
    }
    int contiguous = me - before == first && first + count <= n;
    for (int pe = first; contiguous && pe < first + count; pe++)
        contiguous = same[pe];
    *local_rank = contiguous ? before : 0;
    *local_size = contiguous ? count : 1;
}

int symcoll_nodes_leaders(const unsigned long long *ids, int n, int *leaders) {
    int n_nodes = 0;
    for (int pe = 0; pe < n; pe++) {
        int first_of_its_node = 1;
        for (int before = 0; before < pe && first_of_its_node; before++)
            first_of_its_node = ids[before] != ids[pe];
        if (first_of_its_node && leaders)
            leaders[n_nodes] = pe;
        n_nodes += first_of_its_node;
    }
    return n_nodes;
}

int symcoll_nodes_others(const unsigned long long *ids, int n, int me, bool *other) {
    for (int pe = 0; pe < n; pe++)
        other[pe] = ids[pe] != ids[me];
    return symcoll_nodes_leaders(ids, n, NULL);
}
