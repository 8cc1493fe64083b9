/* Whether this process has a usable GPU, and if not, which of three things is missing: the
 * driver, a driver new enough for the CUDA runtime, or a device. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

void symcoll_describe_no_gpu(const symcoll_gpu_probe_t *p, char *out, size_t len) {
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (!p->driver_found)
        snprintf(out, len,
                 "no NVIDIA driver: libcuda.so.1 cannot be loaded (install the NVIDIA driver, or "
                 "run on a machine with one)");
    else if (p->cuda_error == 34 /* cudaErrorStubLibrary */)
        snprintf(out, len,
                 "libcuda.so.1 is the CUDA toolkit's stub library, not a driver (remove the "
                 "stubs directory from LD_LIBRARY_PATH)");
    else if (p->cuda_error == cudaErrorInsufficientDriver)
        snprintf(out, len,
                 "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d runtime "
                 "symcoll was built with (update the driver)",
                 p->driver_version / 1000, p->driver_version % 1000 / 10, p->runtime_version / 1000,
                 p->runtime_version % 1000 / 10);
    else if (p->cuda_error == cudaErrorNoDevice || p->cuda_error == cudaSuccess)
        snprintf(out, len, "the NVIDIA driver sees no GPU%s%s%s",
                 visible ? " (CUDA_VISIBLE_DEVICES=\"" : "", visible ? visible : "",
                 visible ? "\")" : "");
    else
        snprintf(out, len, "cudaGetDeviceCount: %s (%d)",
                 cudaGetErrorString((cudaError_t)p->cuda_error), p->cuda_error);
}

static void probe_driver(symcoll_gpu_probe_t *p) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    p->driver_found = lib != NULL;
    if (!lib)
        return;
    int (*driver_get_version)(int *) = (int (*)(int *))dlsym(lib, "cuDriverGetVersion");
    if (!driver_get_version || driver_get_version(&p->driver_version) != 0)
        p->driver_version = 0;
    dlclose(lib);
}

symcoll_status_t symcoll_gpu_count(const char *fn, int *n_devices) {
    *n_devices = 0;
    cudaError_t err = cudaGetDeviceCount(n_devices);
    if (err == cudaSuccess && *n_devices > 0)
        return SYMCOLL_SUCCESS;
    cudaGetLastError();
    symcoll_gpu_probe_t probe = {.cuda_error = (int)err};
    probe_driver(&probe);
    cudaRuntimeGetVersion(&probe.runtime_version);
    char why[256];
    symcoll_describe_no_gpu(&probe, why, sizeof why);
    symcoll_status_t st = symcoll_cuda_error_is_no_gpu(err) || err == cudaSuccess
                              ? SYMCOLL_ERROR_NO_GPU
                              : SYMCOLL_ERROR_CUDA;
    return symcoll_set_error(st, "%s: no usable GPU: %s", fn, why);
}
