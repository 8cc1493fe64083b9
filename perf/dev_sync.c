#include "dev_sync.h"

#include <stdio.h>
#include <string.h>

#include "dev_sync_kernels.h"
#include "exchange.h"
#include "fail.h"
#include "job_topology.h"
#include "nccl_baseline.h"
#include "nccl_dev_kernels.h"
#include "report.h"
#include "timing.h"

/* The payload of the ping-pong's block put. */
#define BLOCK_BYTES ((size_t)64 << 10)

typedef struct {
    const perf_args_t *args;
    int me, npes;
    cudaStream_t stream;
    perf_exchange_t ex;
    perf_bench_t bench; /* one kernel per timing */
    symcoll_device_t h;
    perf_nccl_columns_t nccl; /* never OFF: NCCL is always measured beside, where it can run */
    perf_nccl_t nc;
    perf_nccl_dev_t *ndev; /* NULL: NCCL's device API is not available */
    perf_pingpong_t pp;
    unsigned long long *counters; /* device: wrong data, an NCCL wait that gave up */
    uint64_t base, nccl_base;     /* the last values sent: the signals only ever rise */
    bool relaxed;                 /* the barrier being measured */
    size_t bytes;                 /* the ping-pong being measured */
    FILE *csv;
} dev_sync_t;

static int enqueue_barrier(void *ctx, cudaStream_t stream) {
    dev_sync_t *s = ctx;
    return perf_cuda_check(perf_dev_barrier_launch(s->h, s->args->iters, s->relaxed, stream),
                           "barrier kernel");
}

static int enqueue_nccl_barrier(void *ctx, cudaStream_t stream) {
    dev_sync_t *s = ctx;
    return perf_cuda_check(
        perf_nccl_dev_barrier_launch(s->ndev, s->args->iters, s->relaxed, stream),
        "NCCL barrier kernel");
}

static int enqueue_pingpong(void *ctx, cudaStream_t stream) {
    dev_sync_t *s = ctx;
    perf_pingpong_t p = s->pp;
    p.bytes = s->bytes;
    uint64_t base = s->base;
    s->base += (uint64_t)s->args->iters;
    return perf_cuda_check(perf_dev_pingpong_launch(s->h, &p, base, s->args->iters, stream),
                           "ping-pong kernel");
}

static int enqueue_nccl_pingpong(void *ctx, cudaStream_t stream) {
    dev_sync_t *s = ctx;
    uint64_t base = s->nccl_base;
    s->nccl_base += (uint64_t)s->args->iters;
    return perf_cuda_check(perf_nccl_dev_pingpong_launch(s->nc.sym_src_win, s->me, base,
                                                         s->args->iters, s->h.timeout_ns,
                                                         s->counters, stream),
                           "NCCL ping-pong kernel");
}

/* Times enqueue's kernels, checks the team and the counters, and gives PE 0 the slowest
 * PE's time per one of trips_per_iter trips of each of the kernel's iterations. */
static int measure(dev_sync_t *s, perf_enqueue_fn enqueue, int trips_per_iter, bool checked,
                   perf_dev_time_t *out) {
    PERF_CUDA(cudaMemsetAsync(s->counters, 0, 2 * sizeof *s->counters, s->stream));
    if (perf_bench_begin(&s->bench, 0, enqueue, s) != 0)
        return -1;
    double median;
    int rc = perf_bench_measure(&s->bench, &median);
    perf_bench_end(&s->bench);
    if (rc != 0 ||
        perf_symcoll_check(symcoll_team_status(SYMCOLL_TEAM_WORLD), "in-kernel wait") != 0)
        return -1;
    unsigned long long counters[2];
    PERF_CUDA(cudaMemcpy(counters, s->counters, sizeof counters, cudaMemcpyDeviceToHost));
    if (counters[1] != 0)
        return perf_fail("NCCL ping-pong: a wait gave up after SYMCOLL_TIMEOUT_MS");
    double trips = (double)s->args->iters * trips_per_iter;
    /* perf_median sorted the samples: the first is the fastest kernel */
    double mine[3] = {median / trips, s->bench.samples[0] / trips, (double)counters[0]};
    double all[SYMCOLL_MAX_PES * 3];
    if (perf_exchange_gather(&s->ex, mine, sizeof mine, all) != 0)
        return -1;
    *out = (perf_dev_time_t){.us = 0, .min_us = 0, .wrong = checked ? 0 : -1};
    for (int p = 0; p < s->npes && s->me == 0; p++) {
        out->us = all[3 * p] > out->us ? all[3 * p] : out->us;
        out->min_us = all[3 * p + 1] > out->min_us ? all[3 * p + 1] : out->min_us;
        out->wrong += checked ? (long long)all[3 * p + 2] : 0;
    }
    return 0;
}

