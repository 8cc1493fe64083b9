// symcoll_init(NULL) finds the launch path from the environment on its own (under torchrun:
// RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), then proves the heap works across PEs.
#include "init_check.h"

int main() {
    symcoll_status_t st = symcoll_init(nullptr);
    if (st != SYMCOLL_SUCCESS)
        return init_failed(st);
    return init_check_heap_and_finalize(init_env_int("RANK", -1), init_env_int("WORLD_SIZE", -1));
}
