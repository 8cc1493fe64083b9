/* symcoll_init / symcoll_finalize and the one global state. */
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bootstrap/bootstrap.h"
#include "choice_digest.h"
#include "env.h"
#include "gpu_share.h"
#include "heap.h"
#include "internal.h"
#include "kernel_load.h"
#include "launcher_report.h"
#include "symcoll_launch_protocol.h"
#include "liveness.h"
#include "nodes.h"
#include "nodes_proxy_memory.h"
#include "nodes_transport.h"
#include "topology_probe.h"

symcoll_state_t symcoll_g = {.my_pe = -1, .n_pes = -1};
static symcoll_bootstrap_t *pmix_launcher; /* kept open until finalize when launched by PMIx */

void symcoll_init_attr_default(symcoll_init_attr_t *attr) {
    if (!attr)
        return;
    memset(attr, 0, sizeof *attr);
    attr->version = SYMCOLL_INIT_ATTR_VERSION;
    attr->device = -1;
    attr->bootstrap = SYMCOLL_BOOTSTRAP_AUTO;
    attr->rank = -1;
    attr->size = -1;
}

int symcoll_my_pe(void) {
    return symcoll_g.initialized ? symcoll_g.my_pe : -1;
}

int symcoll_n_pes(void) {
    return symcoll_g.initialized ? symcoll_g.n_pes : -1;
}

/* FNV-1a of hostname and boot id: PEs with equal values share a host. */
static unsigned long long host_identity(void) {
    char text[512] = {0};
    gethostname(text, 255);
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text + 256, 255);
        (void)n;
        close(fd);
    }
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof text; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    return h;
}

static unsigned long long job_nonce(void) {
    unsigned long long v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, &v, sizeof v);
        (void)n;
        close(fd);
    }
    return v ^ ((unsigned long long)getpid() << 32) ^ (unsigned long long)time(NULL);
}

static symcoll_status_t choose_device(const symcoll_init_attr_t *attr, const symcoll_launch_t *l,
                                      int n_devices, int *device) {
    if (attr && attr->device >= 0) {
        if (attr->device >= n_devices)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "symcoll_init: attr.device %d, but this process sees %d "
                                     "GPUs",
                                     attr->device, n_devices);
        *device = attr->device;
    } else if (l->nccl_comm) {
        return symcoll_cuda_status(cudaGetDevice(device), "symcoll_init", "cudaGetDevice");
    } else {
        int local = l->local_rank >= 0 ? l->local_rank : l->rank;
        *device = local % n_devices;
    }
    return symcoll_cuda_status(cudaSetDevice(*device), "symcoll_init", "cudaSetDevice");
}

/* Every PE's host and node identities (nodes.h): same_host says which PEs share this host
 * (processes whose liveness this PE can watch), nodes[] and same_node which share its node
 * (whose heaps it maps, its NODE team, which needs them contiguous in rank). The arrays are the
 * caller's (at most SYMCOLL_MAX_PES), so that no allocation can fail on one PE and leave the
 * others waiting. */
static symcoll_status_t exchange_nodes(unsigned long long *nodes, int *same_host, int *same_node) {
    symcoll_bootstrap_t *b = symcoll_g.boot;
    unsigned long long host = host_identity();
    unsigned long long mine[2] = {host, symcoll_node_identity(host, symcoll_env()->node_id)};
    unsigned long long all[SYMCOLL_MAX_PES][2], hosts[SYMCOLL_MAX_PES];
    symcoll_status_t st = b->allgather(b, mine, all, sizeof mine);
    if (st != SYMCOLL_SUCCESS)
        return st;
    for (int pe = 0; pe < b->size; pe++) {
        hosts[pe] = all[pe][0];
        nodes[pe] = all[pe][1];
    }
    int host_rank, host_size;
    symcoll_nodes_group(hosts, b->size, b->rank, same_host, &host_rank, &host_size);
    symcoll_nodes_group(nodes, b->size, b->rank, same_node, &symcoll_g.local_rank,
                        &symcoll_g.local_size);
    /* Every node contiguous in rank: one run per node (every PE comes to the same answer). */
    int runs = 1;
    for (int pe = 1; pe < b->size; pe++)
        runs += nodes[pe] != nodes[pe - 1];
    int n_nodes = symcoll_nodes_leaders(nodes, b->size, symcoll_g.node_leaders);
    symcoll_g.n_nodes = runs == n_nodes ? n_nodes : 0;
    return SYMCOLL_SUCCESS;
}