static void report(dev_sync_t *s, const perf_dev_row_t *row) {
    if (s->me != 0)
        return;
    perf_dev_table_row(stdout, row, s->nccl);
    if (s->csv)
        perf_dev_csv_rows(s->csv, row);
}

static perf_dev_row_t row_of(const dev_sync_t *s, const char *op, const char *kind, size_t bytes) {
    return (perf_dev_row_t){.op = op,
                            .kind = kind,
                            .bytes = bytes,
                            .iters = s->args->iters,
                            .npes = s->npes,
                            .nccl = {.us = -1, .min_us = -1, .wrong = -1}};
}

static int run_barriers(dev_sync_t *s) {
    if (s->me == 0) {
        printf("# in-kernel barrier (%d PEs): one block of 128 threads per GPU, %d syncs per "
               "kernel, %d kernels timed after %d of warm-up\n# symcoll: symcoll_dev_barrier "
               "(acq_rel), symcoll_dev_barrier_relaxed (relaxed); nccl-lsa: "
               "ncclLsaBarrierSession<ncclCoopCta>::sync with that memory order\n",
               s->npes, s->args->iters, s->args->timings, s->args->warmup);
        perf_dev_table_header(stdout, "us per sync", s->nccl);
    }
    for (int relaxed = 0; relaxed < 2; relaxed++) {
        s->relaxed = relaxed;
        perf_dev_row_t row = row_of(s, "dev_barrier", relaxed ? "relaxed" : "acq_rel", 0);
        if (measure(s, enqueue_barrier, 1, false, &row.symcoll) != 0 ||
            (s->ndev && measure(s, enqueue_nccl_barrier, 1, false, &row.nccl) != 0))
            return -1;
        report(s, &row);
    }
    return 0;
}

static long long run_pingpongs(dev_sync_t *s) {
    int reach = 0;
    if (s->me < 2 && !(s->h.reachable >> (1 - s->me) & 1))
        reach =
            perf_fail("--op dev_pingpong: PE %d has no load/store path to PE %d", s->me, 1 - s->me);
    if (perf_exchange_agree(&s->ex, reach) != 0)
        return -1;
    if (s->me == 0) {
        printf("# in-kernel ping-pong between PE 0 and PE 1 (%d PEs, the others idle): %d round "
               "trips per kernel, %d kernels timed after %d of warm-up, data checked\n"
               "# put_signal: one thread's 8 B symcoll_dev_put_signal + "
               "symcoll_dev_signal_wait_until; nccl-lsa: one thread's 8 B store + release store "
               "of a flag into the peer's NCCL window, acquire loads of its own\n"
               "# put_signal_block: 64 KiB symcoll_dev_put_signal_block by 128 threads\n",
               s->npes, s->args->iters, s->args->timings, s->args->warmup);
        perf_dev_table_header(stdout, "us per one-way trip", s->nccl);
    }
    perf_dev_row_t word = row_of(s, "dev_pingpong", "put_signal", 8);
    perf_dev_row_t block = row_of(s, "dev_pingpong", "put_signal_block", BLOCK_BYTES);
    s->bytes = 8;
    if (measure(s, enqueue_pingpong, 2, true, &word.symcoll) != 0 ||
        (s->ndev && measure(s, enqueue_nccl_pingpong, 2, true, &word.nccl) != 0))
        return -1;
    report(s, &word);
    s->bytes = BLOCK_BYTES;
    if (measure(s, enqueue_pingpong, 2, true, &block.symcoll) != 0)
        return -1;
    report(s, &block);
    return word.symcoll.wrong + (word.nccl.wrong > 0 ? word.nccl.wrong : 0) + block.symcoll.wrong;
}

/* The NCCL communicator and window measured beside, and a device communicator on them when
 * the library has the device API. */
