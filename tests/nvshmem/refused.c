/* A call that symcoll's NVSHMEM header cannot serve: compiling this must fail with a message
 * naming the call (tests/nvshmem.cmake checks the compiler's output). */
#include <nvshmem.h>
#include <nvshmemx.h>

int refused(void);
int refused(void) {
    return REFUSED_CALL;
}