/* The words of the barrier and collectives across nodes, zero on every PE before any PE can
 * signal them (each PE's memset is complete before it agrees over the bootstrap, and the others
 * wait for that), and the collectives' scratch after them. */
static symcoll_status_t create_nodes_sync(void) {
    const size_t words = SYMCOLL_NODES_SYNC_WORDS * sizeof(uint64_t);
    const size_t bytes = words + symcoll_env()->nodes_scratch;
    symcoll_status_t st = symcoll_heap_alloc("symcoll_init", bytes, (void **)&symcoll_g.nodes_sync);
    if (st != SYMCOLL_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", symcoll_last_error());
        symcoll_set_error(st,
                          "symcoll_init: the collectives' scratch across nodes "
                          "(SYMCOLL_NODES_SCRATCH, %zu bytes) does not fit the heap: %s",
                          symcoll_env()->nodes_scratch, why);
    } else {
        symcoll_g.nodes_scratch = (char *)symcoll_g.nodes_sync + words;
        symcoll_g.nodes_scratch_size = symcoll_env()->nodes_scratch;
        st = symcoll_cuda_status(cudaMemset(symcoll_g.nodes_sync, 0, words), "symcoll_init",
                                 "cudaMemset of the words of the barrier across nodes");
        /* Only other nodes signal the arrivals (the node's own PEs meet by other words). */
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_nodes_proxy_memory_arrivals(symcoll_g.nodes_sync);
    }
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_cuda_status(cudaDeviceSynchronize(), "symcoll_init",
                                 "cudaMemset of the words of the barrier across nodes");
    return symcoll_bootstrap_agree(symcoll_g.boot, "symcoll_init", st);
}

/* INVALID_ARGUMENT naming the first PE that would choose collective kernels or grids other
 * than PE 0's: a collective would otherwise wait for blocks that PE never launches. */
static symcoll_status_t agree_on_choices(void) {
    symcoll_bootstrap_t *b = symcoll_g.boot;
    uint64_t mine = symcoll_choice_digest(&symcoll_g.tuning_file), all[SYMCOLL_MAX_PES];
    symcoll_status_t st = b->allgather(b, &mine, all, sizeof mine);
    for (int pe = 1; pe < b->size && st == SYMCOLL_SUCCESS; pe++)
        if (all[pe] != all[0])
            st = symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                   "symcoll_init: PE %d and PE 0 choose collectives differently: "
                                   "their SYMCOLL_ALGO_* settings or the rows of their "
                                   "SYMCOLL_TUNING_FILE differ; set them alike on every PE",
                                   pe);
    return st;
}

static symcoll_status_t agree_on_job(unsigned long long *job) {
    symcoll_bootstrap_t *b = symcoll_g.boot;
    unsigned long long mine = job_nonce(), all[SYMCOLL_MAX_PES];
    symcoll_status_t st = b->allgather(b, &mine, all, sizeof mine);
    *job = all[0];
    return st;
}

/* PMIx carries every exchange when it was asked for, or when the PEs of a node outnumber its
 * GPUs (they may share one, which NCCL refuses): agreed over PMIx, so that every PE of the job
 * takes the same bootstrap. */
static symcoll_status_t pmix_wanted(const symcoll_launch_t *l, int asked, int n_devices,
                                    int *want) {
    int32_t mine = asked || l->local_size > n_devices, all[SYMCOLL_MAX_PES];
    symcoll_status_t st = l->pmix->allgather(l->pmix, &mine, all, sizeof mine);
    *want = 0;
    for (int pe = 0; pe < l->size && st == SYMCOLL_SUCCESS; pe++)
        *want |= all[pe] != 0;
    return st;
}

