// Launch path "application-distributed unique id": rank 0 makes the id with
// symcoll_get_uniqueid and hands it to the others through a file; rank and size come from
// symcoll-run's environment. Usage: init_uniqueid FILE_PREFIX
#include <cstdio>
#include "init_check.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE_PREFIX (under symcoll-run)\n", argv[0]);
        return 2;
    }
    if (init_no_gpu_here())
        return kExitSkipped;
    int rank = init_env_int("SYMCOLL_RANK", -1), size = init_env_int("SYMCOLL_SIZE", -1);
    if (rank < 0 || size < 1 || rank >= size) {
        std::fprintf(stderr, "SYMCOLL_RANK / SYMCOLL_SIZE missing: run under symcoll-run\n");
        return 1;
    }
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    attr.bootstrap = SYMCOLL_BOOTSTRAP_UNIQUEID;
    attr.rank = rank;
    attr.size = size;
    if (rank == 0) {
        symcoll_status_t st = symcoll_get_uniqueid(&attr.uniqueid);
        if (st != SYMCOLL_SUCCESS)
            return init_failed(st);
    }
    if (!init_share_through_file(argv[1], rank, &attr.uniqueid, sizeof attr.uniqueid))
        return 1;
    symcoll_status_t st = symcoll_init(&attr);
    init_remove_shared_file(argv[1], rank);
    if (st != SYMCOLL_SUCCESS)
        return init_failed(st);
    return init_check_heap_and_finalize(rank, size);
}
