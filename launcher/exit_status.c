#include "launcher.h"

#include <sys/wait.h>

int signal_that_ended(const siginfo_t *info) {
    return info->si_code == CLD_EXITED ? 0 : info->si_status;
}

int exit_code_of(const siginfo_t *info) {
    return info->si_code == CLD_EXITED ? info->si_status : 128 + info->si_status;
}

bool exit_code_is_failure(int exit_code) {
    return exit_code != 0 && exit_code != EXIT_SKIPPED;
}
