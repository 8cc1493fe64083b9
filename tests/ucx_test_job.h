// What the UCX transport's and the proxy's CPU tests share: the job (PMIx bootstrap and one
// transport of every PE, made before the tests and destroyed after them) and the data that a
// reader can make again from the writer's rank and the round.
#ifndef SYMCOLL_UCX_TEST_JOB_H
#define SYMCOLL_UCX_TEST_JOB_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "pmix_test_bootstrap.h"
#include "transport/ucx/ucx_transport.h"

inline std::vector<uint8_t> data_of(int writer, int round, size_t bytes) {
    std::vector<uint8_t> data(bytes);
    std::mt19937_64 random((uint64_t)writer * 1000003u + (uint64_t)round);
    for (auto &b : data)
        b = (uint8_t)random();
    return data;
}

// main's body: *boot and *ucx for the tests (waits give up after timeout_ms), then every test;
// exit 77 (skipped) without PMIx or UCX.
inline int run_ucx_tests(int argc, char **argv, uint64_t timeout_ms, symcoll_bootstrap_t **boot,
                         symcoll_ucx_t **ucx) {
    ::testing::InitGoogleTest(&argc, argv);
    if (int rc = start_pmix_bootstrap(boot))
        return rc;
    symcoll_status_t st = symcoll_ucx_create(*boot, nullptr, timeout_ms, ucx);
    if (st == SYMCOLL_ERROR_UNSUPPORTED) {
        std::printf("[  SKIPPED ] no UCX: %s\n", symcoll_last_error());
        (*boot)->destroy(*boot, 0);
        return 77;
    }
    if (st != SYMCOLL_SUCCESS) {
        std::fprintf(stderr, "symcoll_ucx_create: %s: %s\n", symcoll_status_string(st),
                     symcoll_last_error());
        (*boot)->destroy(*boot, 1);
        return 1;
    }
    int rc = RUN_ALL_TESTS();
    st = symcoll_ucx_destroy(*ucx, rc != 0);
    if (st != SYMCOLL_SUCCESS) {
        std::fprintf(stderr, "symcoll_ucx_destroy: %s\n", symcoll_last_error());
        rc = 1;
    }
    (*boot)->destroy(*boot, rc != 0);
    return rc;
}

#endif
