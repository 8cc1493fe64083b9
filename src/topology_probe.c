/* Probing the topology: each PE classifies its own row (CUDA P2P queries, NVLink counts from
 * NVML opened with dlopen), then the rows are gathered so every PE holds the same matrix. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "topology_probe.h"

/* The few NVML declarations used here (NVML's header is not part of the CUDA toolkit). */
typedef int nvml_return_t;
typedef void *nvml_device_t;
typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
    char reserved[64];
} nvml_pci_info_t;
enum { NVML_MAX_LINKS = 18, NVML_DEVICE_TYPE_SWITCH = 2 };

typedef struct {
    void *lib;
    nvml_return_t (*init)(void);
    nvml_return_t (*shutdown)(void);
    nvml_return_t (*by_bus_id)(const char *, nvml_device_t *);
    nvml_return_t (*link_state)(nvml_device_t, unsigned, int *);
    nvml_return_t (*remote_pci)(nvml_device_t, unsigned, nvml_pci_info_t *);
    nvml_return_t (*remote_type)(nvml_device_t, unsigned, int *);
} nvml_t;

static int nvml_open(nvml_t *n) {
    memset(n, 0, sizeof *n);
    n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib)
        return -1;
    *(void **)&n->init = dlsym(n->lib, "nvmlInit_v2");
    *(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
    *(void **)&n->by_bus_id = dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&n->link_state = dlsym(n->lib, "nvmlDeviceGetNvLinkState");
    *(void **)&n->remote_pci = dlsym(n->lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    *(void **)&n->remote_type = dlsym(n->lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
    if (!n->init || !n->shutdown || !n->by_bus_id || !n->link_state || !n->remote_pci ||
        n->init() != 0) {
        dlclose(n->lib);
        n->lib = NULL;
        return -1;
    }
    return 0;
}

static void nvml_close(nvml_t *n) {
    if (n->lib) {
        n->shutdown();
        dlclose(n->lib);
    }
}

/* domain:bus:device.function as one number, so "0000:1B:00.0" equals "00000000:1b:00.0". */
static unsigned long long bus_key(const char *id) {
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    if (sscanf(id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
        return ~0ull;
    return ((unsigned long long)domain << 24) | (bus << 16) | (device << 8) | function;
}

/* NVLinks from my GPU to the peer: direct links, or every switch link on NVSwitch systems. */
static int count_nvlinks(nvml_t *n, const char *mine, const char *peer) {
    nvml_device_t dev;
    if (!n->lib || n->by_bus_id(mine, &dev) != 0)
        return -1;
    int direct = 0, to_switch = 0;
    for (unsigned link = 0; link < NVML_MAX_LINKS; link++) {
        int active = 0;
        if (n->link_state(dev, link, &active) != 0 || !active)
            continue;
        int type = -1;
        if (n->remote_type && n->remote_type(dev, link, &type) == 0 &&
            type == NVML_DEVICE_TYPE_SWITCH) {
            to_switch++;
            continue;
        }
        nvml_pci_info_t remote;
        memset(&remote, 0, sizeof remote);
        if (n->remote_pci(dev, link, &remote) == 0 && bus_key(remote.bus_id) == bus_key(peer))
            direct++;
    }
    return direct ? direct : to_switch;
}

static topo_link_t classify(nvml_t *n, int my_device, const char *mine, const char *peer) {
    topo_link_t l = {TOPO_NO_P2P, 0, 0};
    if (bus_key(mine) == bus_key(peer)) {
        l.cls = TOPO_SAME_GPU;
        return l;
    }
    int links = count_nvlinks(n, mine, peer);
    if (links > 0) {
        l.cls = TOPO_NVLINK;
        l.nvlinks = links;
        return l;
    }
    int peer_device = -1, can_access = 0;
    if (cudaDeviceGetByPCIBusId(&peer_device, peer) != cudaSuccess) {
        cudaGetLastError();
        /* Hidden by CUDA_VISIBLE_DEVICES: mapping the heap decides reachability. */
        l.cls = TOPO_PCIE_P2P;
        return l;
    }
    if (cudaDeviceCanAccessPeer(&can_access, my_device, peer_device) != cudaSuccess ||
        !can_access) {
        cudaGetLastError();
        return l;
    }
    int rank = 1;
    cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, my_device, peer_device);
    l.cls = (links < 0 && rank == 0) ? TOPO_NVLINK : TOPO_PCIE_P2P;
    return l;
}

/* Every PE joins the exchange even when its own query fails, and sends an empty bus id
 * then: leaving it early would make the others wait out SYMCOLL_INIT_TIMEOUT_MS and report a
 * missing PE instead of the failure. */
static symcoll_status_t gather_bus_ids(symcoll_bootstrap_t *b, int device, symcoll_topology_t *t) {
    char mine[sizeof t->bus_id[0]] = "";
    symcoll_status_t st = symcoll_cuda_status(cudaDeviceGetPCIBusId(mine, sizeof mine, device),
                                              "symcoll_init", "cudaDeviceGetPCIBusId");
    if (st != SYMCOLL_SUCCESS)
        mine[0] = '\0';
    symcoll_status_t gathered = b->allgather(b, mine, t->bus_id, sizeof mine);
    if (st != SYMCOLL_SUCCESS || gathered != SYMCOLL_SUCCESS)
        return st != SYMCOLL_SUCCESS ? st : gathered;
    for (int pe = 0; pe < b->size; pe++)
        if (!t->bus_id[pe][0])
            return symcoll_set_error(SYMCOLL_ERROR_CUDA,
                                     "symcoll_init: PE %d could not read its GPU's PCI bus id; its "
                                     "symcoll_last_error() says why",
                                     pe);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_topology_probe(symcoll_bootstrap_t *b, int device,
                                        const unsigned long long *node_of_pe,
                                        symcoll_topology_t *t) {
    memset(t, 0, sizeof *t);
    if (b->size > SYMCOLL_TOPO_MAX_PES)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED, "topology: %d PEs, at most %d", b->size,
                                 SYMCOLL_TOPO_MAX_PES);
    t->n_pes = b->size;
    symcoll_status_t st = gather_bus_ids(b, device, t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    const char *mine = t->bus_id[b->rank];
    nvml_t nvml;
    if (nvml_open(&nvml) != 0)
        symcoll_debug(SYMCOLL_LOG_WARN, "topology: NVML not available; NVLink counts unknown");
    topo_link_t row[SYMCOLL_TOPO_MAX_PES];
    memset(row, 0, sizeof row);
    for (int pe = 0; pe < b->size; pe++) {
        if (node_of_pe[pe] != node_of_pe[b->rank])
            row[pe] = (topo_link_t){TOPO_NO_P2P, 0, 1};
        else
            row[pe] = classify(&nvml, device, mine, t->bus_id[pe]);
    }
    nvml_close(&nvml);
    /* Row i of the table is PE i's row: straight into place, with nothing to allocate that
     * could fail on one PE and leave the others in the exchange. */
    return b->allgather(b, row, t->link, sizeof row);
}
