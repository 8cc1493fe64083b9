// reduce_call's instances for int8_t and uint8_t (device_coll_testing.cuh).
#include "device_coll_testing.cuh"

namespace device_coll_testing {
DEVICE_COLL_REDUCE_KERNELS(int8_t)
DEVICE_COLL_REDUCE_KERNELS(uint8_t)
} // namespace device_coll_testing
