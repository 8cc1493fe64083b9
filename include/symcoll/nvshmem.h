/* NVSHMEM programs on symcoll, within one node: the OpenSHMEM/NVSHMEM names mapped onto
 * symcoll's public API (symcoll.h, symcoll_device.cuh). Header-only: every function is
 * static inline (host) or static __device__ inline (device); libsymcoll exports nothing new.
 *
 * Put this folder first on the include path (CMake: link symcoll::nvshmem; nvcc:
 * -I<prefix>/include/symcoll -I<prefix>/include) and an NVSHMEM program builds unchanged:
 * `#include <nvshmem.h>` and `#include <nvshmemx.h>` resolve here. nvshmemx.h holds the
 * nvshmemx_ extensions (on-stream calls, warp/block scopes, init attributes); each header
 * includes the other, as NVSHMEM's do.
 *
 * Device calls take no handle: they read a per-translation-unit __constant__ copy of the
 * WORLD and NODE handles that nvshmem_init fills for the unit that calls it. Any other unit
 * with kernels that make NVSHMEM calls must call nvshmemx_symcoll_init_tu() once after
 * init (with or without -rdc). A C or plain C++ unit gets the host API only.
 *
 * Device collectives (nvshmemx.h: team barrier and sync, reductions, reducescatter, broadcast,
 * fcollect, alltoall, at warp and block scope; C++17) admit one warp or block per team and PE
 * at a time, and no host collective of the team while the kernel runs. barrier_all and
 * sync_all, at any scope, are a WORLD barrier of their own with the same one-group rule.
 *
 * Calls this header cannot serve (multi-node transports, collective launch, team splits,
 * contexts, atomics) fail to compile, with a message that names the call.
 */
#ifndef SYMCOLL_NVSHMEM_H
#define SYMCOLL_NVSHMEM_H

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../symcoll.h"
#ifdef __CUDACC__
#include "../symcoll_device.cuh"
#endif
#ifdef __cplusplus
/* half and __nv_bfloat16, for their reductions (C++ only, as in NVSHMEM). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

/* The NVSHMEM release whose API this header serves: programs test NVSHMEM_VENDOR_VERSION (or
 * the _MAJOR/_MINOR ones) in #if for features. NVSHMEM_MAJOR/MINOR_VERSION are, as in NVSHMEM,
 * the version of the OpenSHMEM specification it follows (1.3), not the release. */
#define NVSHMEM_VENDOR_STRING "symcoll NVSHMEM compatibility header"
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 0
#define NVSHMEM_VENDOR_PATCH_VERSION 0
#define NVSHMEM_VENDOR_VERSION                                                                     \
    (NVSHMEM_VENDOR_MAJOR_VERSION * 10000 + NVSHMEM_VENDOR_MINOR_VERSION * 100 +                   \
     NVSHMEM_VENDOR_PATCH_VERSION)
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_MAX_NAME_LEN 256
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5

/* ---- refusals: a call that cannot be served is a compile-time error naming it ---- */

/* An expression that fails to compile, with msg in the compiler's message. */
#ifdef __cplusplus
#define NVSHMEMI_REFUSE(msg)                                                                       \
    ([]() -> int {                                                                                 \
        static_assert(sizeof(char) == 0, msg);                                                     \
        return 0;                                                                                  \
    }())
#else
#define NVSHMEMI_REFUSE(msg)                                                                       \
    ((int)sizeof(struct {                                                                          \
        _Static_assert(0, msg);                                                                    \
        int refused;                                                                               \
    }))