/* The program's exchange or symcoll-run's socket when the launch brings them; else PMIx where
 * pmix_wanted says so; else NCCL. An application's unique id or communicator comes first (the
 * launch has no PMIx then), also over SYMCOLL_BOOTSTRAP=pmix. NCCL refuses PEs that share a GPU
 * with "invalid usage", which the NCCL bootstrap's message turns into the paths that serve
 * them. */
static symcoll_status_t create_bootstrap(const symcoll_launch_t *l, const symcoll_init_attr_t *attr,
                                         int n_devices) {
    const symcoll_env_t *e = symcoll_env();
    if (l->callbacks)
        return symcoll_bootstrap_callbacks_create(l->callbacks, l->rank, l->size, &symcoll_g.boot);
    if (l->socket)
        return symcoll_bootstrap_socket_create(l->socket, l->rank, l->size,
                                               (uint64_t)e->init_timeout_ms, &symcoll_g.boot);
    if (l->pmix) {
        int asked =
            (attr && attr->bootstrap == SYMCOLL_BOOTSTRAP_PMIX) || !strcmp(e->bootstrap, "pmix");
        int want_pmix = 0;
        symcoll_status_t st = pmix_wanted(l, asked, n_devices, &want_pmix);
        if (st != SYMCOLL_SUCCESS)
            return st;
        if (want_pmix) {
            symcoll_g.boot = l->pmix;
            return SYMCOLL_SUCCESS;
        }
    }
    pmix_launcher = l->pmix;
    symcoll_status_t st =
        symcoll_bootstrap_nccl_create(l, (uint64_t)e->init_timeout_ms, &symcoll_g.boot);
    symcoll_launch_restore_env();
    return st;
}

/* SYMCOLL_TUNING_FILE, checked against this job's PE count and slowest link. */
static symcoll_status_t load_tuning_file(const char *path) {
    topo_class_t cls = symcoll_topology_team_class(&symcoll_g.topo, 0, 1, symcoll_g.n_pes);
    symcoll_status_t st = symcoll_tuning_file_open("symcoll_init", path, symcoll_g.n_pes, cls,
                                                   &symcoll_g.tuning_file);
    if (st == SYMCOLL_SUCCESS && *path)
        symcoll_debug(SYMCOLL_LOG_INFO, "tuning file %s: %zu rows ahead of the built-in table",
                      path, symcoll_g.tuning_file.n_rows);
    return st;
}

