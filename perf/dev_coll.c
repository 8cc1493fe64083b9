#include "dev_coll.h"

#include <stdio.h>

#include "call.h"
#include "check.h"
#include "dev_coll_kernels.h"
#include "dev_sync_kernels.h"
#include "exchange.h"
#include "fail.h"
#include "report.h"
#include "stats.h"
#include "timing.h"

#define POISON_BYTE 0xa5

#define SCOPE_NAME(id, name, threads) [PERF_DEV_SCOPE_##id] = #name,
static const char *const scope_names[PERF_DEV_NUM_SCOPES] = {PERF_DEV_SCOPES(SCOPE_NAME)};
#define SCOPE_THREADS(id, name, threads) [PERF_DEV_SCOPE_##id] = threads,
static const int scope_threads[PERF_DEV_NUM_SCOPES] = {PERF_DEV_SCOPES(SCOPE_THREADS)};

/* What each PE measures for a row: for each side, the device's and then the host's, us per call
 * (median, min) and wrong elements (-1: not checked). */
enum { MEDIAN_US, MIN_US, WRONG, SIDE_RESULTS };
enum { DEVICE = 0, HOST = SIDE_RESULTS, N_RESULTS = 2 * SIDE_RESULTS };

typedef struct {
    const perf_args_t *args;
    int me, npes;
    cudaStream_t stream;
    perf_exchange_t ex;
    perf_bench_t kernels; /* a timing: one kernel of -n calls */
    perf_bench_t graphs;  /* a timing: one replay of a CUDA graph of -n host calls */
    symcoll_device_t h;
    int grid_blocks, sm_share, sms; /* grid_blocks: the least of SYMCOLL_MAX_BLOCKS and these */
    void *src, *dst;                /* symmetric */
    void *host_src, *host_dst;      /* pinned, for the check */
    int *failed;                    /* device: a call returned false */
    uint64_t seed;                  /* check round */
    FILE *csv;
    long long wrong; /* this PE's wrong elements */
    /* The case being measured: call is its host form (op PERF_OP_BARRIER for the device
     * barrier, which coll does not name). */
    perf_dev_coll_t coll;
    perf_dev_scope_t scope;
    perf_call_t call;
} dev_coll_t;

/* The case's kernel of iters calls. */
static int launch(dev_coll_t *s, int iters, cudaStream_t stream) {
    if (s->call.op == PERF_OP_BARRIER)
        return perf_cuda_check(perf_dev_barrier_launch(s->h, iters, false, stream),
                               "barrier kernel");
    perf_dev_call_t c = {.h = s->h,
                         .dst = s->dst,
                         .src = s->src,
                         .count = s->call.count,
                         .root = s->call.root,
                         .failed = s->failed};
    int blocks = s->scope == PERF_DEV_SCOPE_GRID ? s->grid_blocks : 1;
    return perf_cuda_check(perf_dev_coll_launch(s->coll, s->scope, &c, blocks, iters, stream),
                           perf_dev_coll_name(s->coll));
}

static int enqueue_kernel(void *ctx, cudaStream_t stream) {
    dev_coll_t *s = ctx;
    return launch(s, s->args->iters, stream);
}

static int enqueue_one_call(void *ctx, cudaStream_t stream) {
    return launch(ctx, 1, stream);
}

static int enqueue_host(void *ctx, cudaStream_t stream) {
    dev_coll_t *s = ctx;
    return perf_symcoll_check(
        perf_call_enqueue(&s->call, SYMCOLL_TEAM_WORLD, s->dst, s->src, stream),
        perf_op_info(s->call.op)->name);
}

