// main() of every multi-process GPU test: one symcoll_init per process, then all cases.
// Exit 77 (skipped) when this machine has no GPU, or when PEs on simulated nodes
// (SYMCOLL_NODE_ID) cannot have the UCX transport that init then needs (a build without the
// UCX headers, a machine without libucp); any other failure on any PE fails the run.
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include "gpu_main.h"

symcoll_status_t gpu_main_expected_finalize = SYMCOLL_SUCCESS;

int main(int argc, char **argv) {
    ::testing::InitGoogleTest(&argc, argv);
    symcoll_status_t st = symcoll_init(nullptr);
    if (st == SYMCOLL_ERROR_NO_GPU) {
        std::printf("[  SKIPPED ] no GPU: %s\n", symcoll_last_error());
        return 77;
    }
    if (st == SYMCOLL_ERROR_UNSUPPORTED && std::getenv("SYMCOLL_NODE_ID")) {
        std::printf("[  SKIPPED ] no UCX transport between the simulated nodes: %s\n",
                    symcoll_last_error());
        return 77;
    }
    if (st != SYMCOLL_SUCCESS) {
        std::fprintf(stderr, "symcoll_init failed: %s: %s\n", symcoll_status_string(st),
                     symcoll_last_error());
        return 1;
    }
    int rc = RUN_ALL_TESTS();
    st = symcoll_finalize();
    if (st != gpu_main_expected_finalize) {
        std::fprintf(stderr, "symcoll_finalize returned %s, expected %s: %s\n",
                     symcoll_status_string(st), symcoll_status_string(gpu_main_expected_finalize),
                     symcoll_last_error());
        rc = 1;
    }
    return rc;
}