static symcoll_status_t init_runtime(const symcoll_init_attr_t *attr) {
    const symcoll_env_t *e = symcoll_env();
    int n_devices = 0;
    symcoll_status_t st = symcoll_launch_check_size(attr);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_gpu_count("symcoll_init", &n_devices);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_launch_t launch;
    st = symcoll_launch_detect(attr, &launch);
    if (st == SYMCOLL_SUCCESS && launch.size > SYMCOLL_MAX_PES)
        st = symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                               "symcoll_init: %d PEs were launched (through %s), but symcoll "
                               "supports at most %d (a device handle has one reachability bit "
                               "per PE)",
                               launch.size, launch.path, SYMCOLL_MAX_PES);
    if (st != SYMCOLL_SUCCESS) {
        if (launch.pmix)
            launch.pmix->destroy(launch.pmix, 1);
        return st;
    }
    st = choose_device(attr, &launch, n_devices, &symcoll_g.device);
    if (st == SYMCOLL_SUCCESS)
        st = create_bootstrap(&launch, attr, n_devices);
    if (st != SYMCOLL_SUCCESS) {
        if (launch.pmix)
            launch.pmix->destroy(launch.pmix, 1);
        pmix_launcher = NULL;
        return st;
    }
    symcoll_g.my_pe = symcoll_g.boot->rank;
    symcoll_g.n_pes = symcoll_g.boot->size;
    symcoll_g.timeout_ns = (uint64_t)e->timeout_ms * 1000000ull;
    unsigned long long nodes[SYMCOLL_MAX_PES], job = 0;
    int same_host[SYMCOLL_MAX_PES], same_node[SYMCOLL_MAX_PES];
    st = exchange_nodes(nodes, same_host, same_node);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_liveness_init(symcoll_g.boot, same_host);
    /* Before any GPU work: a job across nodes that cannot have its transport fails at once. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_nodes_transport_create(symcoll_g.boot, nodes, (uint64_t)e->timeout_ms,
                                            &symcoll_g.ucx);
    if (st == SYMCOLL_SUCCESS)
        st = agree_on_job(&job);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_gpu_share_agree();
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_topology_probe(symcoll_g.boot, symcoll_g.device, nodes, &symcoll_g.topo);
    /* A file missing or refused on one PE only fails init on all of them. */
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_bootstrap_agree(symcoll_g.boot, "symcoll_init",
                                     load_tuning_file(e->tuning_file));
    if (st == SYMCOLL_SUCCESS)
        st = agree_on_choices();
    if (st == SYMCOLL_SUCCESS) {
        symcoll_heap_params_t params = {
            .heap_size = attr && attr->heap_size ? attr->heap_size : e->symmetric_size,
            .device = symcoll_g.device,
            .same_node = same_node,
            .topo = &symcoll_g.topo,
            .job = job,
            .timeout_ms = (int)e->init_timeout_ms,
            .boot = symcoll_g.boot,
        };
        st = symcoll_heap_create(&params, &symcoll_g.heap);
    }
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_g.heap_base = symcoll_g.heap->base;
    symcoll_g.heap_size = symcoll_g.heap->size;
    symcoll_g.heap_stride = symcoll_g.heap->stride;
    symcoll_g.reachable = symcoll_g.heap->reachable;
    st = symcoll_bootstrap_agree(
        symcoll_g.boot, "symcoll_init",
        symcoll_cuda_status(symcoll_kernels_load(), "symcoll_init", "loading the kernels"));
    if (st == SYMCOLL_SUCCESS && symcoll_g.ucx)
        st = symcoll_nodes_proxy_create(
            symcoll_g.boot, symcoll_g.ucx, symcoll_g.device, symcoll_g.heap_base,
            symcoll_g.heap_size, (uint64_t)e->timeout_ms, &symcoll_g.proxy, &symcoll_g.proxy_ring);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_g.initialized = true;
    st = symcoll_teams_create_builtin();
    if (st == SYMCOLL_SUCCESS && symcoll_g.proxy)
        st = create_nodes_sync();
    if (st != SYMCOLL_SUCCESS)
        return st;
    const symcoll_gpu_sharing_t *sharing = &symcoll_g.sharing;
    symcoll_debug(
        SYMCOLL_LOG_INFO,
        "initialized through %s (%s bootstrap): PE %d of %d, device %d, local %d of %d, "
        "heap %zu; %d PEs on this GPU (%s), SM share %d of %d%s",
        launch.path, symcoll_g.boot->name, symcoll_g.my_pe, symcoll_g.n_pes, symcoll_g.device,
        symcoll_g.local_rank, symcoll_g.local_size, symcoll_g.heap_size, sharing->pes_on_gpu,
        sharing->mps              ? "MPS"
        : sharing->pes_on_gpu > 1 ? "time-sliced"
                                  : "alone",
        sharing->sm_share, sharing->device_sms, sharing->divided ? ", divided by symcoll" : "");
    return SYMCOLL_SUCCESS;
}

/* The proxy, then the transport it uses. NULL once destroyed, so that finalize's collective
 * teardown is not followed by another. */
static symcoll_status_t close_transport(int abort) {
    symcoll_status_t st = symcoll_nodes_proxy_destroy(symcoll_g.proxy, abort);
    symcoll_g.proxy = NULL;
    memset(&symcoll_g.proxy_ring, 0, sizeof symcoll_g.proxy_ring);
    symcoll_status_t closed =
        symcoll_nodes_transport_destroy(symcoll_g.ucx, abort || st != SYMCOLL_SUCCESS);
    symcoll_g.ucx = NULL;
    return st != SYMCOLL_SUCCESS ? st : closed;
}

/* The bootstrap goes first: after a failure its NCCL kernels may still wait for a missing PE,
 * and freeing memory would wait for them forever; aborting the communicator ends them. Only the
 * transport goes before it, since it uses the bootstrap to its end; it waits on no GPU work. */
