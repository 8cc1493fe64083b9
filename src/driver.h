/* CUDA driver entry points, reached through the runtime (libcuda is never linked, so the
 * library loads on machines without a driver). */
#ifndef SYMCOLL_DRIVER_H
#define SYMCOLL_DRIVER_H

#include <cuda.h>
#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    CUresult (*mem_get_granularity)(size_t *, const CUmemAllocationProp *,
                                    CUmemAllocationGranularity_flags);
    CUresult (*mem_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                           unsigned long long);
    CUresult (*mem_release)(CUmemGenericAllocationHandle);
    CUresult (*mem_address_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*mem_address_free)(CUdeviceptr, size_t);
    CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                        unsigned long long);
    CUresult (*mem_unmap)(CUdeviceptr, size_t);
    CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*mem_export)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                           unsigned long long);
    CUresult (*mem_import)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
    CUresult (*get_error_string)(CUresult, const char **);
    CUresult (*exec_affinity_support)(int *, CUexecAffinityType, CUdevice);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*ctx_create)(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);
    CUresult (*ctx_destroy)(CUcontext);
    CUresult (*ctx_push)(CUcontext);
    CUresult (*ctx_pop)(CUcontext *);
    CUresult (*stream_write_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
} symcoll_driver_t;

/* Resolves the entry points once; NO_GPU or CUDA on failure. */
symcoll_status_t symcoll_driver_load(const symcoll_driver_t **out);
/* SUCCESS, or CUDA with "fn: what: <driver message>". */
symcoll_status_t symcoll_driver_status(CUresult rc, const char *fn, const char *what);

#ifdef __cplusplus
}
#endif
#endif
