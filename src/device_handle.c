/* The device handle that user kernels receive by value, for the header version they were
 * compiled with. */
#include <string.h>
#include "internal.h"

symcoll_status_t symcoll_handle_version_check(const char *fn, const char *what, uint32_t version,
                                              size_t size, uint32_t filled, size_t filled_size,
                                              void *out) {
    if (!out)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    if (version != filled || size != filled_size) {
        /* size is the caller's own handle (a newer header's may be larger): all of it is
         * zeroed, so that no field of an uninitialized handle reaches a kernel. */
        memset(out, 0, size);
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: the kernel's header has %s version %u (%zu bytes), this "
                                 "library fills version %u (%zu bytes): rebuild against the "
                                 "installed symcoll headers",
                                 fn, what, version, size, filled, filled_size);
    }
    memset(out, 0, filled_size);
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_device_handle_get(symcoll_team_t team, uint32_t version, size_t size,
                                           symcoll_device_t *out) {
    const char *fn = "symcoll_device_handle";
    symcoll_status_t st =
        symcoll_handle_version_check(fn, "device handle", version, size,
                                     SYMCOLL_DEVICE_HANDLE_VERSION, sizeof(symcoll_device_t), out);
    if (st != SYMCOLL_SUCCESS)
        return st;
    symcoll_team_state_t *t;
    st = symcoll_team_for_call(fn, team, &t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *out = symcoll_team_device(t);
    return SYMCOLL_SUCCESS;
}
