#include "exchange.h"

#include "fail.h"

int perf_exchange_init(perf_exchange_t *ex, symcoll_team_t team, cudaStream_t stream) {
    ex->team = team;
    ex->npes = symcoll_team_n_pes(team);
    ex->me = symcoll_team_my_pe(team);
    ex->stream = stream;
    ex->staging = NULL;
    ex->sym = symcoll_malloc(PERF_EXCHANGE_BYTES);
    if (ex->sym == NULL) {
        return perf_fail("symcoll_malloc(%d): %s", PERF_EXCHANGE_BYTES, symcoll_last_error());
    }
    PERF_CUDA(cudaMalloc(&ex->staging, (size_t)ex->npes * PERF_EXCHANGE_BYTES));
    return 0;
}

int perf_exchange_fini(perf_exchange_t *ex) {
    int rc = perf_cuda_check(cudaFree(ex->staging), "cudaFree");
    symcoll_free(ex->sym);
    return rc;
}

int perf_sync_pes(symcoll_team_t team, cudaStream_t stream) {
    PERF_SYMCOLL(symcoll_barrier_on_stream(team, stream));
    PERF_CUDA(cudaStreamSynchronize(stream));
    return 0;
}

/* team PE p's copy of the exchange buffer reaches staging slot slot. */
static int get_from(perf_exchange_t *ex, int p, int slot, size_t len) {
    int pe = symcoll_team_translate_pe(ex->team, p, SYMCOLL_TEAM_WORLD);
    PERF_SYMCOLL(symcoll_get_on_stream((char *)ex->staging + (size_t)slot * len, ex->sym, len, pe,
                                       ex->stream));
    return 0;
}

int perf_exchange_gather(perf_exchange_t *ex, const void *mine, size_t len, void *all) {
    PERF_CUDA(cudaMemcpyAsync(ex->sym, mine, len, cudaMemcpyHostToDevice, ex->stream));
    if (perf_sync_pes(ex->team, ex->stream) != 0) {
        return -1;
    }
    if (ex->me == 0) {
        for (int p = 0; p < ex->npes; p++) {
            if (get_from(ex, p, p, len) != 0) {
                return -1;
            }
        }
        PERF_CUDA(cudaMemcpyAsync(all, ex->staging, (size_t)ex->npes * len, cudaMemcpyDeviceToHost,
                                  ex->stream));
    }
    /* No PE overwrites its buffer before PE 0 has read it. */
    return perf_sync_pes(ex->team, ex->stream);
}

int perf_exchange_broadcast(perf_exchange_t *ex, void *data, size_t len) {
    if (ex->me == 0) {
        PERF_CUDA(cudaMemcpyAsync(ex->sym, data, len, cudaMemcpyHostToDevice, ex->stream));
    }
    if (perf_sync_pes(ex->team, ex->stream) != 0 || get_from(ex, 0, 0, len) != 0) {
        return -1;
    }
    PERF_CUDA(cudaMemcpyAsync(data, ex->staging, len, cudaMemcpyDeviceToHost, ex->stream));
    return perf_sync_pes(ex->team, ex->stream);
}

int perf_exchange_agree(perf_exchange_t *ex, int rc) {
    int32_t failed = rc != 0, all[SYMCOLL_MAX_PES] = {0}, any = 0;
    if (perf_exchange_gather(ex, &failed, sizeof failed, all) != 0) {
        return -1;
    }
    for (int p = 0; p < ex->npes && ex->me == 0; p++) {
        any |= all[p];
    }
    if (perf_exchange_broadcast(ex, &any, sizeof any) != 0) {
        return -1;
    }
    return rc != 0 ? rc : any ? -1 : 0;
}
