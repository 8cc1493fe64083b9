#include "launcher.h"

#include <nccl.h>
#include <stdlib.h>

_Static_assert(sizeof(ncclUniqueId) * 2 == UNIQUEID_HEX_LEN, "NCCL unique id size changed");

static bool debug_enabled(void) {
    const char *level = getenv("SYMCOLL_DEBUG");
    return level != NULL && atoi(level) > 0;
}

bool create_uniqueid_hex(char *hex) {
    ncclUniqueId id;
    ncclResult_t status = ncclGetUniqueId(&id);
    if (status != ncclSuccess) {
        if (debug_enabled())
            fprintf(stderr,
                    LAUNCHER_NAME ": warning: ncclGetUniqueId: %s; the PEs exchange through "
                                  "the socket bootstrap instead\n",
                    ncclGetErrorString(status));
        return false;
    }
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof id.internal; i++) {
        unsigned char byte = (unsigned char)id.internal[i];
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 0xf];
    }
    hex[UNIQUEID_HEX_LEN] = '\0';
    return true;
}
