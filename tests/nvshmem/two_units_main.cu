/* A program whose kernels live in another translation unit (two_units_kernels.cu): that unit
 * calls nvshmemx_symcoll_init_tu() once, and its device calls work. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

long ring_in_other_unit(int *slots, int rounds); /* two_units_kernels.cu */

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe();
    set_device_of_node_pe();
    int *slots = (int *)nvshmem_calloc(64, sizeof(int));
    nvshmem_barrier_all();
    long bad = ring_in_other_unit(slots, 20);
    nvshmem_barrier_all();
    nvshmem_free(slots);
    nvshmem_finalize();
    return report("two_units", me, bad);
}
