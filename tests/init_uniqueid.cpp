// Launch path "application-distributed unique id": rank 0 makes the id with
// symcoll_get_uniqueid and hands it to the others through a file; rank and size come from
// symcoll-run's environment. Usage: init_uniqueid FILE_PREFIX
#include "init_check.h"

int main(int argc, char **argv) {
    int rank = -1, size = -1;
    int code = init_start_under_launcher(argc, argv, &rank, &size);
    if (code != kContinue)
        return code;
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
