/* The device handle that user kernels receive by value, for the header version they were
 * compiled with. */
#include <string.h>
#include "internal.h"

symcoll_status_t symcoll_device_handle_get(symcoll_team_t team, uint32_t version, size_t size,
                                           symcoll_device_t *out) {
    const char *fn = "symcoll_device_handle";
    if (!out)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    if (version != SYMCOLL_DEVICE_HANDLE_VERSION || size != sizeof(symcoll_device_t)) {
        /* size is the caller's own handle (a newer header's may be larger): all of it is
         * zeroed, so that no field of an uninitialized handle reaches a kernel. */
        memset(out, 0, size);
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "%s: the kernel's header has device handle version %u (%zu "
                                 "bytes), this library fills version %u (%zu bytes): rebuild "
                                 "against the installed symcoll headers",
                                 fn, version, size, (unsigned)SYMCOLL_DEVICE_HANDLE_VERSION,
                                 sizeof(symcoll_device_t));
    }
    memset(out, 0, sizeof *out);
    symcoll_team_state_t *t;
    symcoll_status_t st = symcoll_team_for_call(fn, team, &t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    *out = symcoll_team_device(t);
    return SYMCOLL_SUCCESS;
}
