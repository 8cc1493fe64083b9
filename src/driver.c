/* Resolution of the driver functions the heap, the GPU share and the proxy's context need. */
#include <cuda_runtime_api.h>
#include <string.h>
#include "driver.h"
#include "internal.h"

static symcoll_driver_t driver;
static int loaded;

/* version: the CUDA version whose signature the table's pointer has. */
static symcoll_status_t resolve(const char *name, int version, void **fn) {
    enum cudaDriverEntryPointQueryResult found;
    cudaError_t err =
        cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &found);
    if (err != cudaSuccess)
        return symcoll_cuda_status(err, "driver", name);
    if (found != cudaDriverEntryPointSuccess || !*fn)
        return symcoll_set_error(SYMCOLL_ERROR_CUDA, "driver: %s not found in the CUDA driver",
                                 name);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_driver_load(const symcoll_driver_t **out) {
    if (!loaded) {
        struct {
            const char *name;
            int version;
            void **fn;
        } table[] = {
            {"cuMemGetAllocationGranularity", 12000, (void **)&driver.mem_get_granularity},
            {"cuMemCreate", 12000, (void **)&driver.mem_create},
            {"cuMemRelease", 12000, (void **)&driver.mem_release},
            {"cuMemAddressReserve", 12000, (void **)&driver.mem_address_reserve},
            {"cuMemAddressFree", 12000, (void **)&driver.mem_address_free},
            {"cuMemMap", 12000, (void **)&driver.mem_map},
            {"cuMemUnmap", 12000, (void **)&driver.mem_unmap},
            {"cuMemSetAccess", 12000, (void **)&driver.mem_set_access},
            {"cuMemExportToShareableHandle", 12000, (void **)&driver.mem_export},
            {"cuMemImportFromShareableHandle", 12000, (void **)&driver.mem_import},
            {"cuGetErrorString", 12000, (void **)&driver.get_error_string},
            {"cuDeviceGetExecAffinitySupport", 12000, (void **)&driver.exec_affinity_support},
            {"cuDeviceGet", 12000, (void **)&driver.device_get},
            {"cuCtxCreate", 12050,
             /* the form that takes CUctxCreateParams */ (void **)&driver.ctx_create},
            {"cuCtxDestroy", 12000, (void **)&driver.ctx_destroy},
            {"cuCtxPushCurrent", 12000, (void **)&driver.ctx_push},
            {"cuCtxPopCurrent", 12000, (void **)&driver.ctx_pop},
            {"cuStreamWriteValue64", 12000, (void **)&driver.stream_write_value64},
        };
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
            symcoll_status_t st = resolve(table[i].name, table[i].version, table[i].fn);
            if (st != SYMCOLL_SUCCESS)
                return st;
        }
        loaded = 1;
    }
    *out = &driver;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_driver_status(CUresult rc, const char *fn, const char *what) {
    if (rc == CUDA_SUCCESS)
        return SYMCOLL_SUCCESS;
    const char *text = "unknown error";
    if (loaded)
        driver.get_error_string(rc, &text);
    return symcoll_set_error(SYMCOLL_ERROR_CUDA, "%s: %s: %s (%d)", fn, what, text, (int)rc);
}
