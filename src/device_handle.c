/* The device handle that user kernels receive by value. */
#include <string.h>
#include "internal.h"

symcoll_device_t symcoll_device_handle(symcoll_team_t team) {
    symcoll_team_state_t *t;
    if (symcoll_team_for_call("symcoll_device_handle", team, &t) != SYMCOLL_SUCCESS) {
        symcoll_device_t none;
        memset(&none, 0, sizeof none);
        return none;
    }
    return symcoll_team_device(t);
}