/* One call through enqueue on fresh data into a poisoned dst: this PE's wrong elements. */
static int check_one_call(dev_coll_t *s, perf_enqueue_fn enqueue, double *wrong) {
    const perf_call_t *c = &s->call;
    size_t src_bytes = perf_op_src_bytes(c->op, c->count, sizeof(float), s->npes);
    size_t dst_bytes = perf_call_dst_bytes(c, s->npes);
    uint64_t seed = ++s->seed;
    perf_check_fill(s->host_src, c, seed, s->me, s->npes);
    PERF_CUDA(cudaMemcpyAsync(s->src, s->host_src, src_bytes, cudaMemcpyHostToDevice, s->stream));
    PERF_CUDA(cudaMemsetAsync(s->dst, POISON_BYTE, dst_bytes, s->stream));
    if (enqueue(s, s->stream) != 0)
        return -1;
    PERF_CUDA(cudaMemcpyAsync(s->host_dst, s->dst, dst_bytes, cudaMemcpyDeviceToHost, s->stream));
    PERF_CUDA(cudaStreamSynchronize(s->stream));
    *wrong = (double)perf_check_count_wrong(s->host_dst, c, seed, s->me, s->npes);
    return 0;
}

/* Times enqueue through bench (graph_calls 0: stream mode), whose timings hold per_timing calls
 * each, then checks one call through once: this PE's side of the results in mine. */
static int measure(dev_coll_t *s, perf_bench_t *bench, int graph_calls, int per_timing,
                   perf_enqueue_fn enqueue, perf_enqueue_fn once, double mine[SIDE_RESULTS]) {
    if (perf_bench_begin(bench, graph_calls, enqueue, s) != 0)
        return -1;
    double median;
    int rc = perf_bench_measure(bench, &median);
    perf_bench_end(bench);
    if (rc != 0)
        return -1;
    /* perf_median sorted the samples: the first is the fastest */
    mine[MEDIAN_US] = median / per_timing;
    mine[MIN_US] = bench->samples[0] / per_timing;
    mine[WRONG] = -1;
    bool check = s->args->check && s->call.op != PERF_OP_BARRIER;
    return check ? check_one_call(s, once, &mine[WRONG]) : 0;
}

/* No wait of the team timed out and no call returned false. */
static int verify_calls(dev_coll_t *s) {
    if (perf_symcoll_check(symcoll_team_status(SYMCOLL_TEAM_WORLD), "in-kernel wait") != 0)
        return -1;
    int failed = 0;
    PERF_CUDA(
        cudaMemcpyAsync(&failed, s->failed, sizeof failed, cudaMemcpyDeviceToHost, s->stream));
    PERF_CUDA(cudaStreamSynchronize(s->stream));
    return failed ? perf_fail("dev_%s at %s scope: a call returned false",
                              perf_op_info(s->call.op)->name, scope_names[s->scope])
                  : 0;
}

/* The slowest PE's times of a side (DEVICE or HOST) of the gathered results, and every PE's
 * wrong elements. */
static perf_dev_time_t slowest(const dev_coll_t *s, const double *all, int side) {
    perf_dev_time_t t = {
        .us = perf_combine_times(all + side + MEDIAN_US, s->npes, N_RESULTS, PERF_AVERAGE_MAX),
        .min_us = perf_combine_times(all + side + MIN_US, s->npes, N_RESULTS, PERF_AVERAGE_MAX),
        .wrong = 0};
    for (int p = 0; p < s->npes && t.wrong >= 0; p++) {
        double wrong = all[p * N_RESULTS + side + WRONG];
        t.wrong = wrong < 0 ? -1 : t.wrong + (long long)wrong;
    }
    return t;
}

/* The case's row: its kernel, then its host calls in a graph; the reporter prints it. */
static int run_row(dev_coll_t *s) {
    PERF_CUDA(cudaMemsetAsync(s->failed, 0, sizeof *s->failed, s->stream));
    double mine[N_RESULTS], all[SYMCOLL_MAX_PES * N_RESULTS];
    _Static_assert(sizeof mine <= PERF_EXCHANGE_BYTES, "results fit");
    if (measure(s, &s->kernels, 0, s->args->iters, enqueue_kernel, enqueue_one_call,
                mine + DEVICE) != 0 ||
        measure(s, &s->graphs, s->args->iters, 1, enqueue_host, enqueue_host, mine + HOST) != 0 ||
        verify_calls(s) != 0 || perf_exchange_gather(&s->ex, mine, sizeof mine, all) != 0)
        return -1;
    for (int side = DEVICE; side < N_RESULTS; side += SIDE_RESULTS)
        s->wrong += mine[side + WRONG] > 0 ? (long long)mine[side + WRONG] : 0;
    if (s->me != 0)
        return 0;
    perf_dev_coll_row_t row = {.op = s->call.op,
                               .scope = scope_names[s->scope],
                               .count = s->call.count,
                               .root = s->call.root,
                               .npes = s->npes,
                               .device = slowest(s, all, DEVICE),
                               .host = slowest(s, all, HOST)};
    perf_dev_coll_table_row(stdout, &row);
    if (s->csv)
        perf_dev_coll_csv_rows(s->csv, &row);
    return 0;
}

