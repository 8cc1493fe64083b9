// Launch detection from a torchrun environment (src/bootstrap/launch.c): values that cannot
// form a job are refused there, naming the variable, before NCCL sees them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "env.h"
#include "internal.h"

namespace {

const char *const kTorchrunVariables[] = {"RANK",         "WORLD_SIZE",       "MASTER_ADDR",
                                          "MASTER_PORT",  "LOCAL_RANK",       "LOCAL_WORLD_SIZE",
                                          "NCCL_COMM_ID", "SYMCOLL_BOOTSTRAP"};

// A torchrun environment for one test; the process environment is restored afterwards.
class Torchrun : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const char *name : kTorchrunVariables) {
            if (const char *value = std::getenv(name))
                saved_.emplace_back(name, value);
            unsetenv(name);
        }
        setenv("SYMCOLL_BOOTSTRAP", "torchrun", 1);
        setenv("MASTER_ADDR", "127.0.0.1", 1);
        setenv("MASTER_PORT", "29500", 1);
        ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    void TearDown() override {
        symcoll_launch_restore_env();
        for (const char *name : kTorchrunVariables)
            unsetenv(name);
        for (const auto &[name, value] : saved_)
            setenv(name.c_str(), value.c_str(), 1);
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

  private:
    std::vector<std::pair<std::string, std::string>> saved_;
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

} // namespace
