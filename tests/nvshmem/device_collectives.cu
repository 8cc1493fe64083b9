/* The device-side team collectives at warp and block scope (nvshmemx_<...>_warp, _block):
 * reductions and reducescatters of a sample of types and ops (an integer sum, the bitwise ops,
 * float, double, half and bfloat16), broadcast from the first and the last PE, fcollect and
 * alltoall (typed and mem forms), each run alone on random data with dest poisoned first and
 * checked against the CPU at odd counts, the reductions in place too, on WORLD and SHARED;
 * calls the header refuses (a team the device does not know, a root outside the team); rounds
 * of collectives back to back in one kernel; the team barrier and team_sync.
 * Run with a seed to repeat a run: device_collectives [seed]. */
#include <math.h>
#include <string.h>
#include <time.h>
#include <type_traits>
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

/* ---- scopes ---- */

enum { WARP, BLOCK };
static const char *const scope_names[] = {"warp", "block"};
/* warp: the second warp of a 64-thread block (a call by a warp other than warp 0); block: a
 * block of three warps. */
static const int scope_threads[] = {64, 96};
static const int scope_callers[] = {32, 96};

__device__ bool takes_part(int scope) {
    return scope == BLOCK || threadIdx.x / 32 == 1;
}
__device__ unsigned lane_of(int scope) {
    return scope == BLOCK ? threadIdx.x : threadIdx.x % 32;
}
__device__ unsigned lanes_of(int scope) {
    return scope == BLOCK ? blockDim.x : 32;
}

#define AT_SCOPE(scope, name, ...)                                                                 \
    ((scope) == WARP ? name##_warp(__VA_ARGS__) : name##_block(__VA_ARGS__))

/* ---- one call per kernel ---- */

enum { REDUCE, REDUCESCATTER, BROADCAST, FCOLLECT, ALLTOALL };
static const char *const kind_names[] = {"reduce", "reducescatter", "broadcast", "fcollect",
                                         "alltoall"};
enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };

typedef struct {
    int scope, kind;
    nvshmem_team_t team;
    void *dest;
    const void *source;
    size_t count;
    int root;
    int *nonzero; /* how many threads the call returned nonzero in */
} Call;
typedef void (*kernel_t)(Call);

__device__ void record(const Call &c, int status) {
    if (status != 0)
        atomicAdd(c.nonzero, 1);
}

/* The reductions under test: X(TYPE, TYPENAME, OPNAME, OP). */
#define REDUCTIONS(X)                                                                              \
    X(int, int, sum, OP_SUM)                                                                       \
    X(long long, longlong, min, OP_MIN)                                                            \
    X(int8_t, int8, or, OP_OR)                                                                     \
    X(unsigned int, uint, and, OP_AND)                                                             \
    X(uint64_t, uint64, xor, OP_XOR)                                                               \
    X(float, float, max, OP_MAX)                                                                   \
    X(double, double, prod, OP_PROD)                                                               \
    X(half, half, sum, OP_SUM)                                                                     \
    X(__nv_bfloat16, bfloat16, min, OP_MIN)

#define REDUCE_KERNEL(TYPE, TYPENAME, OPNAME, OP)                                                  \
    __global__ void reduce_##TYPENAME##_##OPNAME(Call c) {                                         \
        TYPE *dest = (TYPE *)c.dest;                                                               \
        const TYPE *source = (const TYPE *)c.source;                                               \
        if (takes_part(c.scope))                                                                   \
            record(c, c.kind == REDUCE                                                             \
                          ? AT_SCOPE(c.scope, nvshmemx_##TYPENAME##_##OPNAME##_reduce, c.team,     \
                                     dest, source, c.count)                                        \
                          : AT_SCOPE(c.scope, nvshmemx_##TYPENAME##_##OPNAME##_reducescatter,      \
                                     c.team, dest, source, c.count));                              \
    }
REDUCTIONS(REDUCE_KERNEL)

/* The exchanges under test, typed and mem forms (count in bytes):
 * X(TYPE, KERNEL, broadcast, fcollect, alltoall). */
#define EXCHANGES(X)                                                                               \
    X(short, short, nvshmemx_short_broadcast, nvshmemx_short_fcollect, nvshmemx_short_alltoall)    \
    X(double, double, nvshmemx_double_broadcast, nvshmemx_double_fcollect,                         \
      nvshmemx_double_alltoall)                                                                    \
    X(char, mem, nvshmemx_broadcastmem, nvshmemx_fcollectmem, nvshmemx_alltoallmem)

