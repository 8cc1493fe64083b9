#include "machine.h"

#include <nccl.h>
#include <unistd.h>

#include "fail.h"
#include "gpu_sharing.h"
#include "topology_text.h"

static const char *average_name(perf_average_t average) {
    static const char *const names[] = {"PE 0's", "mean over PEs", "min over PEs", "max over PEs"};
    return names[average];
}

static const char *modes_name(unsigned modes) {
    return modes == (PERF_MODE_STREAM | PERF_MODE_GRAPH) ? "stream and graph"
           : modes == PERF_MODE_GRAPH                    ? "graph"
                                                         : "stream";
}

/* CUDA and NCCL encode versions as major * 1000 + minor * 10 (NCCL >= 2.9: * 10000 + * 100). */
int perf_print_machine(FILE *out, const perf_args_t *a, int npes, const perf_job_topology_t *topo,
                       const symcoll_gpu_sharing_t *sharing) {
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    int device, runtime, driver, nccl;
    PERF_CUDA(cudaGetDevice(&device));
    struct cudaDeviceProp prop;
    PERF_CUDA(cudaGetDeviceProperties(&prop, device));
    PERF_CUDA(cudaRuntimeGetVersion(&runtime));
    PERF_CUDA(cudaDriverGetVersion(&driver));
    if (ncclGetVersion(&nccl) != ncclSuccess) {
        nccl = 0;
    }

    fprintf(out, "# symcoll-perf %d.%d.%d on %s, %d PEs (team %s of %d PEs)\n",
            SYMCOLL_VERSION_MAJOR, SYMCOLL_VERSION_MINOR, SYMCOLL_VERSION_PATCH, host,
            symcoll_n_pes(),
            a->team_peers                  ? "peers"
            : a->team == SYMCOLL_TEAM_NODE ? "node"
                                           : "world",
            npes);
    fprintf(out, "# GPU of PE 0: %s, sm_%d%d, %d SMs, %.1f GiB\n", prop.name, prop.major,
            prop.minor, prop.multiProcessorCount, (double)prop.totalGlobalMem / (1 << 30));
    perf_print_gpu_sharing(out, sharing);
    fputs("# GPUs (PCI bus id):", out);
    for (int p = 0; p < topo->n_pes; p++) {
        fprintf(out, " %d:%s", p, topo->bus_ids[p]);
    }
    fputs("\n# topology:\n", out);
    perf_print_topology(out, topo->text, "#   ");
    fprintf(out, "# versions: CUDA runtime %d.%d, driver %d.%d, NCCL %d.%d.%d\n", runtime / 1000,
            runtime % 1000 / 10, driver / 1000, driver % 1000 / 10, nccl / 10000,
            nccl % 10000 / 100, nccl % 100);
    fprintf(out,
            "# timing: %s; median of %d timings of %d calls, %d warm-up calls; time is the %s; "
            "check %s\n",
            modes_name(a->modes), a->timings, a->iters, a->warmup, average_name(a->average),
            a->check ? "on" : "off");
    if (a->modes & PERF_MODE_GRAPH) {
        fprintf(out, "# graph mode: %d calls per graph, time per call\n", a->graph_calls);
    }
    return 0;
}
