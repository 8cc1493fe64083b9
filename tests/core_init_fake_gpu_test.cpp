// symcoll_init's launch paths up to the NCCL bootstrap, on a CPU: the link wraps the CUDA
// calls before it (core.cmake), so this process sees one GPU that cannot create a stream.
// Init then fails at the bootstrap's first CUDA call, and what happened before it shows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "scoped_env.h"
#include "symcoll.h"

extern "C" {
cudaError_t __wrap_cudaGetDeviceCount(int *count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t __wrap_cudaSetDevice(int) {
    return cudaSuccess;
}
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t *, unsigned) {
    return cudaErrorMemoryAllocation;
}
}

namespace {

// No launch path in the environment but the one a test sets; restored afterwards.
class FakeGpuInit : public ::testing::Test {
  protected:
    ScopedEnv env_{"SYMCOLL_BOOTSTRAP", "SYMCOLL_RANK",   "SYMCOLL_SIZE", "SYMCOLL_UNIQUEID",
                   "PMIX_RANK",         "PMIX_NAMESPACE", "RANK",         "WORLD_SIZE",
                   "MASTER_ADDR",       "MASTER_PORT",    "NCCL_COMM_ID"};
};

// The application's unique id comes first (README): SYMCOLL_BOOTSTRAP=pmix cannot make init
// use a PMIx bootstrap that this launch never opened.
TEST_F(FakeGpuInit, AttrUniqueidWinsOverPmixSetting) {
    setenv("SYMCOLL_BOOTSTRAP", "pmix", 1);
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_UNIQUEID;
    attr.rank = 0;
    attr.size = 2;
    std::memset(attr.uniqueid.internal, 1, sizeof attr.uniqueid.internal);
    EXPECT_EQ(symcoll_init(&attr), SYMCOLL_ERROR_CUDA) << symcoll_last_error();
    EXPECT_NE(std::string(symcoll_last_error()).find("cudaStreamCreate"), std::string::npos)
        << symcoll_last_error();
}

// The torchrun path points NCCL_COMM_ID at its root while the communicator forms; an init
// that fails before that still leaves the application's environment as it was.
TEST_F(FakeGpuInit, FailedTorchrunInitRestoresNcclCommId) {
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("MASTER_PORT", "29500", 1);
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.device = 3;
    EXPECT_EQ(symcoll_init(&attr), SYMCOLL_ERROR_INVALID_ARGUMENT) << symcoll_last_error();
    EXPECT_NE(std::string(symcoll_last_error()).find("attr.device 3"), std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(std::getenv("NCCL_COMM_ID"), nullptr);
}

} // namespace