static int nccl_setup(dev_sync_t *s) {
    if (perf_nccl_init(&s->nc, &s->ex, PERF_NCCL_PINGPONG_BYTES) != 0)
        return -1;
    int version = 0;
    ncclResult_t rc = ncclGetVersion(&version);
    if (rc != ncclSuccess)
        return perf_fail("ncclGetVersion: %s", ncclGetErrorString(rc));
    if (version < PERF_NCCL_DEV_MIN_VERSION) {
        if (s->me == 0)
            printf("# nccl device API not available (NCCL %d; needs %d)\n", version,
                   PERF_NCCL_DEV_MIN_VERSION);
        return 0;
    }
    rc = perf_nccl_dev_create(s->nc.comm, &s->ndev);
    return rc == ncclSuccess ? 0 : perf_fail("ncclDevCommCreate: %s", ncclGetErrorString(rc));
}

static int setup(dev_sync_t *s) {
    perf_args_t one_kernel = *s->args; /* a timing is one kernel of -n syncs */
    one_kernel.iters = 1;
    if (perf_exchange_init(&s->ex, SYMCOLL_TEAM_WORLD, s->stream) != 0 ||
        perf_bench_init(&s->bench, &one_kernel, SYMCOLL_TEAM_WORLD, s->stream) != 0)
        return -1;
    s->h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    if (s->h.team_size == 0)
        return perf_fail("symcoll_device_handle: %s", symcoll_last_error());
    s->pp.data = symcoll_calloc(1, BLOCK_BYTES + 128);
    if (s->pp.data == NULL)
        return perf_fail("symcoll_calloc: %s", symcoll_last_error());
    s->pp.sig = s->pp.data + BLOCK_BYTES / sizeof(uint64_t);
    PERF_CUDA(cudaMalloc((void **)&s->pp.src, BLOCK_BYTES));
    PERF_CUDA(cudaMalloc((void **)&s->counters, 2 * sizeof *s->counters));
    s->pp.wrong = s->counters;
    if (perf_nccl_columns(true, &s->nccl) != 0 || (s->nccl == PERF_NCCL_ON && nccl_setup(s) != 0))
        return -1;
    int rc = 0;
    if (s->me == 0 && s->args->csv_path && (s->csv = perf_csv_create(s->args->csv_path)) == NULL)
        rc = perf_fail("cannot create %s", s->args->csv_path);
    return perf_exchange_agree(&s->ex, rc);
}

/* 0, or -1 after reporting a failed release. */
static int teardown(dev_sync_t *s) {
    int rc = 0;
    if (s->csv && fclose(s->csv) != 0)
        rc = perf_fail("cannot write %s", s->args->csv_path);
    if (s->ndev) {
        ncclResult_t nrc = perf_nccl_dev_destroy(s->ndev);
        if (nrc != ncclSuccess)
            rc = perf_fail("ncclDevCommDestroy: %s", ncclGetErrorString(nrc));
    }
    if (s->nc.comm)
        rc |= perf_nccl_fini(&s->nc);
    rc |= perf_cuda_check(cudaFree(s->counters), "cudaFree");
    rc |= perf_cuda_check(cudaFree(s->pp.src), "cudaFree");
    symcoll_free(s->pp.data);
    rc |= perf_bench_fini(&s->bench);
    rc |= perf_exchange_fini(&s->ex);
    return rc;
}

int perf_dev_sync(const perf_args_t *args) {
    dev_sync_t s = {.args = args, .me = symcoll_my_pe(), .npes = symcoll_n_pes()};
    if (args->dev_op == PERF_DEV_PINGPONG && s.npes < 2) {
        fprintf(stderr, "symcoll-perf: --op dev_pingpong needs 2 PEs or more (symcoll-run -n 2)\n");
        return 1;
    }
    PERF_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    long long wrong = 0;
    int rc = setup(&s);
    if (rc == 0 && args->dev_op == PERF_DEV_BARRIER)
        rc = run_barriers(&s);
    if (rc == 0 && args->dev_op == PERF_DEV_PINGPONG) {
        wrong = run_pingpongs(&s);
        rc = wrong < 0 ? -1 : 0;
    }
    if (teardown(&s) != 0 || perf_cuda_check(cudaStreamDestroy(s.stream), "cudaStreamDestroy") != 0)
        rc = rc != 0 ? rc : -1;
    if (rc == 0 && wrong > 0 && s.me == 0)
        fprintf(stderr, "symcoll-perf: dev_pingpong: %lld rounds received wrong data\n", wrong);
    return rc != 0 ? rc : wrong > 0;
}
