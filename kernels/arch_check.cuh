/* The kernels are tuned for and tested on sm_90 (Hopper) and newer. A build for an older
 * architecture would only ever run through the driver's JIT of our PTX, on every user's first
 * call, so it fails here instead. CMakeLists.txt chooses the architectures. */
#ifndef SYMCOLL_ARCH_CHECK_CUH
#define SYMCOLL_ARCH_CHECK_CUH
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error                                                                                             \
    "symcoll's kernels need sm_90 or newer: configure with CMAKE_CUDA_ARCHITECTURES=90 (the default)"
#endif
#endif
