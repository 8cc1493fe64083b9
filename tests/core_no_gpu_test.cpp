// The three reasons for "no GPU" (no driver, a driver older than the CUDA runtime, no device)
// as symcoll_init words them, from synthetic probes.
#include <gtest/gtest.h>

#include <string>

#include "internal.h"

namespace {

// They read differently, so nobody upgrades a driver that is not there.
TEST(Init, NoGpuReasons) {
    char why[256];
    symcoll_gpu_probe_t no_driver = {cudaErrorInsufficientDriver, 0, 0, 13000};
    symcoll_describe_no_gpu(&no_driver, why, sizeof why);
    EXPECT_NE(std::string(why).find("no NVIDIA driver"), std::string::npos) << why;
    EXPECT_EQ(std::string(why).find("insufficient"), std::string::npos) << why;
    symcoll_gpu_probe_t old_driver = {cudaErrorInsufficientDriver, 1, 12020, 13000};
    symcoll_describe_no_gpu(&old_driver, why, sizeof why);
    EXPECT_NE(std::string(why).find("driver supports CUDA 12.2, older than the CUDA 13.0 runtime"),
              std::string::npos)
        << why;
    symcoll_gpu_probe_t stub = {34, 1, 0, 13000};
    symcoll_describe_no_gpu(&stub, why, sizeof why);
    EXPECT_NE(std::string(why).find("stub library"), std::string::npos) << why;
    symcoll_gpu_probe_t no_device = {cudaErrorNoDevice, 1, 13000, 13000};
    symcoll_describe_no_gpu(&no_device, why, sizeof why);
    EXPECT_NE(std::string(why).find("sees no GPU"), std::string::npos) << why;
}

} // namespace
