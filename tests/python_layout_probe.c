/* The layouts of the structures the Python package passes through ctypes, as this compiler lays
 * them out, printed as JSON for python/tests/test_capi.py to compare with its own. */
#include <stddef.h>
#include <stdio.h>
#include "symcoll.h"

#define FIELD(type, field, last)                                                                   \
    printf("\"%s\": [%zu, %zu]%s", #field, offsetof(type, field), sizeof(((type *)0)->field),      \
           last ? "" : ", ")

int main(void) {
    printf("{\"symcoll_init_attr_t\": {\"size\": %zu, \"fields\": {", sizeof(symcoll_init_attr_t));
    FIELD(symcoll_init_attr_t, version, 0);
    FIELD(symcoll_init_attr_t, heap_size, 0);
    FIELD(symcoll_init_attr_t, device, 0);
    FIELD(symcoll_init_attr_t, bootstrap, 0);
    FIELD(symcoll_init_attr_t, uniqueid, 0);
    FIELD(symcoll_init_attr_t, rank, 0);
    FIELD(symcoll_init_attr_t, size, 0);
    FIELD(symcoll_init_attr_t, nccl_comm, 0);
    FIELD(symcoll_init_attr_t, callbacks, 1);
    printf("}}, \"symcoll_bootstrap_callbacks_t\": {\"size\": %zu, \"fields\": {",
           sizeof(symcoll_bootstrap_callbacks_t));
    FIELD(symcoll_bootstrap_callbacks_t, allgather, 0);
    FIELD(symcoll_bootstrap_callbacks_t, barrier, 0);
    FIELD(symcoll_bootstrap_callbacks_t, context, 1);
    printf("}}, \"symcoll_gpu_sharing_t\": {\"size\": %zu, \"fields\": {",
           sizeof(symcoll_gpu_sharing_t));
    FIELD(symcoll_gpu_sharing_t, sm_share, 0);
    FIELD(symcoll_gpu_sharing_t, device_sms, 0);
    FIELD(symcoll_gpu_sharing_t, pes_on_gpu, 0);
    FIELD(symcoll_gpu_sharing_t, mps, 0);
    FIELD(symcoll_gpu_sharing_t, divided, 1);
    printf("}}, \"symcoll_halo_desc_t\": {\"size\": %zu, \"fields\": {",
           sizeof(symcoll_halo_desc_t));
    FIELD(symcoll_halo_desc_t, version, 0);
    FIELD(symcoll_halo_desc_t, ndims, 0);
    FIELD(symcoll_halo_desc_t, pe_grid, 0);
    FIELD(symcoll_halo_desc_t, periodic, 0);
    FIELD(symcoll_halo_desc_t, interior, 0);
    FIELD(symcoll_halo_desc_t, width, 0);
    FIELD(symcoll_halo_desc_t, pitch, 0);
    FIELD(symcoll_halo_desc_t, type, 0);
    FIELD(symcoll_halo_desc_t, corners, 1);
    printf("}}}\n");
    return 0;
}
