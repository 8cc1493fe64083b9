/* The SM share of each PE, agreed at init (see gpu_share.h). */
#include <stdlib.h>
#include <string.h>
#include "bootstrap/bootstrap.h"
#include "driver.h"
#include "gpu_share.h"
#include "internal.h"

void symcoll_gpu_share_plan(const symcoll_gpu_record_t *all, int n_pes, int me,
                            symcoll_gpu_sharing_t *out) {
    const symcoll_gpu_record_t *mine = &all[me];
    long long total = 0, device_sms = 0;
    int on_gpu = 0;
    for (int pe = 0; pe < n_pes; pe++) {
        const symcoll_gpu_record_t *r = &all[pe];
        if (memcmp(r->gpu, mine->gpu, sizeof r->gpu))
            continue;
        on_gpu++;
        total += r->sms;
        long long whole =
            r->percent_x100 > 0 ? (long long)r->sms * 10000 / r->percent_x100 : r->sms;
        device_sms = whole > device_sms ? whole : device_sms;
    }
    int divided = total > device_sms;
    long long share =
        divided ? (long long)mine->sms * device_sms / total / SYMCOLL_GPU_SHARE_KERNELS_IN_FLIGHT
                : mine->sms;
    *out = (symcoll_gpu_sharing_t){
        .sm_share = share > 0 ? (int)share : 1,
        .device_sms = (int)device_sms,
        .pes_on_gpu = on_gpu,
        .mps = mine->mps,
        .divided = divided,
    };
}

static int32_t mps_percent_x100(void) {
    const char *text = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    char *end = NULL;
    double percent = text ? strtod(text, &end) : 0;
    if (!text || end == text || percent <= 0 || percent > 100)
        return 10000;
    return (int32_t)(percent * 100 + 0.5);
}

static symcoll_status_t my_record(symcoll_gpu_record_t *r) {
    memset(r, 0, sizeof *r);
    r->percent_x100 = 10000;
    struct cudaDeviceProp prop;
    symcoll_status_t st = symcoll_cuda_status(cudaGetDeviceProperties(&prop, symcoll_g.device),
                                              "symcoll_init", "cudaGetDeviceProperties");
    if (st != SYMCOLL_SUCCESS)
        return st;
    memcpy(r->gpu, prop.uuid.bytes, sizeof r->gpu);
    r->sms = prop.multiProcessorCount;
    const symcoll_driver_t *driver;
    st = symcoll_driver_load(&driver);
    int supported = 0;
    /* The driver offers execution affinity only to MPS clients. */
    if (st == SYMCOLL_SUCCESS)
        st =
            symcoll_driver_status(driver->exec_affinity_support(
                                      &supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, symcoll_g.device),
                                  "symcoll_init", "cuDeviceGetExecAffinitySupport");
    r->mps = supported != 0;
    if (r->mps)
        r->percent_x100 = mps_percent_x100();
    return st;
}

static void warn_if_shared(const symcoll_gpu_sharing_t *s, int first_on_gpu) {
    if (s->pes_on_gpu < 2 || !first_on_gpu)
        return;
    if (!s->mps)
        symcoll_debug(SYMCOLL_LOG_WARN,
                      "%d PEs share GPU %d without MPS: the GPU runs one PE at a time, so every "
                      "synchronization waits for a scheduler time slice (about 2 ms). Start MPS "
                      "(nvidia-cuda-mps-control -d) and give each PE "
                      "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d, or run one PE per GPU",
                      s->pes_on_gpu, symcoll_g.device, 100 / s->pes_on_gpu);
    else if (s->divided)
        symcoll_debug(SYMCOLL_LOG_WARN,
                      "%d PEs share GPU %d under MPS and their shares add up to more than its %d "
                      "SMs: symcoll sizes its grids to %d SMs so that every block of every PE "
                      "can be resident at once. Give each PE "
                      "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d (or run one PE per GPU), so that "
                      "kernels of your own cannot fill the GPU either",
                      s->pes_on_gpu, symcoll_g.device, s->device_sms, symcoll_g.sm_count,
                      100 / s->pes_on_gpu);
}

symcoll_status_t symcoll_gpu_share_agree(void) {
    symcoll_bootstrap_t *b = symcoll_g.boot;
    symcoll_gpu_record_t mine, all[SYMCOLL_MAX_PES];
    symcoll_status_t st = symcoll_bootstrap_agree(b, "symcoll_init", my_record(&mine));
    if (st == SYMCOLL_SUCCESS)
        st = b->allgather(b, &mine, all, sizeof mine);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_gpu_share_plan(all, b->size, b->rank, &symcoll_g.sharing);
    st = symcoll_bootstrap_min(b, "symcoll_init", symcoll_g.sharing.sm_share, &symcoll_g.sm_count);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_g.sharing.sm_share = symcoll_g.sm_count;
    int first_on_gpu = 1;
    for (int pe = 0; pe < b->rank; pe++)
        first_on_gpu &= memcmp(all[pe].gpu, mine.gpu, sizeof mine.gpu) != 0;
    warn_if_shared(&symcoll_g.sharing, first_on_gpu);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_gpu_sharing(symcoll_gpu_sharing_t *out) {
    symcoll_status_t st = symcoll_check_initialized("symcoll_gpu_sharing");
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (!out)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "symcoll_gpu_sharing: out is NULL");
    *out = symcoll_g.sharing;
    return SYMCOLL_SUCCESS;
}