static void release_runtime(int abort) {
    /* An init that failed between launch detection and the bootstrap left it set. */
    symcoll_launch_restore_env();
    close_transport(abort);
    if (symcoll_g.boot)
        symcoll_g.boot->destroy(symcoll_g.boot, abort);
    if (pmix_launcher && pmix_launcher != symcoll_g.boot)
        pmix_launcher->destroy(pmix_launcher, abort);
    pmix_launcher = NULL;
    symcoll_teams_destroy_all();
    if (symcoll_g.heap)
        symcoll_heap_destroy(symcoll_g.heap);
    symcoll_liveness_fini();
    symcoll_tuning_file_free(&symcoll_g.tuning_file);
    memset(&symcoll_g, 0, sizeof symcoll_g);
    symcoll_g.my_pe = symcoll_g.n_pes = -1;
}

/* SYMCOLL_INFO's table comes before anything can fail, once per job where the rank is known
 * this early: from the attr or a launcher's environment; else every process prints it. */
static int launched_as_first_pe(const symcoll_init_attr_t *attr) {
    if (attr && (attr->bootstrap == SYMCOLL_BOOTSTRAP_UNIQUEID ||
                 attr->bootstrap == SYMCOLL_BOOTSTRAP_CALLBACKS))
        return attr->rank == 0;
    static const char *const ranks[] = {"SYMCOLL_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "RANK",
                                        "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        const char *rank = getenv(ranks[i]);
        if (rank && *rank)
            return strcmp(rank, "0") == 0;
    }
    return 1;
}

symcoll_status_t symcoll_init(const symcoll_init_attr_t *attr) {
    if (symcoll_g.initialized)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_init: already initialized (call symcoll_finalize "
                                 "first)");
    symcoll_clear_error();
    /* Every setting is checked before any CUDA, NCCL or PMIx call. */
    symcoll_status_t st = symcoll_init_check_attr(attr);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_env_load();
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (symcoll_env()->info && launched_as_first_pe(attr))
        symcoll_env_print(stdout);
    st = init_runtime(attr);
    if (st != SYMCOLL_SUCCESS) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
        release_runtime(1);
        symcoll_restore_error(reason);
    } else {
        symcoll_launcher_report(SYMCOLL_LAUNCH_EVENT_INIT);
    }
    return st;
}

symcoll_status_t symcoll_finalize(void) {
    symcoll_status_t st = symcoll_check_initialized("symcoll_finalize");
    if (st != SYMCOLL_SUCCESS)
        return st;
    /* Every device wait times out, so this returns even when a peer is gone. */
    st = symcoll_cuda_status(cudaDeviceSynchronize(), "symcoll_finalize", "waiting for the device");
    char reason[512]; /* the text of the failure finalize returns, kept through the teardown */
    snprintf(reason, sizeof reason, "%s", symcoll_last_error());
    /* No PE unmaps its heap while a peer may still access it, unless that peer's process has
     * ended: a barrier with it could only time out. A broken team is this run's error. */
    int gone = symcoll_liveness_first_gone();
    symcoll_status_t synced =
        gone < 0 ? symcoll_g.boot->barrier(symcoll_g.boot)
                 : symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "symcoll_finalize: the process of PE %d has ended without "
                                     "symcoll_finalize",
                                     gone);
    if (st == SYMCOLL_SUCCESS) {
        symcoll_status_t broken = symcoll_teams_check_broken("symcoll_finalize");
        st = broken != SYMCOLL_SUCCESS ? broken : synced;
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
    }
    /* Collective (every transfer completed, then a barrier) unless this PE has failed: a peer
     * may be gone then, and nothing may wait on it. */
    symcoll_status_t closed = close_transport(st != SYMCOLL_SUCCESS);
    if (st == SYMCOLL_SUCCESS && closed != SYMCOLL_SUCCESS) {
        st = closed;
        snprintf(reason, sizeof reason, "%s", symcoll_last_error());
    }
    release_runtime(st != SYMCOLL_SUCCESS);
    symcoll_launcher_report(SYMCOLL_LAUNCH_EVENT_FINALIZE);
    if (st != SYMCOLL_SUCCESS)
        symcoll_restore_error(reason);
    return st;
}