#define EXCHANGE_KERNEL(TYPE, NAME, BROADCAST_CALL, FCOLLECT_CALL, ALLTOALL_CALL)                  \
    __global__ void exchange_##NAME(Call c) {                                                      \
        TYPE *dest = (TYPE *)c.dest;                                                               \
        const TYPE *source = (const TYPE *)c.source;                                               \
        if (takes_part(c.scope))                                                                   \
            record(c, c.kind == BROADCAST ? AT_SCOPE(c.scope, BROADCAST_CALL, c.team, dest,        \
                                                     source, c.count, c.root)                      \
                      : c.kind == FCOLLECT                                                         \
                          ? AT_SCOPE(c.scope, FCOLLECT_CALL, c.team, dest, source, c.count)        \
                          : AT_SCOPE(c.scope, ALLTOALL_CALL, c.team, dest, source, c.count));      \
    }
EXCHANGES(EXCHANGE_KERNEL)

/* ---- the CPU reference ---- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename T> static double to_double(T x) {
    return (double)x;
}
template <> double to_double<half>(half x) {
    return __half2float(x);
}
template <> double to_double<__nv_bfloat16>(__nv_bfloat16 x) {
    return __bfloat162float(x);
}
template <typename T> static T from_double(double v) {
    return (T)v;
}
template <> half from_double<half>(double v) {
    return __float2half((float)v);
}
template <> __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
    return __float2bfloat16((float)v);
}

/* Integers: any bits. Floats: +-2^e, e in [-3, 3], whose sums and products over a few PEs are
 * exact in every float type, so that the order in which the PEs' values meet cannot matter and
 * the results compare bit for bit. */
template <typename T> static void draw(void *values, size_t count, uint64_t seed) {
    T *v = (T *)values;
    for (size_t i = 0; i < count; i++) {
        uint64_t bits = mix(seed + i);
        if constexpr (std::is_integral<T>::value)
            v[i] = (T)bits;
        else
            v[i] = from_double<T>(ldexp(bits & 1 ? -1.0 : 1.0, (int)((bits >> 1) % 7) - 3));
    }
}

/* Integer sums and products wrap, as symcoll's do: computed unsigned. */
template <typename T, int OP> static T combine(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        typedef typename std::make_unsigned<T>::type U;
        U x = (U)a, y = (U)b;
        switch (OP) {
        case OP_SUM:
            return (T)(U)(x + y);
        case OP_PROD:
            return (T)(U)((unsigned long long)x * y);
        case OP_MIN:
            return a < b ? a : b;
        case OP_MAX:
            return a > b ? a : b;
        case OP_AND:
            return (T)(x & y);
        case OP_OR:
            return (T)(x | y);
        default:
            return (T)(x ^ y);
        }
    } else {
        double x = to_double(a), y = to_double(b);
        return from_double<T>(OP == OP_SUM    ? x + y
                              : OP == OP_PROD ? x * y
                              : OP == OP_MIN  ? fmin(x, y)
                                              : fmax(x, y));
    }
}

/* acc[i] = acc[i] OP x[i]. */
template <typename T, int OP> static void fold(void *acc, const void *x, size_t count) {
    T *a = (T *)acc;
    const T *b = (const T *)x;
    for (size_t i = 0; i < count; i++)
        a[i] = combine<T, OP>(a[i], b[i]);
}

