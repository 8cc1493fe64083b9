#include "job_topology.h"

#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "gpu_sharing.h"
#include "topology_text.h"

/* symcoll_topology_text's text, malloc'd; NULL after reporting. */
static char *library_text(void) {
    size_t need = symcoll_topology_text(NULL, 0);
    if (need == 0) {
        perf_fail("symcoll_topology_text: %s", symcoll_last_error());
        return NULL;
    }
    char *text = malloc(need + 1);
    if (text == NULL) {
        perf_fail("symcoll_topology_text: out of host memory");
        return NULL;
    }
    symcoll_topology_text(text, need + 1);
    return text;
}

int perf_job_topology(perf_exchange_t *ex, perf_job_topology_t *t) {
    *t = (perf_job_topology_t){.n_pes = symcoll_n_pes()};
    t->text = library_text();
    if (t->text == NULL) {
        return -1;
    }
    int device;
    char mine[PERF_BUS_ID_BYTES];
    PERF_CUDA(cudaGetDevice(&device));
    PERF_CUDA(cudaDeviceGetPCIBusId(mine, sizeof mine, device));
    t->bus_ids = calloc((size_t)t->n_pes, PERF_BUS_ID_BYTES);
    char(*all)[PERF_BUS_ID_BYTES] = calloc((size_t)ex->npes, PERF_BUS_ID_BYTES);
    if (t->bus_ids == NULL || all == NULL) {
        free(all);
        return perf_fail("bus ids: out of host memory");
    }
    for (int pe = 0; pe < t->n_pes; pe++) {
        snprintf(t->bus_ids[pe], PERF_BUS_ID_BYTES, "?");
    }
    int rc = perf_exchange_gather(ex, mine, PERF_BUS_ID_BYTES, all);
    for (int p = 0; rc == 0 && ex->me == 0 && p < ex->npes; p++) {
        int pe = symcoll_team_translate_pe(ex->team, p, SYMCOLL_TEAM_WORLD);
        if (pe >= 0 && pe < t->n_pes) {
            memcpy(t->bus_ids[pe], all[p], PERF_BUS_ID_BYTES);
        }
    }
    free(all);
    return rc;
}

void perf_job_topology_free(perf_job_topology_t *t) {
    free(t->bus_ids);
    free(t->text);
    *t = (perf_job_topology_t){0};
}

int perf_nccl_columns(bool wanted, perf_nccl_columns_t *out) {
    *out = PERF_NCCL_OFF;
    if (!wanted) {
        return 0;
    }
    char *text = library_text();
    if (text == NULL) {
        return -1;
    }
    *out = perf_pes_share_gpu(text) ? PERF_NCCL_NA : PERF_NCCL_ON;
    free(text);
    return 0;
}

int perf_print_job_topology(FILE *out) {
    char *text = library_text();
    if (text == NULL) {
        return -1;
    }
    if (symcoll_my_pe() == 0) {
        perf_print_topology(out, text, "");
    }
    free(text);
    return 0;
}
