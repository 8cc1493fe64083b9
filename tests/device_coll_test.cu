// The device API's collectives (symcoll_device_coll.cuh) inside test kernels, at warp, block and
// grid scope, against the CPU references of the host collectives' tests (coll_testing.h): every
// datatype and op, every size class, in place, every team; past L2 at grid scope; several
// collectives back to back in one kernel; graph capture and replay.
#include "coll_testing.h"
#include "device_coll_testing.cuh"

using namespace coll_testing;
using namespace device_coll_testing;

namespace {

// broadcast, fcollect and alltoall of T.
template <typename T> __global__ void move_call(Call c) {
    if (!calls(c.scope))
        return;
    T *dst = (T *)c.dst;
    const T *src = (const T *)c.src;
    bool ok = false;
    if (c.coll == SYMCOLL_COLL_BROADCAST)
        ok = AT_SCOPE(c.scope, symcoll_dev_broadcast, c.h, dst, src, c.count, c.root);
    else if (c.coll == SYMCOLL_COLL_FCOLLECT)
        ok = AT_SCOPE(c.scope, symcoll_dev_fcollect, c.h, dst, src, c.count);
    else
        ok = AT_SCOPE(c.scope, symcoll_dev_alltoall, c.h, dst, src, c.count);
    if (!ok)
        atomicExch(c.failed, 1);
}

cudaError_t launch(const void *kernel, Scope scope, void **args, cudaStream_t stream) {
    Launch l = launch_of(scope);
    return cudaLaunchKernel(kernel, dim3(l.blocks), dim3(l.threads), args, 0, stream);
}

// The kernel of a case: its datatype, and its op for a reduction.
template <typename T> const void *kernel_of(symcoll_collective_t coll, symcoll_op_t op) {
    if (coll != SYMCOLL_COLL_REDUCE && coll != SYMCOLL_COLL_REDUCE_SCATTER)
        return (const void *)move_call<T>;
    return reduce_kernel<T>(op);
}

int *failed_flag() {
    static int *flag = [] {
        int *p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, sizeof(int)), cudaSuccess);
        return p;
    }();
    return flag;
}

Scope scope_named(const char *name) {
    for (Scope s : kScopes)
        if (!strcmp(kScopeNames[s], name))
            return s;
    ADD_FAILURE() << "no scope " << name;
    return BLOCK;
}

// run_case's enqueue: the case's collective inside move_call or reduce_call at c.scope.
symcoll_status_t enqueue_device(const Case &c, void *dst, const void *src, cudaStream_t stream) {
    Call call = {symcoll_device_handle(c.team),
                 c.coll,
                 scope_named(c.scope),
                 dst,
                 src,
                 c.count,
                 c.root,
                 failed_flag()};
    const void *kernel = nullptr;
    with_type(c.type, [&](auto tag) { kernel = kernel_of<decltype(tag)>(c.coll, c.op); });
    void *args[] = {&call};
    if (cudaMemsetAsync(call.failed, 0, sizeof(int), stream) != cudaSuccess ||
        launch(kernel, call.scope, args, stream) != cudaSuccess)
        return SYMCOLL_ERROR_CUDA;
    return SYMCOLL_SUCCESS;
}