#endif
#define NVSHMEMI_REFUSE_CALL(name, why)                                                            \
    NVSHMEMI_REFUSE(#name " is not supported by the symcoll NVSHMEM header: " why)

/* ---- host and device ---- */

#ifdef __CUDACC__
#define NVSHMEMI_HOSTDEV __host__ __device__
#else
#define NVSHMEMI_HOSTDEV
#endif
#ifdef __cplusplus
#define NVSHMEMI_THREAD_LOCAL thread_local
#else
#define NVSHMEMI_THREAD_LOCAL _Thread_local
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants and types ---- */

typedef symcoll_team_t nvshmem_team_t;
#define NVSHMEM_TEAM_INVALID SYMCOLL_TEAM_INVALID
#define NVSHMEM_TEAM_WORLD SYMCOLL_TEAM_WORLD
#define NVSHMEMX_TEAM_NODE SYMCOLL_TEAM_NODE
/* Every PE of a node that shares memory. A handle of its own, as in NVSHMEM, so that a switch
 * may name it beside NVSHMEMX_TEAM_NODE; within one node both are symcoll's NODE team. */
#define NVSHMEM_TEAM_SHARED ((nvshmem_team_t)-2)
#define NVSHMEM_TEAM_WORLD_INDEX 0
#define NVSHMEM_TEAM_SHARED_INDEX 1
#define NVSHMEMX_TEAM_NODE_INDEX 2

enum {
    NVSHMEM_CMP_EQ = SYMCOLL_CMP_EQ,
    NVSHMEM_CMP_NE = SYMCOLL_CMP_NE,
    NVSHMEM_CMP_GT = SYMCOLL_CMP_GT,
    NVSHMEM_CMP_GE = SYMCOLL_CMP_GE,
    NVSHMEM_CMP_LT = SYMCOLL_CMP_LT,
    NVSHMEM_CMP_LE = SYMCOLL_CMP_LE
};
enum { NVSHMEM_SIGNAL_SET = SYMCOLL_SIGNAL_SET, NVSHMEM_SIGNAL_ADD = SYMCOLL_SIGNAL_ADD };

/* Exit status of a program whose nvshmem_init fails because the machine has no GPU (NVSHMEM
 * exits on a failed nvshmem_init; test harnesses define 77, "skipped"). */
#ifndef NVSHMEMX_SYMCOLL_NO_GPU_EXIT
#define NVSHMEMX_SYMCOLL_NO_GPU_EXIT 1
#endif

/* What device code reads: the WORLD and NODE handles and the device barrier's symmetric
 * area (arrival[n_pes], then this PE's own count of barriers). */
typedef struct {
    symcoll_device_t world;
    symcoll_device_t node;
    uint64_t *barrier;
} nvshmemi_symcoll_device_state_t;

/* One copy per program (or shared library): weak, so that every unit that includes this
 * header shares it, in C as in C++. */
typedef struct {
    int initialized;
    nvshmemi_symcoll_device_state_t device;
} nvshmemi_symcoll_state_t;
__attribute__((weak, visibility("hidden"))) nvshmemi_symcoll_state_t nvshmemi_symcoll_state;

/* ---- errors: NVSHMEM's void calls report on stderr with symcoll's reason ---- */

static inline int nvshmemi_report(symcoll_status_t status, const char *fn) {
    if (status != SYMCOLL_SUCCESS)
        fprintf(stderr, "%s: %s (%s)\n", fn, symcoll_last_error(), symcoll_status_string(status));
    return (int)status;
}
static inline int nvshmemi_report_cuda(cudaError_t err, const char *fn) {
    if (err != cudaSuccess)
        fprintf(stderr, "%s: %s\n", fn, cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : (int)SYMCOLL_ERROR_CUDA;
}

/* ---- init and finalize ---- */

/* NVSHMEM_SYMMETRIC_SIZE, read as symcoll reads every size (symcoll_parse_bytes: "512m",
 * "1.5g", "16GB"; fractions rounded up). 0 on success. */
static inline int nvshmemi_parse_size(const char *text, size_t *bytes) {
    return symcoll_parse_bytes(text, bytes) == SYMCOLL_SUCCESS ? 0 : -1;
}

/* Fills this unit's __constant__ copy (defined further down for CUDA units). */
static inline int nvshmemx_symcoll_init_tu(void);

/* symcoll_init with NVSHMEM_SYMMETRIC_SIZE as the heap size unless SYMCOLL_SYMMETRIC_SIZE is
 * set, then the handles and the device barrier's area. */
static inline int nvshmemi_init(symcoll_init_attr_t *attr, const char *fn) {
    const char *size = getenv("NVSHMEM_SYMMETRIC_SIZE");
    if (size && !getenv("SYMCOLL_SYMMETRIC_SIZE") && nvshmemi_parse_size(size, &attr->heap_size)) {
        fprintf(stderr, "%s: NVSHMEM_SYMMETRIC_SIZE=%s is not a size (e.g. 512m, 2G)\n", fn, size);
        return (int)SYMCOLL_ERROR_INVALID_ARGUMENT;
    }
    symcoll_status_t status = symcoll_init(attr);
    if (status != SYMCOLL_SUCCESS)
        return nvshmemi_report(status, fn);
    nvshmemi_symcoll_state_t *s = &nvshmemi_symcoll_state;
    s->device.world = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    s->device.node = symcoll_device_handle(SYMCOLL_TEAM_NODE);
    s->device.barrier = (uint64_t *)symcoll_calloc((size_t)symcoll_n_pes() + 1, sizeof(uint64_t));
    if (s->device.world.team_size == 0 || s->device.node.team_size == 0 || !s->device.barrier) {
        status = s->device.barrier ? SYMCOLL_ERROR_INTERNAL : SYMCOLL_ERROR_OUT_OF_MEMORY;
        nvshmemi_report(status, fn);
        symcoll_finalize();
        return (int)status;
    }
    s->initialized = 1;
    return nvshmemx_symcoll_init_tu();
}

/* NVSHMEM exits when nvshmem_init fails: so does this, after saying why. */
static inline void nvshmem_init(void) {
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    int status = nvshmemi_init(&attr, "nvshmem_init");
    if (status != 0)
        exit(status == SYMCOLL_ERROR_NO_GPU ? NVSHMEMX_SYMCOLL_NO_GPU_EXIT : 1);
}

static inline void nvshmem_finalize(void) {
    nvshmemi_symcoll_state_t *s = &nvshmemi_symcoll_state;
    if (s->initialized)
        symcoll_free(s->device.barrier);
    s->initialized = 0;
    nvshmemi_report(symcoll_finalize(), "nvshmem_finalize");
}

/* NVSHMEM's initialization states, in its order (programs compare them with >=); this header
 * reports the first or IS_INITIALIZED. */
typedef enum {
    NVSHMEM_STATUS_NOT_INITIALIZED = 0,
    NVSHMEM_STATUS_IS_BOOTSTRAPPED,
    NVSHMEM_STATUS_IS_INITIALIZED,
    NVSHMEM_STATUS_LIMITED_MPG,
    NVSHMEM_STATUS_FULL_MPG
} nvshmemx_init_status_t;
static inline int nvshmemx_init_status(void) {
    return nvshmemi_symcoll_state.initialized ? NVSHMEM_STATUS_IS_INITIALIZED
                                              : NVSHMEM_STATUS_NOT_INITIALIZED;
}

/* ---- version queries (host and device) ---- */

/* The OpenSHMEM specification version, as NVSHMEM reports it. */
static inline NVSHMEMI_HOSTDEV void nvshmem_info_get_version(int *major, int *minor) {
    *major = NVSHMEM_MAJOR_VERSION;
    *minor = NVSHMEM_MINOR_VERSION;
}
/* The NVSHMEM release whose API this header serves. */
static inline NVSHMEMI_HOSTDEV void nvshmemx_vendor_get_version_info(int *major, int *minor,
                                                                     int *patch) {
    *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
/* NVSHMEM_VENDOR_STRING into name, which holds NVSHMEM_MAX_NAME_LEN bytes (a loop: the device
 * has no strncpy). */
static inline NVSHMEMI_HOSTDEV void nvshmem_info_get_name(char *name) {
    const char *vendor = NVSHMEM_VENDOR_STRING;
    size_t i = 0;
    for (; vendor[i] != '\0' && i + 1 < NVSHMEM_MAX_NAME_LEN; i++)
        name[i] = vendor[i];
    name[i] = '\0';
}

/* ---- PEs and teams (host; the device versions read the handles) ---- */

#ifdef __CUDACC__
static __device__ inline const nvshmemi_symcoll_device_state_t *nvshmemi_device_state(void);
#endif

static inline NVSHMEMI_HOSTDEV int nvshmem_my_pe(void) {
#ifdef __CUDA_ARCH__
    return nvshmemi_device_state()->world.my_pe;
#else
    return symcoll_my_pe();
#endif
}
static inline NVSHMEMI_HOSTDEV int nvshmem_n_pes(void) {
#ifdef __CUDA_ARCH__
    return nvshmemi_device_state()->world.n_pes;
#else
    return symcoll_n_pes();
#endif
}
/* symcoll's team of an NVSHMEM team handle. */
static inline NVSHMEMI_HOSTDEV symcoll_team_t nvshmemi_team(nvshmem_team_t team) {
    return team == NVSHMEM_TEAM_SHARED ? SYMCOLL_TEAM_NODE : team;
}

/* On the device: WORLD and NODE (SHARED); other teams give -1. */
static inline NVSHMEMI_HOSTDEV int nvshmem_team_my_pe(nvshmem_team_t team) {
    team = nvshmemi_team(team);
#ifdef __CUDA_ARCH__
    const nvshmemi_symcoll_device_state_t *s = nvshmemi_device_state();
    return team == SYMCOLL_TEAM_WORLD  ? s->world.team_my_pe
           : team == SYMCOLL_TEAM_NODE ? s->node.team_my_pe
                                       : -1;
#else
    return symcoll_team_my_pe(team);
#endif
}
static inline NVSHMEMI_HOSTDEV int nvshmem_team_n_pes(nvshmem_team_t team) {
    team = nvshmemi_team(team);
#ifdef __CUDA_ARCH__
    const nvshmemi_symcoll_device_state_t *s = nvshmemi_device_state();
    return team == SYMCOLL_TEAM_WORLD  ? s->world.team_size
           : team == SYMCOLL_TEAM_NODE ? s->node.team_size
                                       : -1;
#else
    return symcoll_team_n_pes(team);
#endif
}
#ifdef __CUDACC__
/* The device handle of a team the device knows (WORLD and NODE), else NULL. */
static inline __device__ const symcoll_device_t *nvshmemi_device_team(symcoll_team_t team) {
    const nvshmemi_symcoll_device_state_t *s = nvshmemi_device_state();
    return team == SYMCOLL_TEAM_WORLD ? &s->world : team == SYMCOLL_TEAM_NODE ? &s->node : NULL;
}
#endif
/* src_pe of src_team as a PE of dest_team, or -1 (not a member; on the device: a team other
 * than WORLD, NODE and SHARED). */
static inline NVSHMEMI_HOSTDEV int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe,
                                                             nvshmem_team_t dest_team) {
#ifdef __CUDA_ARCH__
    const symcoll_device_t *from = nvshmemi_device_team(nvshmemi_team(src_team));
    const symcoll_device_t *to = nvshmemi_device_team(nvshmemi_team(dest_team));
    if (!from || !to || src_pe < 0 || src_pe >= from->team_size)
        return -1;
    int offset = from->team_start + src_pe * from->team_stride - to->team_start;
    if (offset < 0 || offset % to->team_stride)
        return -1;
    return offset / to->team_stride < to->team_size ? offset / to->team_stride : -1;
#else
    return symcoll_team_translate_pe(nvshmemi_team(src_team), src_pe, nvshmemi_team(dest_team));
#endif
}

/* ---- symmetric memory (collective; host) ---- */

/* NULL with the reason on stderr (out of heap, PEs that disagree, not initialized). */
static inline void *nvshmemi_allocated(void *ptr, int asked, const char *fn) {
    if (!ptr && asked)
        fprintf(stderr, "%s: %s\n", fn, symcoll_last_error());
    return ptr;
}
static inline void *nvshmem_malloc(size_t size) {
    return nvshmemi_allocated(symcoll_malloc(size), size != 0, "nvshmem_malloc");
}
static inline void *nvshmem_calloc(size_t count, size_t size) {
    return nvshmemi_allocated(symcoll_calloc(count, size), count && size, "nvshmem_calloc");
}
/* symcoll aligns every allocation to 256 bytes: larger alignments are refused (NULL). */
static inline void *nvshmem_align(size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 256) {
        fprintf(stderr,
                "nvshmem_align: alignment %zu is not a power of two up to 256 (symcoll aligns "
                "every symmetric allocation to 256 bytes)\n",
                alignment);
        return NULL;
    }
    return nvshmem_malloc(size);
}
static inline void nvshmem_free(void *ptr) {
    nvshmemi_report(symcoll_free_checked(ptr), "nvshmem_free");
}

/* pe's copy of ptr if this PE's GPU can load and store it, else NULL. */
static inline NVSHMEMI_HOSTDEV void *nvshmem_ptr(const void *ptr, int pe) {
#ifdef __CUDA_ARCH__
    return symcoll_dev_ptr(nvshmemi_device_state()->world, (char *)ptr, pe);
#else
    return symcoll_ptr(ptr, pe);
#endif
}

/* ---- RMA: one host path, one device path for every typed name ---- */

/* Host puts and gets copy through pe's mapping of the symmetric address (src and dst may be
 * host or device memory); the blocking ones wait, the _nbi ones are ordered on the calling
 * thread's default stream and complete at nvshmem_quiet. */
static inline void nvshmemi_host_copy(void *dst, const void *src, size_t bytes, int nbi,
                                      const char *fn) {
    if (bytes == 0)
        return;
    if (!dst || !src) {
        fprintf(stderr, "%s: %s is NULL\n", fn, dst ? "the source" : "the destination");
        return;
    }
    cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread);
    if (err == cudaSuccess && !nbi)
        err = cudaStreamSynchronize(cudaStreamPerThread);
    nvshmemi_report_cuda(err, fn);
}
/* pe's mapping of [sym, sym + bytes), both ends symmetric; NULL (said on stderr) if not. */
static inline void *nvshmemi_host_peer(const void *sym, size_t bytes, int pe, const char *fn) {
    if (bytes == 0)
        return NULL;
    void *peer = symcoll_ptr(sym, pe);
    if (!peer || !symcoll_ptr((const char *)sym + (bytes - 1), pe)) {
        fprintf(stderr, "%s: %s\n", fn, symcoll_last_error());
        return NULL;
    }
    return peer;
}

