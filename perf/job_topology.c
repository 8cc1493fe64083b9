#include "job_topology.h"

#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "fail.h"
#include "gpu_sharing.h"

#define BUS_ID_BYTES 32

static int parse_library_text(symcoll_topology_t *t) {
    size_t need = symcoll_topology_text(NULL, 0);
    if (need == 0) {
        return perf_fail("symcoll_topology_text: %s", symcoll_last_error());
    }
    char *text = malloc(need + 1);
    if (text == NULL) {
        return perf_fail("symcoll_topology_text: out of host memory");
    }
    symcoll_topology_text(text, need + 1);
    char why[256];
    int rc = symcoll_topology_parse(text, t, why, sizeof why);
    free(text);
    return rc == 0 ? 0 : perf_fail("symcoll_topology_text: %s", why);
}

int perf_job_topology(perf_exchange_t *ex, symcoll_topology_t *t) {
    if (parse_library_text(t) != 0) {
        return -1;
    }
    int device;
    char mine[BUS_ID_BYTES];
    PERF_CUDA(cudaGetDevice(&device));
    PERF_CUDA(cudaDeviceGetPCIBusId(mine, sizeof mine, device));
    char(*all)[BUS_ID_BYTES] = calloc((size_t)ex->npes, BUS_ID_BYTES);
    if (all == NULL) {
        return perf_fail("bus ids: out of host memory");
    }
    int rc = perf_exchange_gather(ex, mine, BUS_ID_BYTES, all);
    for (int p = 0; rc == 0 && ex->me == 0 && p < ex->npes; p++) {
        int pe = symcoll_team_translate_pe(ex->team, p, SYMCOLL_TEAM_WORLD);
        if (pe >= 0 && pe < t->n_pes) {
            memcpy(t->bus_id[pe], all[p], BUS_ID_BYTES);
        }
    }
    free(all);
    return rc;
}

topo_class_t perf_team_class(const symcoll_topology_t *t, symcoll_team_t team) {
    int n = symcoll_team_n_pes(team);
    int start = symcoll_team_translate_pe(team, 0, SYMCOLL_TEAM_WORLD);
    int stride = n > 1 ? symcoll_team_translate_pe(team, 1, SYMCOLL_TEAM_WORLD) - start : 1;
    return symcoll_topology_team_class(t, start, stride, n);
}

int perf_nccl_columns(bool wanted, perf_nccl_columns_t *out) {
    *out = PERF_NCCL_OFF;
    if (!wanted) {
        return 0;
    }
    symcoll_topology_t *t = malloc(sizeof *t);
    if (t == NULL) {
        return perf_fail("topology: out of host memory");
    }
    int rc = parse_library_text(t);
    if (rc == 0) {
        *out = perf_pes_share_gpu(t) ? PERF_NCCL_NA : PERF_NCCL_ON;
    }
    free(t);
    return rc;
}

int perf_print_job_topology(FILE *out) {
    cudaStream_t stream;
    PERF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    symcoll_topology_t *t = malloc(sizeof *t);
    perf_exchange_t ex;
    int rc = t == NULL ? perf_fail("topology: out of host memory")
                       : perf_exchange_init(&ex, SYMCOLL_TEAM_WORLD, stream);
    if (rc == 0) {
        rc = perf_job_topology(&ex, t);
        if (rc == 0 && ex.me == 0) {
            perf_print_topology(out, t, "");
        }
        rc |= perf_exchange_fini(&ex);
    }
    free(t);
    rc |= perf_cuda_check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    return rc;
}