class DeviceColl : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;

    // Runs c on every scope; every PE draws a seed for every case, member of c.team or not.
    void run_scopes(Case c, bool member) {
        for (Scope scope : kScopes) {
            uint64_t seed = next_case_seed();
            if (!member)
                continue;
            c.scope = kScopeNames[scope];
            run_case(c, arena, stream, seed, enqueue_device);
            expect_no_false_return(c);
        }
    }
    // A call that returned false fails the case even when its data came out right.
    static void expect_no_false_return(const Case &c) {
        int failed = 0;
        EXPECT_EQ(cudaMemcpy(&failed, failed_flag(), sizeof failed, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(failed, 0) << c.describe() << ": the device call returned false";
    }
};

Case make(symcoll_collective_t coll, const TestTeam &team, symcoll_datatype_t type, symcoll_op_t op,
          SizeClass size, bool in_place, int root) {
    Case c;
    c.coll = coll;
    c.team = team.handle;
    c.type = type;
    c.op = op;
    c.count = size.count;
    c.dst_shift = size.dst_shift;
    c.src_shift = in_place ? 0 : size.src_shift;
    c.in_place = in_place;
    c.root = root;
    return c;
}

// Every datatype and op of reduce and reduce_scatter at every scope, in place and not, on every
// team: every size class for sum, and one element, an odd count and a shifted one for the
// other ops.
TEST_F(DeviceColl, ReductionsEveryTeamTypeOpSizeAndScope) {
    SEED_TRACE();
    for (const TestTeam &team : test_teams())
        for (symcoll_collective_t coll : {SYMCOLL_COLL_REDUCE, SYMCOLL_COLL_REDUCE_SCATTER})
            for (symcoll_datatype_t type : kTypes)
                for (symcoll_op_t op : kOps) {
                    if (!op_defined(type, op))
                        continue;
                    int per_pe = coll == SYMCOLL_COLL_REDUCE ? 1 : team.size;
                    std::vector<SizeClass> sizes =
                        size_classes(symcoll_datatype_size(type), per_pe);
                    if (op != SYMCOLL_SUM || team.handle != SYMCOLL_TEAM_WORLD)
                        sizes = {sizes[1], sizes[2], sizes[3]};
                    for (SizeClass size : sizes)
                        for (bool in_place : {false, true})
                            run_scopes(make(coll, team, type, op, size, in_place, 0),
                                       team.handle != SYMCOLL_TEAM_INVALID);
                }
}

// broadcast (from the first and the last PE; in place and not), fcollect and alltoall: every
// datatype, size class and scope on WORLD; float on the other teams.
TEST_F(DeviceColl, MovesEveryTeamTypeSizeAndScope) {
    SEED_TRACE();
    for (const TestTeam &team : test_teams())
        for (symcoll_collective_t coll :
             {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL})
            for (symcoll_datatype_t type : kTypes) {
                if (team.handle != SYMCOLL_TEAM_WORLD && type != SYMCOLL_FLOAT32)
                    continue;
                int per_pe = coll == SYMCOLL_COLL_BROADCAST ? 1 : team.size;
                for (SizeClass size : size_classes(symcoll_datatype_size(type), per_pe))
                    for (int root : {0, team.size - 1}) {
                        if (root != 0 && coll != SYMCOLL_COLL_BROADCAST)
                            continue;
                        for (bool in_place : {false, true})
                            if (!in_place || coll == SYMCOLL_COLL_BROADCAST)
                                run_scopes(
                                    make(coll, team, type, SYMCOLL_SUM, size, in_place, root),
                                    team.handle != SYMCOLL_TEAM_INVALID);
                    }
            }
}

// Past L2 (64 MiB and an odd tail, shifted): the bandwidth algorithms of the grid scope.
TEST_F(DeviceColl, GridLargerThanL2) {
    SEED_TRACE();
    const TestTeam world = test_teams()[0];
    const int n = world.size;
    struct {
        symcoll_collective_t coll;
        symcoll_datatype_t type;
        symcoll_op_t op;
    } cases[] = {{SYMCOLL_COLL_REDUCE, SYMCOLL_FLOAT32, SYMCOLL_SUM},
                 {SYMCOLL_COLL_REDUCE, SYMCOLL_BFLOAT16, SYMCOLL_MAX},
                 {SYMCOLL_COLL_REDUCE_SCATTER, SYMCOLL_INT32, SYMCOLL_XOR},
                 {SYMCOLL_COLL_BROADCAST, SYMCOLL_UINT8, SYMCOLL_SUM},
                 {SYMCOLL_COLL_FCOLLECT, SYMCOLL_FLOAT64, SYMCOLL_SUM},
                 {SYMCOLL_COLL_ALLTOALL, SYMCOLL_FLOAT16, SYMCOLL_SUM}};
    for (auto k : cases)
        for (bool in_place : {false, true}) {
            uint64_t seed = next_case_seed();
            if (in_place && (k.coll == SYMCOLL_COLL_FCOLLECT || k.coll == SYMCOLL_COLL_ALLTOALL))
                continue;
            bool per_pe = k.coll != SYMCOLL_COLL_BROADCAST && k.coll != SYMCOLL_COLL_REDUCE;
            Case c = make(k.coll, world, k.type, k.op,
                          larger_than_l2(symcoll_datatype_size(k.type), per_pe ? n : 1), in_place,
                          n - 1);
            c.src_shift = in_place ? 0 : c.src_shift;
            c.scope = "grid";
            run_case(c, arena, stream, seed, enqueue_device);
            expect_no_false_return(c);
        }
}

// ---- several collectives in one kernel ----

// Element i of PE p's inputs in the sequence below.
__host__ __device__ float seq_value(int p, size_t i, int round) {
    return (float)((p + 1) * 1000 + (int)(i % 997) + round);
}

struct Sequence {
    symcoll_device_t h;
    Scope scope;
    float *sum, *gathered, *exchanged, *broadcast, *src; // symmetric
    size_t count;                                        // per PE
    int round;
    int *failed;
};

// reduce, fcollect, alltoall, broadcast from the last PE, then a barrier, back to back in one
// kernel. At warp scope, warp 1 runs the first two and warp 0 the others, after a block barrier
// (calls by different warps are ordered by the caller).
__global__ void sequence_kernel(Sequence s) {
    const symcoll_device_t &h = s.h;
    const int me = h.team_my_pe, n = h.team_size;
    const unsigned rank = symcoll_dev_block_rank(), threads = symcoll_dev_block_size();
    const size_t base = (size_t)blockIdx.x * threads + rank, stride = (size_t)gridDim.x * threads;
    for (size_t i = base; i < s.count * n; i += stride)
        s.src[i] = seq_value(me, i, s.round);
    if (s.scope != GRID) /* a grid call meets the other blocks first */
        __syncthreads();
    bool ok = true;
    const bool first = s.scope != WARP || threadIdx.x / 32 == 1;
    const bool second = s.scope != WARP || threadIdx.x / 32 == 0;
    if (first) {
        ok = AT_SCOPE(s.scope, symcoll_dev_fcollect, h, s.gathered, s.src, s.count);
        const float *src = s.src;
        ok = ok &&
             (s.scope == WARP ? symcoll_dev_reduce_warp<float, SYMCOLL_SUM>(h, s.sum, src, s.count)
              : s.scope == BLOCK
                  ? symcoll_dev_reduce_block<float, SYMCOLL_SUM>(h, s.sum, src, s.count)
                  : symcoll_dev_reduce_grid<float, SYMCOLL_SUM>(h, s.sum, src, s.count));
    }
    __syncthreads();
    if (second) {
        ok = ok && AT_SCOPE(s.scope, symcoll_dev_alltoall, h, s.exchanged, s.src, s.count);
        ok = ok && AT_SCOPE(s.scope, symcoll_dev_broadcast, h, s.broadcast, s.sum, s.count, n - 1);
        ok = ok && AT_SCOPE(s.scope, symcoll_dev_barrier, h);
    }
    if (!ok)
        atomicExch(s.failed, 1);
}

class DeviceCollSequence : public ::testing::Test {
  protected:
    static constexpr size_t kCount = 3000; // per PE: several LL rounds at warp and block scope
    int n = symcoll_n_pes(), me = symcoll_my_pe();
    SymBuffer sum{kCount * 4}, gathered{kCount * 4 * symcoll_n_pes()},
        exchanged{kCount * 4 * symcoll_n_pes()}, broadcast{kCount * 4},
        src{kCount * 4 * symcoll_n_pes()};
    Stream stream;

    Sequence sequence(Scope scope, int round) {
        return {symcoll_device_handle(SYMCOLL_TEAM_WORLD),
                scope,
                sum.as<float>(),
                gathered.as<float>(),
                exchanged.as<float>(),
                broadcast.as<float>(),
                src.as<float>(),
                kCount,
                round,
                failed_flag()};
    }
    void poison() {
        for (const SymBuffer *b : {&sum, &gathered, &exchanged, &broadcast})
            CUDA_OK(cudaMemsetAsync(b->ptr, 0xff, b->bytes, stream));
        CUDA_OK(cudaMemsetAsync(failed_flag(), 0, sizeof(int), stream));
    }
    // Every result of round `round` against the values every PE computes.
    void check(Scope scope, int round) {
        std::vector<float> s(kCount), g(kCount * n), x(kCount * n), b(kCount);
        CUDA_OK(cudaMemcpy(s.data(), sum.ptr, s.size() * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(g.data(), gathered.ptr, g.size() * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(x.data(), exchanged.ptr, x.size() * 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(b.data(), broadcast.ptr, b.size() * 4, cudaMemcpyDeviceToHost));
        int failed = 0;
        CUDA_OK(cudaMemcpy(&failed, failed_flag(), sizeof failed, cudaMemcpyDeviceToHost));
        EXPECT_EQ(failed, 0) << kScopeNames[scope] << " round " << round;
        size_t bad = 0;
        for (size_t i = 0; i < kCount; i++) {
            float want = 0;
            for (int p = 0; p < n; p++)
                want += seq_value(p, i, round);
            bad += s[i] != want;
            bad += b[i] != want; // the last PE's sum, the same bits
            for (int p = 0; p < n; p++) {
                bad += g[p * kCount + i] != seq_value(p, i, round);
                bad += x[p * kCount + i] != seq_value(p, me * kCount + i, round);
            }
        }
        EXPECT_EQ(bad, 0u) << kScopeNames[scope] << " round " << round << ": wrong elements";
    }
    void enqueue(Scope scope, int round) {
        Sequence s = sequence(scope, round);
        void *args[] = {&s};
        CUDA_OK(launch((const void *)sequence_kernel, scope, args, stream));
    }
};

TEST_F(DeviceCollSequence, BackToBackInOneKernel) {
    for (Scope scope : kScopes)
        for (int round = 0; round < 3; round++) {
            poison();
            enqueue(scope, round);
            CUDA_OK(cudaStreamSynchronize(stream));
            check(scope, round);
        }
}

// The kernel captured into a graph, replayed: each replay runs a round with fresh inputs (the
// round number is in the captured arguments, so every replay of one graph computes the same).
TEST_F(DeviceCollSequence, GraphCaptureAndReplay) {
    for (Scope scope : kScopes) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        enqueue(scope, 7);
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 5; replay++) {
            poison();
            CUDA_OK(cudaGraphLaunch(exec, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            check(scope, 7);
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
}

// ---- tile building blocks ----

// kTiles blocks at once, block b on slot b with tile b (team size blocks of kTileCount floats):
// a reduce-scatter of the tile, an all-gather of the part it gave this PE, and a reduce-copy of
// the tile into a matrix of row stride kTileLd (odd: element by element), each against the
// sums that every PE computes.
constexpr int kTiles = 4, kTileCount = 96, kTileLd = kTileCount + 5;

__host__ __device__ float tile_value(int pe, int tile, int i) {
    return (float)((pe + 1) * 100 + tile * 7 + i % 13);
}

__global__ void tile_kernel(symcoll_device_t h, const float *src, float *scattered, float *gathered,
                            float *copied, int *failed) {
    const int b = blockIdx.x, n = h.team_size;
    const float *tile = src + (size_t)b * n * kTileCount;
    bool ok = symcoll_dev_tile_reduce_scatter_block<float, SYMCOLL_SUM>(
        h, scattered + b * kTileCount, tile, kTileCount, b);
    ok = ok && symcoll_dev_tile_all_gather_block(h, gathered + (size_t)b * n * kTileCount,
                                                 scattered + b * kTileCount, kTileCount, b);
    ok = ok && symcoll_dev_tile_reduce_copy_block<float, SYMCOLL_SUM>(
                   h, copied + (size_t)b * n * kTileLd, kTileLd, tile, n, kTileCount, b);
    if (!ok)
        atomicExch(failed, 1);
}

TEST(DeviceCollTiles, ReduceScatterAllGatherAndReduceCopyOfConcurrentTiles) {
    const int n = symcoll_n_pes(), me = symcoll_my_pe();
    const size_t tile = (size_t)n * kTileCount;
    SymBuffer src(kTiles * tile * 4), scattered(kTiles * kTileCount * 4),
        gathered(kTiles * tile * 4);
    DeviceBuffer copied(kTiles * n * kTileLd * 4);
    Stream stream;
    std::vector<float> mine(kTiles * tile);
    for (int b = 0; b < kTiles; b++)
        for (size_t i = 0; i < tile; i++)
            mine[b * tile + i] = tile_value(me, b, (int)i);
    CUDA_OK(cudaMemcpy(src.ptr, mine.data(), mine.size() * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(scattered.ptr, 0xff, scattered.bytes));
    CUDA_OK(cudaMemset(gathered.ptr, 0xff, gathered.bytes));
    CUDA_OK(cudaMemset(copied.ptr, 0xff, kTiles * n * kTileLd * 4));
    CUDA_OK(cudaMemset(failed_flag(), 0, sizeof(int)));
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    const float *s = src.as<float>();
    float *sc = scattered.as<float>(), *ga = gathered.as<float>(), *co = (float *)copied.ptr;
    int *failed = failed_flag();
    void *args[] = {&h, &s, &sc, &ga, &co, &failed};
    CUDA_OK(cudaLaunchKernel((const void *)tile_kernel, dim3(kTiles), dim3(128), args, 0, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<float> got_s(kTiles * kTileCount), got_g(kTiles * tile),
        got_c(kTiles * n * kTileLd);
    CUDA_OK(cudaMemcpy(got_s.data(), sc, got_s.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(got_g.data(), ga, got_g.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(got_c.data(), co, got_c.size() * 4, cudaMemcpyDeviceToHost));
    int false_return = 0;
    CUDA_OK(cudaMemcpy(&false_return, failed, sizeof false_return, cudaMemcpyDeviceToHost));
    EXPECT_EQ(false_return, 0) << "a tile call returned false";
    size_t bad = 0;
    for (int b = 0; b < kTiles; b++)
        for (int e = 0; e < (int)tile; e++) {
            float want = 0;
            for (int p = 0; p < n; p++)
                want += tile_value(p, b, e);
            if (e / kTileCount == me)
                bad += got_s[b * kTileCount + e % kTileCount] != want;
            bad += got_g[b * tile + e] != want;
            bad += got_c[(size_t)b * n * kTileLd + (size_t)(e / kTileCount) * kTileLd +
                         e % kTileCount] != want;
        }
    EXPECT_EQ(bad, 0u) << "wrong elements";
}

} // namespace
