// The PMIx bootstrap of a CPU test that mpirun starts (core_pmix_test, transport_ucx_test).
#ifndef SYMCOLL_PMIX_TEST_BOOTSTRAP_H
#define SYMCOLL_PMIX_TEST_BOOTSTRAP_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "bootstrap/bootstrap.h"
#include "internal.h"

// SYMCOLL_INIT_TIMEOUT_MS as the library reads it: each fence's limit.
inline uint64_t init_timeout_ms() {
    const char *text = std::getenv("SYMCOLL_INIT_TIMEOUT_MS");
    return text ? std::strtoull(text, nullptr, 10) : 120000;
}

// Starts *boot: 0 when it runs, else main's exit code (77: no PMIx, the test is skipped; 1: it
// failed), with the reason printed.
inline int start_pmix_bootstrap(symcoll_bootstrap_t **boot) {
    symcoll_status_t st = symcoll_bootstrap_pmix_create(init_timeout_ms(), boot);
    if (st == SYMCOLL_ERROR_UNSUPPORTED) {
        std::printf("[  SKIPPED ] no PMIx: %s\n", symcoll_last_error());
        return 77;
    }
    if (st != SYMCOLL_SUCCESS) {
        std::fprintf(stderr, "symcoll_bootstrap_pmix_create: %s: %s\n", symcoll_status_string(st),
                     symcoll_last_error());
        return 1;
    }
    return 0;
}

#endif
