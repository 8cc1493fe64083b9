/* libucp through dlopen: the function table and the message of a failed call. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "ucx_lib.h"

symcoll_status_t symcoll_ucx_lib_open(const char *soname, symcoll_ucx_lib_t *lib) {
    memset(lib, 0, sizeof *lib);
    /* RTLD_NODELETE: UCX's memory hooks (libucm) patch other libraries' relocations to point
     * into it, so unloading it would leave those pointing at unmapped code. */
    lib->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib->handle)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "UCX transport: cannot open %s (%s): install UCX 1.x (Debian and "
                                 "Ubuntu: apt-get install libucx0; or put the lib folder of pip's "
                                 "libucx wheel on LD_LIBRARY_PATH)",
                                 soname, dlerror());
    const char *missing = NULL;
#define SYMCOLL_UCX_LOAD(name)                                                                     \
    *(void **)&lib->name = dlsym(lib->handle, #name);                                              \
    if (!lib->name && !missing)                                                                    \
        missing = #name;
    SYMCOLL_UCX_FUNCTIONS(SYMCOLL_UCX_LOAD)
#undef SYMCOLL_UCX_LOAD
    if (missing) {
        symcoll_ucx_lib_close(lib);
        return symcoll_set_error(
            SYMCOLL_ERROR_UNSUPPORTED,
            "UCX transport: %s has no %s: install a newer UCX (1.13 is tested)", soname, missing);
    }
    return SYMCOLL_SUCCESS;
}

void symcoll_ucx_lib_close(symcoll_ucx_lib_t *lib) {
    if (lib->handle)
        dlclose(lib->handle);
    memset(lib, 0, sizeof *lib);
}

symcoll_status_t symcoll_ucx_fail(const symcoll_ucx_lib_t *lib, const char *call,
                                  ucs_status_t status, const char *fmt, ...) {
    char context[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(context, sizeof context, fmt, args);
    va_end(args);
    symcoll_status_t mapped = SYMCOLL_ERROR_SYSTEM;
    if (status == UCS_ERR_TIMED_OUT || status == UCS_ERR_ENDPOINT_TIMEOUT)
        mapped = SYMCOLL_ERROR_TIMEOUT;
    else if (status == UCS_ERR_NO_MEMORY)
        mapped = SYMCOLL_ERROR_OUT_OF_MEMORY;
    else if (status == UCS_ERR_UNSUPPORTED)
        mapped = SYMCOLL_ERROR_UNSUPPORTED;
    return symcoll_set_error(mapped, "UCX transport: %s failed: %s (%s)", call,
                             lib->ucs_status_string(status), context);
}