typedef struct {
    const char *name;
    kernel_t kernel;
    size_t elem;
    void (*draw)(void *values, size_t count, uint64_t seed);
    void (*fold)(void *acc, const void *x, size_t count);
} Reduction;
#define REDUCTION_ROW(TYPE, TYPENAME, OPNAME, OP)                                                  \
    {#TYPENAME "_" #OPNAME, reduce_##TYPENAME##_##OPNAME, sizeof(TYPE), draw<TYPE>, fold<TYPE, OP>},
static const Reduction reductions[] = {REDUCTIONS(REDUCTION_ROW)};

typedef struct {
    const char *name;
    kernel_t kernel;
    size_t elem;
} Exchange;
#define EXCHANGE_ROW(TYPE, NAME, BROADCAST_CALL, FCOLLECT_CALL, ALLTOALL_CALL)                     \
    {#NAME, exchange_##NAME, sizeof(TYPE)},
static const Exchange exchanges[] = {EXCHANGES(EXCHANGE_ROW)};

/* ---- running a case ---- */

#define MAX_COUNT 30001
#define POISON 0xa5

typedef struct {
    int me, n;
    uint64_t seed;
    uint64_t cases;  /* cases run so far: every PE counts alike */
    size_t capacity; /* bytes of source and dest */
    char *source, *dest;
    char *got, *want; /* host, capacity bytes */
    int *nonzero;
} Env;

/* The source of WORLD PE pe in the current case. */
static uint64_t source_seed(const Env *e, int pe) {
    return mix(mix(e->seed + e->cases) + (uint64_t)pe);
}
/* Every team PE's source (bytes each, count values of draw_fn), in team PE order. */
static char *draw_team(const Env *e, nvshmem_team_t team, size_t count, size_t bytes,
                       void (*draw_fn)(void *, size_t, uint64_t)) {
    int n = nvshmem_team_n_pes(team);
    char *all = (char *)malloc(bytes * n);
    for (int t = 0; t < n; t++)
        draw_fn(all + t * bytes, count,
                source_seed(e, nvshmem_team_translate_pe(team, t, NVSHMEM_TEAM_WORLD)));
    return all;
}

/* Runs c once: this PE's source `mine` (bytes) uploaded, dest poisoned; then compares dest
 * (every byte of it) with e->want, element by element, and the calls' returns with
 * `refused`. Returns how many were wrong. */
static long run_call(Env *e, kernel_t kernel, Call c, const void *mine, size_t bytes, size_t elem,
                     bool refused, const char *what) {
    CHECK_CUDA(cudaMemset(e->dest, POISON, e->capacity));
    CHECK_CUDA(cudaMemcpy((void *)c.source, mine, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(e->nonzero, 0, sizeof(int)));
    c.nonzero = e->nonzero;
    nvshmem_barrier_all();
    kernel<<<1, scope_threads[c.scope]>>>(c);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    int nonzero = 0;
    CHECK_CUDA(cudaMemcpy(&nonzero, e->nonzero, sizeof nonzero, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(e->got, e->dest, e->capacity, cudaMemcpyDeviceToHost));
    /* Before the next case poisons dest and rewrites source: NVSHMEM lets a call return while
     * peers still read this PE's source. */
    nvshmem_barrier_all();
    long wrong = nonzero != (refused ? scope_callers[c.scope] : 0);
    if (wrong)
        printf("PE %d: %s %s at %s scope, count %zu: %d threads returned nonzero\n", e->me,
               kind_names[c.kind], what, scope_names[c.scope], c.count, nonzero);
    for (size_t i = 0; i < e->capacity / elem; i++)
        if (memcmp(e->got + i * elem, e->want + i * elem, elem) != 0 && wrong++ < 3)
            printf("PE %d: %s %s at %s scope, count %zu: dest element %zu is wrong\n", e->me,
                   kind_names[c.kind], what, scope_names[c.scope], c.count, i);
    e->cases++;
    return wrong;
}

/* reduce (out of place or in place) or reducescatter of count elements per PE. */
static long check_reduction(Env *e, const Reduction *r, int kind, bool in_place, int scope,
                            nvshmem_team_t team, size_t count) {
    int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    size_t per_pe = kind == REDUCESCATTER ? count * n : count, bytes = per_pe * r->elem;
    size_t block = kind == REDUCESCATTER ? me * count * r->elem : 0;
    char *all = draw_team(e, team, per_pe, bytes, r->draw);
    memset(e->want, POISON, e->capacity);
    memcpy(e->want, all + block, count * r->elem);
    for (int t = 1; t < n; t++)
        r->fold(e->want, all + t * bytes + block, count);
    Call c = {scope, kind, team, e->dest, in_place ? e->dest : e->source, count, 0, NULL};
    long wrong = run_call(e, r->kernel, c, all + me * bytes, bytes, r->elem, false, r->name);
    free(all);
    return wrong;
}

/* broadcast from root, fcollect or alltoall of count elements (per PE). */
static long check_exchange(Env *e, const Exchange *x, int kind, int root, int scope,
                           nvshmem_team_t team, size_t count) {
    int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    size_t block = count * x->elem, bytes = kind == ALLTOALL ? block * n : block;
    char *all = draw_team(e, team, bytes, bytes, draw<uint8_t>);
    memset(e->want, POISON, e->capacity);
    if (kind == BROADCAST)
        memcpy(e->want, all + root * bytes, block);
    else
        for (int t = 0; t < n; t++)
            memcpy(e->want + t * block, all + t * bytes + (kind == ALLTOALL ? me * block : 0),
                   block);
    Call c = {scope, kind, team, e->dest, e->source, count, root, NULL};
    long wrong = run_call(e, x->kernel, c, all + me * bytes, bytes, x->elem, false, x->name);
    free(all);
    return wrong;
}

/* Refused before any synchronization, in every calling thread, dest untouched: a team the
 * device does not know, a root outside the team. */
static long check_refusals(Env *e, int scope) {
    char mine[64] = {0};
    memset(e->want, POISON, e->capacity);
    Call bad_team = {scope, REDUCE, NVSHMEM_TEAM_INVALID, e->dest, e->source, 3, 0, NULL};
    Call bad_root = {scope, BROADCAST, NVSHMEM_TEAM_WORLD, e->dest, e->source, 3, e->n, NULL};
    return run_call(e, reductions[0].kernel, bad_team, mine, sizeof mine, 1, true,
                    "of an unknown team") +
           run_call(e, exchanges[0].kernel, bad_root, mine, sizeof mine, 1, true,
                    "from a root outside the team");
}

/* ---- several calls in one kernel ---- */

#define ROUNDS 20
#define ROUND_COUNT 333

__device__ int round_value(int pe, int round, size_t i) {
    return pe * 65536 + round * 1024 + (int)i;
}

/* Rounds of reduce, broadcast and fcollect, each result checked in the kernel, then team_sync
 * before the next round rewrites source (dest: three parts of ROUND_COUNT * n ints). */
__global__ void back_to_back(int scope, int *source, int *dest, int *wrong) {
    if (!takes_part(scope))
        return;
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    unsigned lane = lane_of(scope), lanes = lanes_of(scope);
    int *sum = dest, *root_part = dest + ROUND_COUNT * n, *all = dest + 2 * ROUND_COUNT * n;
    for (int r = 0; r < ROUNDS; r++) {
        int root = r % n;
        for (size_t i = lane; i < ROUND_COUNT; i += lanes)
            source[i] = round_value(me, r, i);
        int status =
            AT_SCOPE(scope, nvshmemx_int_sum_reduce, NVSHMEM_TEAM_WORLD, sum, source, ROUND_COUNT);
        status |= AT_SCOPE(scope, nvshmemx_int_broadcast, NVSHMEM_TEAM_WORLD, root_part, source,
                           ROUND_COUNT, root);
        status |=
            AT_SCOPE(scope, nvshmemx_int_fcollect, NVSHMEM_TEAM_WORLD, all, source, ROUND_COUNT);
        for (size_t i = lane; i < ROUND_COUNT; i += lanes) {
            int want = 0;
            for (int p = 0; p < n; p++)
                want += round_value(p, r, i);
            int bad = (sum[i] != want) + (root_part[i] != round_value(root, r, i));
            for (int p = 0; p < n; p++)
                bad += all[p * ROUND_COUNT + i] != round_value(p, r, i);
            if (bad)
                atomicAdd(wrong, bad);
        }
        status |= AT_SCOPE(scope, nvshmemx_team_sync, NVSHMEM_TEAM_WORLD);
        if (status && lane == 0)
            atomicAdd(wrong, 1);
    }
}

/* ---- the team barrier ---- */

/* Each round every calling thread stores into the next PE, the group passes the barrier (or
 * team_sync, which here includes a quiet too), checks what the previous PE stored, and passes
 * it again before the next round overwrites it. */
__global__ void barrier_rounds(int scope, int sync, nvshmem_team_t team, int *slots, int *wrong) {
    if (!takes_part(scope))
        return;
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int r = 0; r < ROUNDS; r++) {
        nvshmem_int_p(slots + threadIdx.x, round_value(me, r, threadIdx.x), next);
        int status = sync ? AT_SCOPE(scope, nvshmemx_team_sync, team)
                          : AT_SCOPE(scope, nvshmemx_barrier, team);
        if (slots[threadIdx.x] != round_value(prev, r, threadIdx.x))
            atomicAdd(wrong, 1);
        status |= sync ? AT_SCOPE(scope, nvshmemx_team_sync, team)
                       : AT_SCOPE(scope, nvshmemx_barrier, team);
        if (status)
            atomicAdd(wrong, 1);
    }
}

/* Runs back_to_back and barrier_rounds (barrier on WORLD, team_sync on SHARED) at scope. */
static long check_in_kernel(Env *e, int scope) {
    int device_wrong = 0;
    int *wrong;
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    nvshmem_barrier_all();
    back_to_back<<<1, scope_threads[scope]>>>(scope, (int *)e->source, (int *)e->dest, wrong);
    barrier_rounds<<<1, scope_threads[scope]>>>(scope, 0, NVSHMEM_TEAM_WORLD, (int *)e->dest,
                                                wrong);
    barrier_rounds<<<1, scope_threads[scope]>>>(scope, 1, NVSHMEM_TEAM_SHARED, (int *)e->dest,
                                                wrong);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(&device_wrong, wrong, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(wrong));
    if (device_wrong)
        printf("PE %d: collectives in one kernel at %s scope: %d wrong\n", e->me,
               scope_names[scope], device_wrong);
    return device_wrong;
}

/* The seed of the run: the argument, else the clock of PE 0, broadcast. */
static uint64_t run_seed(int argc, char **argv) {
    uint64_t *seed = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
    uint64_t value = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    CHECK_CUDA(cudaMemcpy(seed, &value, sizeof value, cudaMemcpyHostToDevice));
    nvshmem_barrier_all();
    if (nvshmem_uint64_broadcast(NVSHMEM_TEAM_WORLD, seed, seed, 1, 0) != 0)
        exit(1);
    CHECK_CUDA(cudaMemcpy(&value, seed, sizeof value, cudaMemcpyDeviceToHost));
    nvshmem_barrier_all();
    nvshmem_free(seed);
    return value;
}

int main(int argc, char **argv) {
    nvshmem_init();
    set_device_of_node_pe();
    Env e;
    e.me = nvshmem_my_pe();
    e.n = nvshmem_n_pes();
    e.seed = run_seed(argc, argv);
    e.cases = 0;
    e.capacity = (size_t)MAX_COUNT * e.n * sizeof(double);
    e.source = (char *)nvshmem_malloc(e.capacity);
    e.dest = (char *)nvshmem_malloc(e.capacity);
    e.got = (char *)malloc(e.capacity);
    e.want = (char *)malloc(e.capacity);
    CHECK_CUDA(cudaMalloc(&e.nonzero, sizeof(int)));
    if (e.me == 0)
        printf("device_collectives: seed %llu\n", (unsigned long long)e.seed);

    const size_t counts[] = {1, 7, 1001, MAX_COUNT};
    const int n_counts = sizeof counts / sizeof counts[0];
    long wrong = 0;
    for (int scope = WARP; scope <= BLOCK; scope++) {
        for (int k = 0; k < n_counts; k++) {
            /* Every call on WORLD and on SHARED (symcoll's NODE team and its handle). */
            nvshmem_team_t team = k % 2 ? NVSHMEM_TEAM_SHARED : NVSHMEM_TEAM_WORLD;
            for (size_t r = 0; r < sizeof reductions / sizeof reductions[0]; r++) {
                wrong += check_reduction(&e, &reductions[r], REDUCE, false, scope, team, counts[k]);
                wrong += check_reduction(&e, &reductions[r], REDUCE, true, scope, team, counts[k]);
                wrong += check_reduction(&e, &reductions[r], REDUCESCATTER, false, scope, team,
                                         counts[k]);
            }
            for (size_t x = 0; x < sizeof exchanges / sizeof exchanges[0]; x++) {
                wrong += check_exchange(&e, &exchanges[x], BROADCAST, 0, scope, team, counts[k]);
                wrong += check_exchange(&e, &exchanges[x], BROADCAST, nvshmem_team_n_pes(team) - 1,
                                        scope, team, counts[k]);
                wrong += check_exchange(&e, &exchanges[x], FCOLLECT, 0, scope, team, counts[k]);
                wrong += check_exchange(&e, &exchanges[x], ALLTOALL, 0, scope, team, counts[k]);
            }
        }
        wrong += check_refusals(&e, scope);
        wrong += check_in_kernel(&e, scope);
    }
    if (wrong)
        printf("PE %d: rerun with: device_collectives %llu\n", e.me, (unsigned long long)e.seed);

    nvshmem_barrier_all();
    CHECK_CUDA(cudaFree(e.nonzero));
    free(e.want);
    free(e.got);
    nvshmem_free(e.dest);
    nvshmem_free(e.source);
    nvshmem_finalize();
    return report("device_collectives", e.me, wrong);
}