/* A row for each selected collective at each scope from first to last and each size. */
static int run_rows(dev_coll_t *s, perf_dev_scope_t first, perf_dev_scope_t last,
                    const size_t *sizes, size_t n_sizes) {
    for (int c = 0; c < PERF_DEV_NUM_COLLS; c++) {
        perf_op_t op = perf_dev_coll_op((perf_dev_coll_t)c);
        for (int scope = first; scope <= (int)last && s->args->dev_colls[c]; scope++) {
            for (size_t i = 0; i < n_sizes; i++) {
                s->coll = (perf_dev_coll_t)c;
                s->scope = (perf_dev_scope_t)scope;
                s->call = (perf_call_t){
                    .op = op,
                    .type = SYMCOLL_FLOAT32,
                    .redop = SYMCOLL_SUM,
                    .root = s->args->root,
                    .count = perf_op_count(op, sizes[i], sizeof(float), s->npes),
                };
                if (s->call.count > 0 && run_row(s) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* Warp and block scope, after the in-kernel barrier. */
static int run_latency(dev_coll_t *s, const size_t *sizes, size_t n_sizes) {
    const perf_args_t *a = s->args;
    if (s->me == 0) {
        printf("#\n# in-kernel collectives, latency (%d PEs): float32, sum for reduce", s->npes);
        if (a->dev_colls[PERF_DEV_COLL_BROADCAST])
            printf(", root %d for broadcast", a->root);
        printf("; %d calls per kernel, %d kernels timed after %d of warm-up; times of the slowest "
               "PE\n"
               "# dev: symcoll_dev_<op>_warp by one warp, symcoll_dev_<op>_block by one block of "
               "%d threads; dev_barrier: symcoll_dev_barrier by one block of 128 threads\n"
               "# host: symcoll_<op>_on_stream (symcoll_barrier_on_stream), a CUDA graph of %d "
               "calls, %d replays timed; dev/host < 1: the in-kernel call is faster\n",
               a->iters, a->timings, a->warmup, scope_threads[PERF_DEV_SCOPE_BLOCK], a->iters,
               a->timings);
        perf_dev_coll_nccl_line(stdout, a->dev_colls);
        perf_dev_coll_table_header(stdout);
    }
    s->scope = PERF_DEV_SCOPE_BLOCK;
    s->call = (perf_call_t){.op = PERF_OP_BARRIER, .root = -1};
    if (run_row(s) != 0)
        return -1;
    return run_rows(s, PERF_DEV_SCOPE_WARP, PERF_DEV_SCOPE_BLOCK, sizes, n_sizes);
}

/* Grid scope. */
static int run_bandwidth(dev_coll_t *s, const size_t *sizes, size_t n_sizes) {
    if (s->me == 0) {
        printf("#\n# in-kernel collectives, bandwidth (%d PEs): symcoll_dev_<op>_grid by a "
               "kernel of %d blocks of %d threads (the least of SYMCOLL_MAX_BLOCKS "
               "%d, sm_share %d and %d SMs); busbw: nccl-tests' factors; else as above\n",
               s->npes, s->grid_blocks, scope_threads[PERF_DEV_SCOPE_GRID], SYMCOLL_MAX_BLOCKS,
               s->sm_share, s->sms);
        perf_dev_coll_nccl_line(stdout, s->args->dev_colls);
        perf_dev_coll_table_header(stdout);
    }
    return run_rows(s, PERF_DEV_SCOPE_GRID, PERF_DEV_SCOPE_GRID, sizes, n_sizes);
}

static int min_int(int a, int b) {
    return a < b ? a : b;
}

/* buffer_bytes: of src and dst each, enough for the largest size. */
static int setup(dev_coll_t *s, size_t buffer_bytes) {
    perf_args_t one_kernel = *s->args; /* a timing is one kernel of -n calls */
    one_kernel.iters = 1;
    if (perf_exchange_init(&s->ex, SYMCOLL_TEAM_WORLD, s->stream) != 0 ||
        perf_bench_init(&s->kernels, &one_kernel, SYMCOLL_TEAM_WORLD, s->stream) != 0 ||
        perf_bench_init(&s->graphs, s->args, SYMCOLL_TEAM_WORLD, s->stream) != 0)
        return -1;
    s->h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    if (s->h.team_size == 0)
        return perf_fail("symcoll_device_handle: %s", symcoll_last_error());
    symcoll_gpu_sharing_t sharing;
    PERF_SYMCOLL(symcoll_gpu_sharing(&sharing));
    int device = 0;
    PERF_CUDA(cudaGetDevice(&device));
    PERF_CUDA(cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, device));
    s->sm_share = sharing.sm_share;
    s->grid_blocks = min_int(SYMCOLL_MAX_BLOCKS, min_int(s->sm_share, s->sms));
    s->src = symcoll_malloc(buffer_bytes);
    s->dst = s->src ? symcoll_malloc(buffer_bytes) : NULL;
    if (s->dst == NULL)
        return perf_fail("symcoll_malloc(%zu): %s", buffer_bytes, symcoll_last_error());
    PERF_CUDA(cudaMallocHost(&s->host_src, buffer_bytes));
    PERF_CUDA(cudaMallocHost(&s->host_dst, buffer_bytes));
    PERF_CUDA(cudaMalloc((void **)&s->failed, sizeof *s->failed));
    int rc = 0;
    if (s->me == 0 && s->args->csv_path && (s->csv = perf_csv_create(s->args->csv_path)) == NULL)
        rc = perf_fail("--csv %s: cannot create it", s->args->csv_path);
    return perf_exchange_agree(&s->ex, rc);
}

/* Releases what setup made; after a failure, which may be this PE's alone, the symmetric
 * memory stays for symcoll_finalize (freeing it is collective). 0, or -1 after reporting a
 * failed release. */
static int teardown(dev_coll_t *s, bool failed) {
    int rc = 0;
    if (s->csv && fclose(s->csv) != 0)
        rc = perf_fail("cannot write %s", s->args->csv_path);
    rc |= perf_cuda_check(cudaFree(s->failed), "cudaFree");
    rc |= perf_cuda_check(cudaFreeHost(s->host_dst), "cudaFreeHost");
    rc |= perf_cuda_check(cudaFreeHost(s->host_src), "cudaFreeHost");
    if (!failed) {
        symcoll_free(s->dst);
        symcoll_free(s->src);
        rc |= perf_exchange_fini(&s->ex);
    }
    rc |= perf_bench_fini(&s->graphs);
    rc |= perf_bench_fini(&s->kernels);
    rc |= perf_cuda_check(cudaStreamDestroy(s->stream), "cudaStreamDestroy");
    return rc;
}

int perf_dev_coll(const perf_args_t *args) {
    dev_coll_t s = {.args = args, .me = symcoll_my_pe(), .npes = symcoll_n_pes()};
    if (!perf_args_root_fits(args, s.npes, s.me == 0))
        return 2;
    size_t grid_sizes[PERF_MAX_SIZES], latency_sizes[PERF_MAX_SIZES];
    size_t n_grid = perf_size_list(args, grid_sizes, PERF_MAX_SIZES);
    perf_args_t latency = *args;
    latency.max_bytes = args->dev_latency_max_bytes;
    size_t n_latency = perf_size_list(&latency, latency_sizes, PERF_MAX_SIZES);
    PERF_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    /* dev_latency_max_bytes is -e or less: the grid's sizes are the largest */
    int rc = setup(&s, perf_buffer_bytes(grid_sizes, n_grid));
    if (rc == 0)
        rc = run_latency(&s, latency_sizes, n_latency);
    if (rc == 0)
        rc = run_bandwidth(&s, grid_sizes, n_grid);
    if (teardown(&s, rc != 0) != 0 && rc == 0)
        rc = -1;
    return rc != 0 ? rc : s.wrong > 0;
}