static inline NVSHMEMI_HOSTDEV void nvshmemi_putmem(void *dest, const void *source, size_t bytes,
                                                    int pe, int nbi, const char *fn) {
#ifdef __CUDA_ARCH__
    (void)nbi, (void)fn;
    symcoll_dev_put(nvshmemi_device_state()->world, dest, source, bytes, pe);
#else
    void *peer = nvshmemi_host_peer(dest, bytes, pe, fn);
    if (peer)
        nvshmemi_host_copy(peer, source, bytes, nbi, fn);
#endif
}
static inline NVSHMEMI_HOSTDEV void nvshmemi_getmem(void *dest, const void *source, size_t bytes,
                                                    int pe, int nbi, const char *fn) {
#ifdef __CUDA_ARCH__
    (void)nbi, (void)fn;
    symcoll_dev_get(nvshmemi_device_state()->world, dest, source, bytes, pe);
#else
    const void *peer = nvshmemi_host_peer(source, bytes, pe, fn);
    if (peer)
        nvshmemi_host_copy(dest, peer, bytes, nbi, fn);
#endif
}

/* p and g of one element of 1, 2, 4 or 8 bytes: on the device one volatile access. */
static inline NVSHMEMI_HOSTDEV void nvshmemi_p(void *dest, const void *value, size_t bytes, int pe,
                                               const char *fn) {
#ifdef __CUDA_ARCH__
    const symcoll_device_t &h = nvshmemi_device_state()->world;
    (void)fn;
    switch (bytes) {
    case 1:
        symcoll_dev_p(h, (uint8_t *)dest, *(const uint8_t *)value, pe);
        break;
    case 2:
        symcoll_dev_p(h, (uint16_t *)dest, *(const uint16_t *)value, pe);
        break;
    case 4:
        symcoll_dev_p(h, (uint32_t *)dest, *(const uint32_t *)value, pe);
        break;
    default:
        symcoll_dev_p(h, (uint64_t *)dest, *(const uint64_t *)value, pe);
        break;
    }
#else
    nvshmemi_putmem(dest, value, bytes, pe, 0, fn);
#endif
}
static inline NVSHMEMI_HOSTDEV void nvshmemi_g(void *value, const void *source, size_t bytes,
                                               int pe, const char *fn) {
#ifdef __CUDA_ARCH__
    const symcoll_device_t &h = nvshmemi_device_state()->world;
    (void)fn;
    switch (bytes) {
    case 1:
        *(uint8_t *)value = symcoll_dev_g(h, (const uint8_t *)source, pe);
        break;
    case 2:
        *(uint16_t *)value = symcoll_dev_g(h, (const uint16_t *)source, pe);
        break;
    case 4:
        *(uint32_t *)value = symcoll_dev_g(h, (const uint32_t *)source, pe);
        break;
    default:
        *(uint64_t *)value = symcoll_dev_g(h, (const uint64_t *)source, pe);
        break;
    }
#else
    nvshmemi_getmem(value, source, bytes, pe, 0, fn);
#endif
}

