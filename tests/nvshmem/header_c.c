/* The NVSHMEM headers compile as C11 (host API): this unit is built, never run. */
#include <nvshmem.h>
#include <nvshmemx.h>

/* As in NVSHMEM, NVSHMEM_MAJOR/MINOR_VERSION name the OpenSHMEM specification (1.3) and the
 * NVSHMEM_VENDOR_ macros the NVSHMEM release, which programs test in #if for features. */
#if NVSHMEM_MAJOR_VERSION != 1 || NVSHMEM_MINOR_VERSION != 3
#error "NVSHMEM_MAJOR_VERSION.NVSHMEM_MINOR_VERSION is not the OpenSHMEM version 1.3"
#endif
#if !defined(NVSHMEM_VENDOR_VERSION) || NVSHMEM_VENDOR_MAJOR_VERSION < 3 ||                        \
    NVSHMEM_VENDOR_VERSION != NVSHMEM_VENDOR_MAJOR_VERSION * 10000 +                               \
                                  NVSHMEM_VENDOR_MINOR_VERSION * 100 +                             \
                                  NVSHMEM_VENDOR_PATCH_VERSION
#error "NVSHMEM_VENDOR_*VERSION do not name an NVSHMEM 3 release"
#endif

/* NVSHMEM's team handles are distinct: a switch may name each (a duplicate case would not
 * compile). */
int nvshmem_team_kind(nvshmem_team_t team);
int nvshmem_team_kind(nvshmem_team_t team) {
    switch (team) {
    case NVSHMEM_TEAM_WORLD:
        return 0;
    case NVSHMEM_TEAM_SHARED:
        return 1;
    case NVSHMEMX_TEAM_NODE:
        return 2;
    case NVSHMEM_TEAM_INVALID:
        return -1;
    default:
        return 3;
    }
}

int nvshmem_header_compiles_as_c(void);
int nvshmem_header_compiles_as_c(void) {
    if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED)
        return -1;
    nvshmem_init();
    if (nvshmemx_init_status() < NVSHMEM_STATUS_IS_INITIALIZED)
        return -1;
    int *x = (int *)nvshmem_malloc(4 * sizeof(int));
    nvshmem_int_p(x, nvshmem_my_pe(), (nvshmem_my_pe() + 1) % nvshmem_n_pes());
    nvshmem_barrier_all();
    /* The team barriers on a stream return a status, as NVSHMEM's do. */
    int status = nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, 0) |
                 nvshmemx_team_sync_on_stream(NVSHMEMX_TEAM_NODE, 0) |
                 nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_SHARED, 0);
    nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, x, x, 4, 0);
    nvshmemx_long_broadcast_on_stream(NVSHMEM_TEAM_WORLD, (long *)x, (long *)x, 2, 0, 0);
    status |= nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, x, x, sizeof(int), 0) |
              nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, x + 2, x, sizeof(int)) |
              nvshmem_alltoallmem(NVSHMEM_TEAM_WORLD, x + 2, x, sizeof(int));
    int major, minor, patch;
    char name[NVSHMEM_MAX_NAME_LEN];
    nvshmem_info_get_version(&major, &minor);
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    nvshmem_info_get_name(name);
    nvshmem_free(x);
    nvshmem_finalize();
    return status ? status : nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
}
