// reduce_call's instances for int32_t and uint32_t (device_coll_testing.cuh).
#include "device_coll_testing.cuh"

namespace device_coll_testing {
DEVICE_COLL_REDUCE_KERNELS(int32_t)
DEVICE_COLL_REDUCE_KERNELS(uint32_t)
} // namespace device_coll_testing
