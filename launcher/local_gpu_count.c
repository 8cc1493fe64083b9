#include "launcher.h"

#include <cuda_runtime_api.h>

int count_local_gpus(bool quiet) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    switch (status) {
    case cudaSuccess:
        return count > 0 ? count : 1;
    case cudaErrorStubLibrary:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
        return 1;
    default:
        if (!quiet)
            fprintf(stderr,
                    LAUNCHER_NAME ": cannot count the GPUs: cudaGetDeviceCount: %s (%d); pass "
                                  "-n\n",
                    cudaGetErrorString(status), (int)status);
        return -1;
    }
}
