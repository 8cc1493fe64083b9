/* Resolution of the driver functions the heap and the GPU share need. */
#include <cuda_runtime_api.h>
#include <string.h>
#include "driver.h"
#include "internal.h"

static symcoll_driver_t driver;
static int loaded;

static symcoll_status_t resolve(const char *name, void **fn) {
    enum cudaDriverEntryPointQueryResult found;
    cudaError_t err = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found);
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
            void **fn;
        } table[] = {
            {"cuMemGetAllocationGranularity", (void **)&driver.mem_get_granularity},
            {"cuMemCreate", (void **)&driver.mem_create},
            {"cuMemRelease", (void **)&driver.mem_release},
            {"cuMemAddressReserve", (void **)&driver.mem_address_reserve},
            {"cuMemAddressFree", (void **)&driver.mem_address_free},
            {"cuMemMap", (void **)&driver.mem_map},
            {"cuMemUnmap", (void **)&driver.mem_unmap},
            {"cuMemSetAccess", (void **)&driver.mem_set_access},
            {"cuMemExportToShareableHandle", (void **)&driver.mem_export},
            {"cuMemImportFromShareableHandle", (void **)&driver.mem_import},
            {"cuGetErrorString", (void **)&driver.get_error_string},
            {"cuDeviceGetExecAffinitySupport", (void **)&driver.exec_affinity_support},
        };
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
            symcoll_status_t st = resolve(table[i].name, table[i].fn);
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
