/* Device helpers shared by the collectives' kernels: team members, equal shares of the work,
 * block-wide copies at the widest common alignment, and the launch of a collective kernel. */
#ifndef SYMCOLL_COLL_KERNEL_CUH
#define SYMCOLL_COLL_KERNEL_CUH

#include <stdint.h>
#include "arch_check.cuh"
#include "coll_launch.h"
#include "symcoll_device.cuh"

/* Blocks of at most SYMCOLL_TUNING_MAX_THREADS (coll_algorithms.h); tuning never asks for more.
 * One block per SM is enough (grids stay <= the SM count), so a kernel may use up to 128
 * registers per thread. */
#define COLL_LAUNCH_BOUNDS __launch_bounds__(SYMCOLL_TUNING_MAX_THREADS, 1)
/* At most 64 registers: two 512-thread blocks fit one SM, as they must for grids that fill
 * the SMs when two PEs share a GPU (their blocks then share SMs). */
#define COLL_LAUNCH_BOUNDS_2 __launch_bounds__(SYMCOLL_TUNING_MAX_THREADS, 2)

typedef void (*coll_kernel_t)(symcoll_coll_args_t);

static inline cudaError_t coll_launch(coll_kernel_t kernel, const symcoll_coll_args_t *args,
                                      int blocks, int threads, cudaStream_t stream) {
    void *params[] = {(void *)args};
    return cudaLaunchKernel((const void *)kernel, dim3(blocks), dim3(threads), params, 0, stream);
}

/* The team member `step` places after this PE (modulo the team): PEs that walk their peers
 * this way start with different ones. */
SYMCOLL_DEV int coll_member_after(const symcoll_device_t &h, int step) {
    return (h.team_my_pe + step) % h.team_size;
}

/* Team member `member`'s copy of the symmetric address addr. */
template <typename T>
SYMCOLL_DEV T *coll_member_ptr(const symcoll_device_t &h, T *addr, int member) {
    return symcoll_dev_peer(h, addr, symcoll_dev_team_to_world(h, member));
}

/* Part `index` of `parts` equal parts of [0, total), with boundaries at multiples of align. */
SYMCOLL_DEV void coll_share(size_t total, unsigned parts, unsigned index, size_t align,
                            size_t *begin, size_t *end) {
    size_t share = (total + parts - 1) / parts;
    share = (share + align - 1) / align * align;
    size_t first = (size_t)index * share;
    *begin = first < total ? first : total;
    *end = first + share < total ? first + share : total;
}

/* Block-wide copy at the widest access that dst and src allow together: the device API's wide
 * copy (any length: the ends of a short copy go one byte per thread). */
SYMCOLL_DEV void coll_copy(char *dst, const char *src, size_t len) {
    symcoll_dev_copy_wide(dst, src, len, threadIdx.x, blockDim.x);
}

#endif