/* The standard RMA types: X(TYPE, TYPENAME). */
#define NVSHMEMI_RMA_TYPES(X)                                                                      \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* The sized names: X(BITS). */
#define NVSHMEMI_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

#define NVSHMEMI_DEFINE_RMA(TYPE, NAME)                                                            \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_p(TYPE *dest, TYPE value, int pe) {       \
        nvshmemi_p(dest, &value, sizeof value, pe, "nvshmem_" #NAME "_p");                         \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV TYPE nvshmem_##NAME##_g(const TYPE *source, int pe) {           \
        TYPE value;                                                                                \
        nvshmemi_g(&value, source, sizeof value, pe, "nvshmem_" #NAME "_g");                       \
        return value;                                                                              \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_put(TYPE *dest, const TYPE *source,       \
                                                             size_t nelems, int pe) {              \
        nvshmemi_putmem(dest, source, nelems * sizeof(TYPE), pe, 0, "nvshmem_" #NAME "_put");      \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source,   \
                                                                 size_t nelems, int pe) {          \
        nvshmemi_putmem(dest, source, nelems * sizeof(TYPE), pe, 1, "nvshmem_" #NAME "_put_nbi");  \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_get(TYPE *dest, const TYPE *source,       \
                                                             size_t nelems, int pe) {              \
        nvshmemi_getmem(dest, source, nelems * sizeof(TYPE), pe, 0, "nvshmem_" #NAME "_get");      \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source,   \
                                                                 size_t nelems, int pe) {          \
        nvshmemi_getmem(dest, source, nelems * sizeof(TYPE), pe, 1, "nvshmem_" #NAME "_get_nbi");  \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_RMA)

#define NVSHMEMI_DEFINE_RMA_SIZE(BITS)                                                             \
    static inline NVSHMEMI_HOSTDEV void nvshmem_put##BITS(void *dest, const void *source,          \
                                                          size_t nelems, int pe) {                 \
        nvshmemi_putmem(dest, source, nelems *(BITS / 8), pe, 0, "nvshmem_put" #BITS);             \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_put##BITS##_nbi(void *dest, const void *source,    \
                                                                size_t nelems, int pe) {           \
        nvshmemi_putmem(dest, source, nelems *(BITS / 8), pe, 1, "nvshmem_put" #BITS "_nbi");      \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_get##BITS(void *dest, const void *source,          \
                                                          size_t nelems, int pe) {                 \
        nvshmemi_getmem(dest, source, nelems *(BITS / 8), pe, 0, "nvshmem_get" #BITS);             \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_get##BITS##_nbi(void *dest, const void *source,    \
                                                                size_t nelems, int pe) {           \
        nvshmemi_getmem(dest, source, nelems *(BITS / 8), pe, 1, "nvshmem_get" #BITS "_nbi");      \
    }
NVSHMEMI_RMA_SIZES(NVSHMEMI_DEFINE_RMA_SIZE)

static inline NVSHMEMI_HOSTDEV void nvshmem_putmem(void *dest, const void *source, size_t nelems,
                                                   int pe) {
    nvshmemi_putmem(dest, source, nelems, pe, 0, "nvshmem_putmem");
}
static inline NVSHMEMI_HOSTDEV void nvshmem_putmem_nbi(void *dest, const void *source,
                                                       size_t nelems, int pe) {
    nvshmemi_putmem(dest, source, nelems, pe, 1, "nvshmem_putmem_nbi");
}
static inline NVSHMEMI_HOSTDEV void nvshmem_getmem(void *dest, const void *source, size_t nelems,
                                                   int pe) {
    nvshmemi_getmem(dest, source, nelems, pe, 0, "nvshmem_getmem");
}
static inline NVSHMEMI_HOSTDEV void nvshmem_getmem_nbi(void *dest, const void *source,
                                                       size_t nelems, int pe) {
    nvshmemi_getmem(dest, source, nelems, pe, 1, "nvshmem_getmem_nbi");
}

/* ---- put with signal (device: symcoll_dev_put_signal; host: symcoll_put_signal_on_stream
 * on the calling thread's default stream, waited for; its source must be GPU memory) ---- */

/* The first active thread of the calling warp (the host: always): one line per warp. */
static inline NVSHMEMI_HOSTDEV int nvshmemi_first_of_warp(void) {
#ifdef __CUDA_ARCH__
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return (__activemask() & ((1u << lane) - 1)) == 0;
#else
    return 1;
#endif
}
/* A cmp or sig_op of the program that is none of NVSHMEM's: no status can refuse it on the
 * device, so the device's printf says so and the call does nothing (a wait returns at once,
 * a test returns 0, a put with signal neither puts nor signals). The host calls take the
 * values to symcoll's API, which refuses them with a status. */
static inline NVSHMEMI_HOSTDEV int nvshmemi_cmp_valid(int cmp, const char *fn) {
    if (cmp >= NVSHMEM_CMP_EQ && cmp <= NVSHMEM_CMP_LE)
        return 1;
    if (nvshmemi_first_of_warp())
        printf("%s: cmp %d is not an NVSHMEM_CMP_ value; the call does nothing\n", fn, cmp);
    return 0;
}
static inline NVSHMEMI_HOSTDEV int nvshmemi_sig_op_valid(int sig_op, const char *fn) {
    if (sig_op == NVSHMEM_SIGNAL_SET || sig_op == NVSHMEM_SIGNAL_ADD)
        return 1;
    if (nvshmemi_first_of_warp())
        printf("%s: sig_op %d is neither NVSHMEM_SIGNAL_SET nor NVSHMEM_SIGNAL_ADD; the call does "
               "nothing\n",
               fn, sig_op);
    return 0;
}

static inline NVSHMEMI_HOSTDEV void nvshmemi_putmem_signal(void *dest, const void *source,
                                                           size_t bytes, uint64_t *sig_addr,
                                                           uint64_t signal, int sig_op, int pe,
                                                           const char *fn) {
#ifdef __CUDA_ARCH__
    if (nvshmemi_sig_op_valid(sig_op, fn))
        symcoll_dev_put_signal(nvshmemi_device_state()->world, dest, source, bytes, sig_addr,
                               signal, (symcoll_signal_op_t)sig_op, pe);
#else
    nvshmemi_report(symcoll_put_signal_on_stream(dest, source, bytes, sig_addr, signal,
                                                 (symcoll_signal_op_t)sig_op, pe,
                                                 cudaStreamPerThread),
                    fn);
    nvshmemi_report_cuda(cudaStreamSynchronize(cudaStreamPerThread), fn);
#endif
}

static inline NVSHMEMI_HOSTDEV void nvshmem_putmem_signal(void *dest, const void *source,
                                                          size_t nelems, uint64_t *sig_addr,
                                                          uint64_t signal, int sig_op, int pe) {
    nvshmemi_putmem_signal(dest, source, nelems, sig_addr, signal, sig_op, pe,
                           "nvshmem_putmem_signal");
}
static inline NVSHMEMI_HOSTDEV void nvshmem_putmem_signal_nbi(void *dest, const void *source,
                                                              size_t nelems, uint64_t *sig_addr,
                                                              uint64_t signal, int sig_op, int pe) {
    nvshmemi_putmem_signal(dest, source, nelems, sig_addr, signal, sig_op, pe,
                           "nvshmem_putmem_signal_nbi");
}

#define NVSHMEMI_DEFINE_PUT_SIGNAL(TYPE, NAME)                                                     \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_put_signal(                               \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
        int sig_op, int pe) {                                                                      \
        nvshmemi_putmem_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe,  \
                               "nvshmem_" #NAME "_put_signal");                                    \
    }                                                                                              \
    static inline NVSHMEMI_HOSTDEV void nvshmem_##NAME##_put_signal_nbi(                           \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
        int sig_op, int pe) {                                                                      \
        nvshmemi_putmem_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe,  \
                               "nvshmem_" #NAME "_put_signal_nbi");                                \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_DEFINE_PUT_SIGNAL)

/* ---- ordering and synchronization (host side) ---- */

#ifndef __CUDA_ARCH__
/* Host puts are ordered on the calling thread's default stream: fence and quiet wait for
 * the _nbi ones. */
static inline void nvshmemi_host_quiet(const char *fn) {
    nvshmemi_report_cuda(cudaStreamSynchronize(cudaStreamPerThread), fn);
}

/* Waits for this PE's GPU (kernels that put data), then a WORLD barrier that includes quiet. */
static inline void nvshmemi_host_barrier_all(const char *fn) {
    if (nvshmemi_report_cuda(cudaDeviceSynchronize(), fn) == 0 &&
        nvshmemi_report(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, cudaStreamPerThread), fn) ==
            0)
        nvshmemi_host_quiet(fn);
}
#endif

#ifdef __cplusplus
}
#endif

/* ---- device side: the per-unit handles, waits and the barrier ---- */

#ifdef __CUDACC__
#define NVSHMEMI_DEV static __device__ __forceinline__

static __constant__ nvshmemi_symcoll_device_state_t nvshmemi_symcoll_tu_state;

static __device__ inline const nvshmemi_symcoll_device_state_t *nvshmemi_device_state(void) {
    return &nvshmemi_symcoll_tu_state;
}

/* Copies the handles that nvshmem_init made into this unit's __constant__ copy. Call once
 * per separately compiled unit with NVSHMEM device calls, after nvshmem_init. */
static inline int nvshmemx_symcoll_init_tu(void) {
    if (!nvshmemi_symcoll_state.initialized) {
        fprintf(stderr, "nvshmemx_symcoll_init_tu: call nvshmem_init first\n");
        return (int)SYMCOLL_ERROR_NOT_INITIALIZED;
    }
    return nvshmemi_report_cuda(cudaMemcpyToSymbol(nvshmemi_symcoll_tu_state,
                                                   &nvshmemi_symcoll_state.device,
                                                   sizeof nvshmemi_symcoll_state.device),
                                "nvshmemx_symcoll_init_tu");
}

/* Groups: a thread, a warp, a block. lane and lanes index the group; sync() joins it. */
NVSHMEMI_DEV unsigned nvshmemi_block_lane(void) {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
NVSHMEMI_DEV unsigned nvshmemi_block_lanes(void) {
    return blockDim.x * blockDim.y * blockDim.z;
}
struct nvshmemi_thread_group {
    __device__ unsigned lane() const {
        return 0;
    }
    __device__ unsigned lanes() const {
        return 1;
    }
    __device__ void sync() const {}
};
struct nvshmemi_warp_group {
    __device__ unsigned lane() const {
        return symcoll_dev_warp_lane();
    }
    __device__ unsigned lanes() const {
        return symcoll_dev_warp_size();
    }
    __device__ void sync() const {
        symcoll_dev_warp_sync();
    }
};
struct nvshmemi_block_group {
    __device__ unsigned lane() const {
        return nvshmemi_block_lane();
    }
    __device__ unsigned lanes() const {
        return nvshmemi_block_lanes();
    }
    __device__ void sync() const {
        __syncthreads();
    }
};

NVSHMEMI_DEV uint64_t nvshmemi_now_ns(void) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The first wait of WORLD to time out fills its record (symcoll.h), so that the host's next
 * call on WORLD reports SYMCOLL_ERROR_TIMEOUT. */
NVSHMEMI_DEV void nvshmemi_record_timeout(const symcoll_device_t &h) {
    symcoll_timeout_record_t *r = h.record;
    if (atomicCAS((int *)&r->expired, 0, 2) == 0) {
        r->collective = SYMCOLL_COLL_DEVICE_API;
        r->team = h.team;
        r->missing_pe = -1;
        r->epoch = 0;
        __threadfence_system();
        r->expired = 1;
    }
}

/* Spins until ready() holds, then acquires. NVSHMEM's waits return nothing: on WORLD's
 * timeout (SYMCOLL_TIMEOUT_MS) or once WORLD is broken this returns false with the
 * condition unmet, and the host reports SYMCOLL_ERROR_TIMEOUT. */
template <typename Ready> NVSHMEMI_DEV bool nvshmemi_wait(Ready ready) {
    const symcoll_device_t &h = nvshmemi_symcoll_tu_state.world;
    uint64_t start = 0;
    for (uint32_t spins = 0;; spins++) {
        if (ready()) {
            symcoll_dev_fence(h);
            return true;
        }
        if ((spins & 1023) == 1023) {
            if (symcoll_dev_team_broken(h))
                return false;
            uint64_t now = nvshmemi_now_ns();
            if (start == 0)
                start = now;
            else if (h.timeout_ns && now - start > h.timeout_ns) {
                nvshmemi_record_timeout(h);
                return false;
            }
        }
    }
}

template <typename T> NVSHMEMI_DEV T nvshmemi_load(const T *ivar) {
    return *(const volatile T *)ivar;
}
/* NVSHMEM_CMP_* are symcoll's comparisons (the enum above). */
template <typename T> NVSHMEMI_DEV bool nvshmemi_compare(T a, int cmp, T b) {
    return symcoll_dev_compare(a, (symcoll_cmp_t)cmp, b);
}
/* Whether element i takes part: status NULL, or status[i] == 0. */
NVSHMEMI_DEV bool nvshmemi_active(const int *status, size_t i) {
    return !status || status[i] == 0;
}

template <typename T> NVSHMEMI_DEV void nvshmemi_wait_until(T *ivar, int cmp, T value) {
    if (nvshmemi_cmp_valid(cmp, "nvshmem_wait_until"))
        nvshmemi_wait([&] { return nvshmemi_compare(nvshmemi_load(ivar), cmp, value); });
}
template <typename T>
NVSHMEMI_DEV void nvshmemi_wait_until_all(T *ivars, size_t n, const int *status, int cmp, T value) {
    if (!nvshmemi_cmp_valid(cmp, "nvshmem_wait_until_all"))
        return;
    nvshmemi_wait([&] {
        for (size_t i = 0; i < n; i++)
            if (nvshmemi_active(status, i) &&
                !nvshmemi_compare(nvshmemi_load(ivars + i), cmp, value))
                return false;
        return true;
    });
}
/* Index of one satisfied element, or SIZE_MAX when none takes part (or on timeout). */
template <typename T>
NVSHMEMI_DEV size_t nvshmemi_wait_until_any(T *ivars, size_t n, const int *status, int cmp, T value,
                                            const char *fn = "nvshmem_wait_until_any") {
    size_t found = SIZE_MAX;
    bool any_active = false;
    if (!nvshmemi_cmp_valid(cmp, fn))
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        any_active = any_active || nvshmemi_active(status, i);
    if (!any_active)
        return SIZE_MAX;
    nvshmemi_wait([&] {
        for (size_t i = 0; i < n; i++)
            if (nvshmemi_active(status, i) &&
                nvshmemi_compare(nvshmemi_load(ivars + i), cmp, value)) {
                found = i;
                return true;
            }
        return false;
    });
    return found;
}
/* Waits for at least one; returns how many satisfied, their indices in indices. */
template <typename T>
NVSHMEMI_DEV size_t nvshmemi_wait_until_some(T *ivars, size_t n, size_t *indices, const int *status,
                                             int cmp, T value) {
    size_t count = 0;
    if (nvshmemi_wait_until_any(ivars, n, status, cmp, value, "nvshmem_wait_until_some") ==
        SIZE_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (nvshmemi_active(status, i) && nvshmemi_compare(nvshmemi_load(ivars + i), cmp, value))
            indices[count++] = i;
    return count;
}
template <typename T> NVSHMEMI_DEV int nvshmemi_test(T *ivar, int cmp, T value) {
    if (!nvshmemi_cmp_valid(cmp, "nvshmem_test") ||
        !nvshmemi_compare(nvshmemi_load(ivar), cmp, value))
        return 0;
    symcoll_dev_fence(nvshmemi_symcoll_tu_state.world);
    return 1;
}

/* WORLD barrier of a group (one thread, a warp or a block), one group per PE at a time:
 * each PE stores its count of barriers into every peer's arrival slot with release, then
 * waits for every peer's. The release after the group's sync makes it a quiet too. */
template <typename Group> NVSHMEMI_DEV void nvshmemi_barrier_all(Group g) {
    const nvshmemi_symcoll_device_state_t &s = nvshmemi_symcoll_tu_state;
    const symcoll_device_t &h = s.world;
    uint64_t *count = s.barrier + h.n_pes;
    uint64_t value = nvshmemi_load(count) + 1;
    g.sync();
    if (g.lane() == 0)
        *count = value;
    for (int pe = (int)g.lane(); pe < h.n_pes; pe += (int)g.lanes())
        if (pe != h.my_pe)
            symcoll_dev_signal_update(symcoll_dev_peer(h, s.barrier + h.my_pe, pe), value,
                                      SYMCOLL_SIGNAL_SET);
    for (int pe = (int)g.lane(); pe < h.n_pes; pe += (int)g.lanes())
        if (pe != h.my_pe)
            symcoll_dev_signal_wait_until(h, s.barrier + pe, SYMCOLL_CMP_GE, value);
    g.sync();
}

/* ---- device: waits, signals, fence and quiet, barrier ---- */

/* The point-to-point synchronization types: X(TYPE, TYPENAME). */
#define NVSHMEMI_WAIT_TYPES(X)                                                                     \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

#define NVSHMEMI_DEFINE_WAIT(TYPE, NAME)                                                           \
    NVSHMEMI_DEV void nvshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) {           \
        nvshmemi_wait_until(ivar, cmp, cmp_value);                                                 \
    }                                                                                              \
    NVSHMEMI_DEV void nvshmem_##NAME##_wait_until_all(                                             \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) {                  \
        nvshmemi_wait_until_all(ivars, nelems, status, cmp, cmp_value);                            \
    }                                                                                              \
    NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_any(                                           \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) {                  \
        return nvshmemi_wait_until_any(ivars, nelems, status, cmp, cmp_value);                     \
    }                                                                                              \
    NVSHMEMI_DEV size_t nvshmem_##NAME##_wait_until_some(                                          \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, TYPE cmp_value) { \
        return nvshmemi_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);           \
    }                                                                                              \
    NVSHMEMI_DEV int nvshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value) {                  \
        return nvshmemi_test(ivar, cmp, cmp_value);                                                \
    }
NVSHMEMI_WAIT_TYPES(NVSHMEMI_DEFINE_WAIT)

/* Returns the signal's value once (*sig_addr cmp cmp_value) holds. */
NVSHMEMI_DEV uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    const symcoll_device_t &h = nvshmemi_symcoll_tu_state.world;
    if (nvshmemi_cmp_valid(cmp, "nvshmem_signal_wait_until"))
        symcoll_dev_signal_wait_until(h, sig_addr, (symcoll_cmp_t)cmp, cmp_value);
    return nvshmemi_load(sig_addr);
}
/* Sets or adds to pe's copy of the signal, with release. */
NVSHMEMI_DEV void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    const symcoll_device_t &h = nvshmemi_symcoll_tu_state.world;
    if (nvshmemi_sig_op_valid(sig_op, "nvshmemx_signal_op"))
        symcoll_dev_signal_update(symcoll_dev_peer(h, sig_addr, pe), signal,
                                  (symcoll_signal_op_t)sig_op);
}

#else  /* host-only units: C, or C++ without nvcc */

static inline int nvshmemx_symcoll_init_tu(void) {
    return nvshmemi_symcoll_state.initialized ? 0 : (int)SYMCOLL_ERROR_NOT_INITIALIZED;
}
#endif /* __CUDACC__ */

/* The value of this PE's copy of a signal; the host reads it from the GPU once (after the
 * work that set it, as with NVSHMEM's host form), reporting a failed read on stderr. */
static inline NVSHMEMI_HOSTDEV uint64_t nvshmem_signal_fetch(const uint64_t *sig_addr) {
#ifdef __CUDA_ARCH__
    return nvshmemi_load(sig_addr);
#else
    uint64_t value = 0;
    cudaError_t err = cudaMemcpy(&value, sig_addr, sizeof value, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        fprintf(stderr, "nvshmem_signal_fetch: cudaMemcpy: %s\n", cudaGetErrorString(err));
    return value;
#endif
}

/* ---- ordering and barriers, host and device ---- */

static inline NVSHMEMI_HOSTDEV void nvshmem_fence(void) {
#ifdef __CUDA_ARCH__
    symcoll_dev_fence(nvshmemi_symcoll_tu_state.world);
#else
    nvshmemi_host_quiet("nvshmem_fence");
#endif
}
static inline NVSHMEMI_HOSTDEV void nvshmem_quiet(void) {
#ifdef __CUDA_ARCH__
    symcoll_dev_quiet(nvshmemi_symcoll_tu_state.world);
#else
    nvshmemi_host_quiet("nvshmem_quiet");
#endif
}
static inline NVSHMEMI_HOSTDEV void nvshmem_barrier_all(void) {
#ifdef __CUDA_ARCH__
    nvshmemi_barrier_all(nvshmemi_thread_group());
#else
    nvshmemi_host_barrier_all("nvshmem_barrier_all");
#endif
}
static inline NVSHMEMI_HOSTDEV void nvshmem_sync_all(void) {
#ifdef __CUDA_ARCH__
    nvshmemi_barrier_all(nvshmemi_thread_group());
#else
    nvshmemi_host_barrier_all("nvshmem_sync_all");
#endif
}

/* ---- refused at compile time ---- */

#define nvshmem_team_split_strided(...)                                                            \
    NVSHMEMI_REFUSE_CALL(                                                                          \
        nvshmem_team_split_strided,                                                                \
        "use NVSHMEM_TEAM_WORLD, NVSHMEMX_TEAM_NODE or symcoll_team_split_strided")
#define nvshmem_team_split_2d(...)                                                                 \
    NVSHMEMI_REFUSE_CALL(nvshmem_team_split_2d, "only the WORLD and NODE teams are provided")
#define nvshmem_team_destroy(...)                                                                  \
    NVSHMEMI_REFUSE_CALL(nvshmem_team_destroy, "only the WORLD and NODE teams are provided")
#define nvshmem_ctx_create(...)                                                                    \
    NVSHMEMI_REFUSE_CALL(nvshmem_ctx_create, "communication contexts are not provided")
#define nvshmem_team_create_ctx(...)                                                               \
    NVSHMEMI_REFUSE_CALL(nvshmem_team_create_ctx, "communication contexts are not provided")
#define nvshmem_barrier(...)                                                                       \
    NVSHMEMI_REFUSE_CALL(nvshmem_barrier, "use nvshmem_barrier_all or nvshmemx_barrier_on_stream")
/* NVSHMEM's nvshmem_sync is another name of nvshmem_team_sync. */
#define nvshmem_team_sync(...)                                                                     \
    NVSHMEMI_REFUSE_CALL(nvshmem_team_sync, "use nvshmem_sync_all or "                             \
                                            "nvshmemx_team_sync_on_stream")
#define nvshmem_sync(...)                                                                          \
    NVSHMEMI_REFUSE_CALL(nvshmem_sync, "use nvshmem_sync_all or nvshmemx_team_sync_on_stream")
#define nvshmem_global_exit(...)                                                                   \
    NVSHMEMI_REFUSE_CALL(nvshmem_global_exit, "no job-wide abort across processes")

#include "nvshmemx.h"
#endif
