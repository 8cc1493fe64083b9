// reduce_call's instances for float and double (device_coll_testing.cuh).
#include "device_coll_testing.cuh"

namespace device_coll_testing {
DEVICE_COLL_REDUCE_KERNELS(float)
DEVICE_COLL_REDUCE_KERNELS(double)
} // namespace device_coll_testing
