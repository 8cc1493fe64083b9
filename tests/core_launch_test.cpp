// Launch detection from a torchrun environment (src/bootstrap/launch.c): values that cannot
// form a job are refused there, naming the variable, before NCCL sees them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>

#include "bootstrap/bootstrap.h"
#include "env.h"
#include "internal.h"
#include "scoped_env.h"

namespace {

// A torchrun environment for one test; the process environment is restored afterwards.
class Torchrun : public ::testing::Test {
  protected:
    ScopedEnv env_{"RANK",       "WORLD_SIZE",       "MASTER_ADDR",  "MASTER_PORT",
                   "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NCCL_COMM_ID", "SYMCOLL_BOOTSTRAP"};

    void SetUp() override {
        setenv("SYMCOLL_BOOTSTRAP", "torchrun", 1);
        setenv("MASTER_ADDR", "127.0.0.1", 1);
        setenv("MASTER_PORT", "29500", 1);
        ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    // The settings go back to their defaults, without this test's SYMCOLL_BOOTSTRAP.
    void TearDown() override {
        symcoll_launch_restore_env();
        unsetenv("SYMCOLL_BOOTSTRAP");
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    // The reason launch detection gives for the environment, which must be BOOTSTRAP.
    std::string refused() {
        symcoll_launch_t launch;
        EXPECT_EQ(symcoll_launch_detect(nullptr, &launch), SYMCOLL_ERROR_BOOTSTRAP)
            << symcoll_last_error();
        EXPECT_EQ(std::getenv("NCCL_COMM_ID"), nullptr) << "set for a launch that was refused";
        return symcoll_last_error();
    }
};

TEST_F(Torchrun, RankOutsideWorldSizeIsNamed) {
    const std::pair<const char *, const char *> bad[] = {{"2", "2"}, {"-1", "2"}, {"0", "0"}};
    for (const auto &[rank, size] : bad) {
        setenv("RANK", rank, 1);
        setenv("WORLD_SIZE", size, 1);
        std::string why = refused();
        EXPECT_NE(why.find(std::string("RANK=") + rank + " and WORLD_SIZE=" + size),
                  std::string::npos)
            << why;
    }
}

TEST_F(Torchrun, MasterPortWithoutAPortAboveItIsNamed) {
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "2", 1);
    for (const char *port : {"65535", "-7"}) {
        setenv("MASTER_PORT", port, 1);
        std::string why = refused();
        EXPECT_NE(why.find(std::string("MASTER_PORT=") + port), std::string::npos) << why;
    }
}

// More PEs than symcoll supports is UNSUPPORTED before any GPU work (on a CPU machine: not
// NO_GPU), as the README says; the auto detection applies the same check.
TEST_F(Torchrun, MorePesThanSupportedAreRefusedBeforeAnyGpuWork) {
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "65", 1);
    for (const char *bootstrap : {"torchrun", "auto"}) {
        setenv("SYMCOLL_BOOTSTRAP", bootstrap, 1);
        ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
        EXPECT_EQ(symcoll_launch_check_size(nullptr), SYMCOLL_ERROR_UNSUPPORTED) << bootstrap;
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("WORLD_SIZE=65 PEs, but symcoll supports at most 64"), std::string::npos)
            << why;
        EXPECT_EQ(symcoll_init(nullptr), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    }
    setenv("WORLD_SIZE", "64", 1);
    EXPECT_EQ(symcoll_launch_check_size(nullptr), SYMCOLL_SUCCESS) << symcoll_last_error();
}

} // namespace
