/* Topology matrix: names, team class, text form and parsing (pure; probing is elsewhere). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topology.h"

const char *symcoll_topo_class_name(topo_class_t cls) {
    switch (cls) {
    case TOPO_SAME_GPU:
        return "same-gpu";
    case TOPO_NVLINK:
        return "nvlink";
    case TOPO_PCIE_P2P:
        return "pcie-p2p";
    default:
        return "no-p2p";
    }
}

topo_class_t symcoll_topology_team_class(const symcoll_topology_t *t, int start, int stride,
                                         int size) {
    topo_class_t worst = TOPO_SAME_GPU;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            int a = start + i * stride, b = start + j * stride;
            if (i == j || a < 0 || b < 0 || a >= t->n_pes || b >= t->n_pes)
                continue;
            if (t->link[a][b].cls > worst)
                worst = t->link[a][b].cls;
        }
    return worst;
}

static void format_link(const topo_link_t *l, int self, char *out, size_t len) {
    if (self)
        snprintf(out, len, "X");
    else if (l->cls == TOPO_SAME_GPU)
        snprintf(out, len, "SAME");
    else if (l->cls == TOPO_NVLINK)
        snprintf(out, len, "NV%d", l->nvlinks);
    else if (l->cls == TOPO_PCIE_P2P)
        snprintf(out, len, "PIX");
    else if (l->other_node)
        snprintf(out, len, "NET");
    else
        snprintf(out, len, "-");
}

/* Appends to buf (len bytes; NULL to measure only) at *used, and counts in *used what did not
 * fit too, so that the caller learns the length it needs. */
__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t len, size_t *used,
                                                         const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf ? buf + (*used < len ? *used : len) : NULL, *used < len ? len - *used : 0,
                      fmt, ap);
    va_end(ap);
    *used += n > 0 ? (size_t)n : 0;
}

size_t symcoll_topology_format(const symcoll_topology_t *t, char *buf, size_t len) {
    size_t used = 0;
    append(buf, len, &used, "%-6s", "");
    for (int j = 0; j < t->n_pes; j++) {
        char name[16];
        snprintf(name, sizeof name, "PE%d", j);
        append(buf, len, &used, " %-6s", name);
    }
    append(buf, len, &used, "  GPU bus id\n");
    for (int i = 0; i < t->n_pes; i++) {
        char name[16];
        snprintf(name, sizeof name, "PE%d", i);
        append(buf, len, &used, "%-6s", name);
        for (int j = 0; j < t->n_pes; j++) {
            char cell[16];
            format_link(&t->link[i][j], i == j, cell, sizeof cell);
            append(buf, len, &used, " %-6s", cell);
        }
        append(buf, len, &used, "  %s\n", t->bus_id[i]);
    }
    append(buf, len, &used,
           "X = self, SAME = same GPU, NV<k> = k NVLinks (NV0: NVLink, count unknown), "
           "PIX = PCIe P2P, - = no P2P, NET = another node\n");
    return used;
}

size_t symcoll_topology_write(const symcoll_topology_t *t, char *buf, size_t len) {
    size_t used = 0;
    append(buf, len, &used, "%d\n", t->n_pes);
    for (int i = 0; i < t->n_pes; i++) {
        for (int j = 0; j < t->n_pes; j++) {
            char cell[16];
            format_link(&t->link[i][j], i == j, cell, sizeof cell);
            append(buf, len, &used, "%s%s", j ? " " : "", cell);
        }
        append(buf, len, &used, "\n");
    }
    return used;
}

/* NET links split the PEs into nodes: symmetric, and sharing a node is transitive. */
static int check_nodes(const symcoll_topology_t *t, char *err, size_t err_len) {
    for (int i = 0; i < t->n_pes; i++)
        for (int j = 0; j < t->n_pes; j++) {
            if (t->link[i][j].other_node != t->link[j][i].other_node) {
                snprintf(err, err_len, "row %d column %d is%s NET, row %d column %d is%s", i, j,
                         t->link[i][j].other_node ? "" : " not", j, i,
                         t->link[j][i].other_node ? "" : " not");
                return -1;
            }
            for (int k = 0; k < t->n_pes; k++)
                if (!t->link[i][j].other_node && !t->link[j][k].other_node &&
                    t->link[i][k].other_node) {
                    snprintf(err, err_len,
                             "PE %d shares a node with PEs %d and %d (no NET between), but NET "
                             "lies between them: NET must split the PEs into nodes",
                             j, i, k);
                    return -1;
                }
        }
    return 0;
}

int symcoll_topology_nodes(const symcoll_topology_t *t, int *leaders) {
    int n_nodes = 0;
    for (int pe = 0; pe < t->n_pes; pe++) {
        if (pe && !t->link[pe - 1][pe].other_node)
            continue;
        for (int k = 0; k < n_nodes; k++)
            if (!t->link[leaders[k]][pe].other_node)
                return 0; /* a node seen before, again after another: not contiguous */
        leaders[n_nodes++] = pe;
    }
    return n_nodes;
}

static int parse_cell(const char *cell, int self, topo_link_t *out) {
    memset(out, 0, sizeof *out);
    if (!strcmp(cell, "X"))
        out->cls = TOPO_SAME_GPU;
    else if (!strcmp(cell, "SAME"))
        out->cls = TOPO_SAME_GPU;
    else if (!strncmp(cell, "NV", 2)) {
        char *end;
        long k = strtol(cell + 2, &end, 10);
        if (end == cell + 2 || *end || k < 0)
            return -1;
        out->cls = TOPO_NVLINK;
        out->nvlinks = (int)k;
    } else if (!strcmp(cell, "PIX"))
        out->cls = TOPO_PCIE_P2P;
    else if (!strcmp(cell, "-"))
        out->cls = TOPO_NO_P2P;
    else if (!strcmp(cell, "NET")) {
        out->cls = TOPO_NO_P2P;
        out->other_node = 1;
    } else
        return -1;
    return self == (strcmp(cell, "X") == 0) ? 0 : -1;
}

int symcoll_topology_parse(const char *text, symcoll_topology_t *t, char *err, size_t err_len) {
    memset(t, 0, sizeof *t);
    char *copy = strdup(text ? text : "");
    if (!copy) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int rc = -1;
    char *save = NULL;
    char *token = strtok_r(copy, " \t\r\n", &save);
    char *end = NULL;
    long n = token ? strtol(token, &end, 10) : 0;
    if (!token || *end || n < 1 || n > SYMCOLL_TOPO_MAX_PES) {
        snprintf(err, err_len, "first entry must be the PE count (1..%d), got \"%s\"",
                 SYMCOLL_TOPO_MAX_PES, token ? token : "");
        goto done;
    }
    t->n_pes = (int)n;
    for (int i = 0; i < n; i++) {
        snprintf(t->bus_id[i], sizeof t->bus_id[i], "synthetic:%d", i);
        for (int j = 0; j < n; j++) {
            token = strtok_r(NULL, " \t\r\n", &save);
            if (!token) {
                snprintf(err, err_len, "row %d has fewer than %ld entries", i, n);
                goto done;
            }
            if (parse_cell(token, i == j, &t->link[i][j]) != 0) {
                snprintf(err, err_len,
                         "row %d column %d: \"%s\" is not X (diagonal only), SAME, NV<k>, PIX, "
                         "- or NET",
                         i, j, token);
                goto done;
            }
        }
    }
    if ((token = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        snprintf(err, err_len, "unexpected entry \"%s\" after %ld rows", token, n);
        goto done;
    }
    rc = check_nodes(t, err, err_len);
done:
    free(copy);
    return rc;
}
