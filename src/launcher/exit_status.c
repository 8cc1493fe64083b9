#include "launcher.h"

#include <sys/wait.h>

int exit_code_of_wait_status(int wait_status) {
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return WEXITSTATUS(wait_status);
}

bool exit_code_is_failure(int exit_code) {
    return exit_code != 0 && exit_code != EXIT_SKIPPED;
}
