// reduce_call's instances for int64_t and uint64_t (device_coll_testing.cuh).
#include "device_coll_testing.cuh"

namespace device_coll_testing {
DEVICE_COLL_REDUCE_KERNELS(int64_t)
DEVICE_COLL_REDUCE_KERNELS(uint64_t)
} // namespace device_coll_testing
