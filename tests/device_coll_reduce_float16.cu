// reduce_call's instances for __half and __nv_bfloat16 (device_coll_testing.cuh).
#include "device_coll_testing.cuh"

namespace device_coll_testing {
DEVICE_COLL_REDUCE_KERNELS(__half)
DEVICE_COLL_REDUCE_KERNELS(__nv_bfloat16)
} // namespace device_coll_testing
