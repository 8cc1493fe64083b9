/* NVSHMEM_SYMMETRIC_SIZE sizes the heap unless SYMCOLL_SYMMETRIC_SIZE is set. Run with
 * NVSHMEM_SYMMETRIC_SIZE=64m: argument "small" expects a 96 MiB allocation to fail and a 16 MiB
 * one to succeed; "large" (SYMCOLL_SYMMETRIC_SIZE=256m set too) expects both to succeed. */
#include <nvshmem.h>
#include <string.h>
#include "check.h"

int main(int argc, char **argv) {
    int large = argc > 1 && strcmp(argv[1], "large") == 0;
    nvshmem_init();
    int me = nvshmem_my_pe();
    long bad = 0;
    void *small_block = nvshmem_malloc(16 << 20);
    bad += small_block == NULL;
    void *big_block = nvshmem_malloc(96 << 20);
    bad += large ? big_block == NULL : big_block != NULL;
    nvshmem_free(big_block);
    nvshmem_free(small_block);
    nvshmem_finalize();
    return report(large ? "heap_size large" : "heap_size small", me, bad);
}
