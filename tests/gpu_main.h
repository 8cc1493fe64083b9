// What gpu_main expects of symcoll_finalize after the tests: a test that breaks a team on
// purpose sets SYMCOLL_ERROR_TIMEOUT on the PEs whose team it broke.
#ifndef SYMCOLL_TESTS_GPU_MAIN_H
#define SYMCOLL_TESTS_GPU_MAIN_H

#include "symcoll.h"

extern symcoll_status_t gpu_main_expected_finalize;

#endif
