#include "sweep.h"

#include <stdlib.h>

#include "alltoallv_device.h"
#include "baseline.h"
#include "call.h"
#include "check.h"
#include "choice.h"
#include "exchange.h"
#include "fail.h"
#include "job_topology.h"
#include "launch_kernel.h"
#include "machine.h"
#include "nccl_baseline.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "timing.h"

#define POISON_BYTE 0xa5
#define FIRST_CALL_WARM_CALLS 20

/* One collective's first call in the process and later calls timed alike. */
typedef struct {
    bool measured;
    perf_call_t call;
    size_t bytes;
    double us[2]; /* cold, warm */
} first_call_t;

typedef struct {
    const perf_args_t *args;
    symcoll_team_t team;
    int npes, me;                  /* team numbering */
    bool reporter;                 /* world PE 0 prints */
    symcoll_gpu_sharing_t sharing; /* its sm_share sizes the grids of the algorithm column */
    perf_nccl_columns_t nccl;
    cudaStream_t stream;
    perf_exchange_t ex;
    perf_bench_t bench;
    perf_nccl_t nccl_comm; /* nccl ON only */
    void *src, *dst;       /* symmetric, buffer_bytes and dst_bytes */
    size_t buffer_bytes, dst_bytes;
    perf_counts_t counts;      /* alltoallv's, where the run has it (matrix NULL otherwise) */
    void *host_src, *host_dst; /* pinned, for the check */
    uint64_t seed;             /* check round */
    FILE *csv;
    long long my_wrong;
    first_call_t first[PERF_NUM_OPS];
} sweep_t;

/* What each PE measures for one row; combined on the reporter. */
enum { RESULT_TIME, RESULT_NCCL, RESULT_NCCL_SYM, RESULT_WRONG, N_RESULTS };

typedef struct {
    const sweep_t *sw;
    perf_call_t call;
    bool symmetric; /* NCCL only: on its symmetric windows */
} case_t;

static int enqueue_symcoll(void *ctx, cudaStream_t stream) {
    const case_t *k = ctx;
    symcoll_status_t st = perf_call_enqueue(&k->call, k->sw->team, k->sw->dst, k->sw->src, stream);
    return perf_symcoll_check(st, perf_op_info(k->call.op)->name);
}

static int enqueue_nccl(void *ctx, cudaStream_t stream) {
    const case_t *k = ctx;
    return perf_nccl_enqueue(&k->sw->nccl_comm, &k->call, k->symmetric, stream);
}

static int enqueue_empty(void *ctx, cudaStream_t stream) {
    (void)ctx;
    return perf_cuda_check(perf_launch_empty_kernel(stream), "empty kernel");
}

/* alltoallv's counts for call by --skew (perf_counts_set). */
static int set_counts(sweep_t *sw, perf_call_t *call) {
    return perf_counts_set(&sw->counts, call, sw->me, sw->args->skew, sw->stream);
}

/* Runs c once on fresh random data into a poisoned destination (one unit of the bench: in
 * graph mode one replay) and counts the wrong elements on this PE, alltoallv's received counts
 * and offsets among them. */
static int check_case(sweep_t *sw, const perf_call_t *c, double *wrong) {
    size_t elem = symcoll_datatype_size(c->type);
    size_t src_bytes = perf_op_src_bytes(c->op, c->count, elem, sw->npes);
    size_t dst_bytes = perf_call_dst_bytes(c, sw->npes);
    uint64_t seed = ++sw->seed;
    perf_check_fill(sw->host_src, c, seed, sw->me, sw->npes);
    PERF_CUDA(
        cudaMemcpyAsync(sw->src, sw->host_src, src_bytes, cudaMemcpyHostToDevice, sw->stream));
    PERF_CUDA(cudaMemsetAsync(sw->dst, POISON_BYTE, dst_bytes, sw->stream));
    if (perf_bench_run_once(&sw->bench) != 0) {
        return -1;
    }
    PERF_CUDA(
        cudaMemcpyAsync(sw->host_dst, sw->dst, dst_bytes, cudaMemcpyDeviceToHost, sw->stream));
    PERF_CUDA(cudaStreamSynchronize(sw->stream));
    size_t n = perf_check_count_wrong(sw->host_dst, c, seed, sw->me, sw->npes), counts_wrong = 0;
    if (c->counts != NULL && perf_counts_check(c->counts, sw->me, sw->stream, &counts_wrong) != 0) {
        return -1;
    }
    n += counts_wrong;
    sw->my_wrong += (long long)n;
    *wrong = (double)n;
    return 0;
}

/* Times k's call through enqueue in the mode of graph_calls; when check is set, first checks
 * its result. */
static int measure(sweep_t *sw, int graph_calls, perf_enqueue_fn enqueue, const case_t *k,
                   bool check, double *us, double *wrong) {
    if (perf_bench_begin(&sw->bench, graph_calls, enqueue, (void *)k) != 0) {
        return -1;
    }
    int rc = check ? check_case(sw, &k->call, wrong) : 0;
    if (rc == 0) {
        rc = perf_bench_measure(&sw->bench, us);
    }
    perf_bench_end(&sw->bench);
    return rc;
}

/* Gathers every PE's results; the reporter completes row with them and prints it. busbw_factor
 * is NULL for rows without bandwidth. */
static int report(sweep_t *sw, perf_row_t *row, double (*busbw_factor)(int),
                  const double mine[N_RESULTS]) {
    double all[SYMCOLL_MAX_PES * N_RESULTS];
    _Static_assert(sizeof(double) * N_RESULTS <= PERF_EXCHANGE_BYTES, "results fit");
    if (perf_exchange_gather(&sw->ex, mine, sizeof(double) * N_RESULTS, all) != 0) {
        return -1;
    }
    if (!sw->reporter) {
        return 0;
    }
    const perf_average_t average = sw->args->average;
    row->time_us = perf_combine_times(all + RESULT_TIME, sw->npes, N_RESULTS, average);
    row->nccl_us = perf_combine_times(all + RESULT_NCCL, sw->npes, N_RESULTS, average);
    row->nccl_sym_us = perf_combine_times(all + RESULT_NCCL_SYM, sw->npes, N_RESULTS, average);
    row->wrong = 0;
    for (int p = 0; p < sw->npes && row->wrong >= 0; p++) {
        double wrong = all[p * N_RESULTS + RESULT_WRONG];
        row->wrong = wrong < 0 ? -1 : row->wrong + (long long)wrong;
    }
    row->has_bandwidth = busbw_factor != NULL;
    if (row->has_bandwidth) {
        row->algbw_gbps = perf_algbw_gbps(row->bytes, row->time_us);
        row->busbw_gbps = row->algbw_gbps * busbw_factor(sw->npes);
    }
    perf_table_row(stdout, row, sw->nccl);
    if (sw->csv != NULL) {
        perf_csv_row(sw->csv, row);
    }
    return 0;
}

static int run_launch(sweep_t *sw, const char *mode, int graph_calls) {
    double mine[N_RESULTS] = {0, -1, -1, -1};
    if (measure(sw, graph_calls, enqueue_empty, NULL, false, &mine[RESULT_TIME], NULL) != 0) {
        return -1;
    }
    perf_row_t row = {.op = "launch",
                      .mode = mode,
                      .type = "none",
                      .redop = "none",
                      .root = -1,
                      .npes = sw->npes,
                      .algorithm = "empty-kernel"};
    return report(sw, &row, NULL, mine);
}

static int run_case(sweep_t *sw, const char *mode, int graph_calls, perf_call_t *call) {
    const perf_op_info_t *info = perf_op_info(call->op);
    bool barrier = call->op == PERF_OP_BARRIER;
    size_t elem = barrier ? 0 : symcoll_datatype_size(call->type);
    size_t bytes = barrier ? 0 : perf_op_bytes(call->op, call->count, elem, sw->npes);
    if (set_counts(sw, call) != 0) {
        return -1;
    }
    /* perf_choose asks for alltoallv by dst_capacity, its fullest PE's share, as the call. */
    symcoll_explanation_t choice;
    if (perf_choose(call, sw->team, NULL, 0, &choice) != SYMCOLL_SUCCESS) {
        return perf_fail("%s: %s", info->name, symcoll_last_error());
    }
    double mine[N_RESULTS] = {0, -1, -1, -1};
    case_t ours = {.sw = sw, .call = *call};
    bool check = sw->args->check && !barrier;
    if (measure(sw, graph_calls, enqueue_symcoll, &ours, check, &mine[RESULT_TIME],
                &mine[RESULT_WRONG]) != 0) {
        return -1;
    }
    bool nccl_uncapturable = graph_calls > 0 && perf_op_nccl_syncs_host(call->op);
    if (sw->nccl == PERF_NCCL_ON && perf_nccl_supports(call) && !nccl_uncapturable) {
        case_t plain = {.sw = sw, .call = *call, .symmetric = false};
        case_t symmetric = {.sw = sw, .call = *call, .symmetric = true};
        if (measure(sw, graph_calls, enqueue_nccl, &plain, false, &mine[RESULT_NCCL], NULL) != 0 ||
            measure(sw, graph_calls, enqueue_nccl, &symmetric, false, &mine[RESULT_NCCL_SYM],
                    NULL) != 0) {
            return -1;
        }
    }
    perf_row_t row = {
        .op = info->name,
        .mode = mode,
        .bytes = bytes,
        .count = call->count,
        .type = barrier ? "none" : symcoll_datatype_name(call->type),
        .redop = perf_op_reduces(call->op) ? symcoll_op_name(call->redop) : "none",
        .root = call->op == PERF_OP_BROADCAST ? call->root : -1,
        .npes = sw->npes,
        .algorithm = choice.algorithm,
        .blocks = choice.blocks,
        .threads = choice.threads,
        .nccl_na = nccl_uncapturable,
    };
    return report(sw, &row, info->busbw_factor, mine);
}

/* Every size of one (collective, type, reduction op). */
static int run_sizes(sweep_t *sw, const char *mode, int graph_calls, perf_call_t call,
                     const size_t *sizes, size_t n_sizes) {
    size_t elem = symcoll_datatype_size(call.type);
    for (size_t s = 0; s < n_sizes; s++) {
        call.count = perf_op_count(call.op, sizes[s], elem, sw->npes);
        if (call.count > 0 && run_case(sw, mode, graph_calls, &call) != 0) {
            return -1;
        }
    }
    return 0;
}

static int run_mode(sweep_t *sw, const char *mode, int graph_calls, const size_t *sizes,
                    size_t n_sizes) {
    const perf_args_t *a = sw->args;
    if (sw->reporter) {
        perf_table_header(stdout, mode, sw->nccl);
        for (int op = 0; op < PERF_NUM_OPS && sw->nccl == PERF_NCCL_ON && graph_calls > 0; op++) {
            if (a->ops[op] && perf_op_nccl_syncs_host((perf_op_t)op)) {
                perf_nccl_uncapturable_line(stdout, perf_op_info((perf_op_t)op)->name);
            }
        }
    }
    if (run_launch(sw, mode, graph_calls) != 0) {
        return -1;
    }
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        if (!a->ops[op]) {
            continue;
        }
        perf_call_t call = {.op = (perf_op_t)op, .root = a->root};
        if (op == PERF_OP_BARRIER) {
            if (run_case(sw, mode, graph_calls, &call) != 0) {
                return -1;
            }
            continue;
        }
        for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
            if (!a->types[t]) {
                continue;
            }
            for (int r = 0; r < SYMCOLL_NUM_OPS; r++) {
                call.type = (symcoll_datatype_t)t;
                call.redop = (symcoll_op_t)r;
                /* The reduction op matters to reduce only: the others run once per type. */
                bool wanted = perf_op_reduces(op)
                                  ? a->redops[r] && perf_redop_valid(call.type, call.redop)
                                  : r == 0;
                if (wanted && run_sizes(sw, mode, graph_calls, call, sizes, n_sizes) != 0) {
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* The call of op that the first-call table times: the sweep's first type and reduction op, at
 * bytes. False when bytes hold no element. */
static bool first_call_of(const sweep_t *sw, perf_op_t op, size_t bytes, perf_call_t *call) {
    if (!perf_args_first_call(sw->args, op, call)) {
        return false;
    }
    if (op != PERF_OP_BARRIER) {
        call->count = perf_op_count(op, bytes, symcoll_datatype_size(call->type), sw->npes);
    }
    return op == PERF_OP_BARRIER || call->count > 0;
}

/* Lines the PEs up without a kernel: a collective allocation goes through the bootstrap. */
static int align_pes(void) {
    void *p = symcoll_malloc(1);
    if (p == NULL) {
        return perf_fail("symcoll_malloc(1): %s", symcoll_last_error());
    }
    symcoll_free(p);
    return 0;
}

/* One call timed on the host clock, the PEs lined up before it. */
static int time_aligned_call(sweep_t *sw, case_t *k, double *us) {
    return align_pes() != 0 ? -1 : perf_time_one_call(enqueue_symcoll, k, sw->stream, us);
}

/* Times each collective's first call in this process, before anything else of the sweep
 * launches a kernel, then warm calls alike. */
static int measure_first_calls(sweep_t *sw, size_t bytes) {
    /* The driver sets a stream up at its first use: a cost of the application's stream, not
     * of the collective, so an empty kernel takes it first. */
    PERF_CUDA(perf_launch_empty_kernel(sw->stream));
    PERF_CUDA(cudaStreamSynchronize(sw->stream));
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        first_call_t *f = &sw->first[op];
        if (!sw->args->ops[op] || !first_call_of(sw, (perf_op_t)op, bytes, &f->call)) {
            continue;
        }
        if (set_counts(sw, &f->call) != 0) {
            return -1;
        }
        case_t k = {.sw = sw, .call = f->call};
        double warm[FIRST_CALL_WARM_CALLS];
        if (time_aligned_call(sw, &k, &f->us[0]) != 0) {
            return -1;
        }
        for (int i = 0; i < FIRST_CALL_WARM_CALLS; i++) {
            if (time_aligned_call(sw, &k, &warm[i]) != 0) {
                return -1;
            }
        }
        f->us[1] = perf_median(warm, FIRST_CALL_WARM_CALLS);
        f->measured = true;
        f->bytes = op == PERF_OP_BARRIER
                       ? 0
                       : perf_op_bytes(f->call.op, f->call.count,
                                       symcoll_datatype_size(f->call.type), sw->npes);
    }
    return 0;
}

/* The reporter's CSV (--csv, or a temporary one for --plot and --baseline). */
static int open_outputs(sweep_t *sw, char *temp_csv, size_t temp_len) {
    const perf_args_t *a = sw->args;
    if (a->csv_path != NULL) {
        sw->csv = fopen(a->csv_path, "w");
        if (sw->csv == NULL) {
            return perf_fail("--csv %s: cannot create it", a->csv_path);
        }
    } else if (a->plot_path != NULL || a->baseline_path != NULL) {
        sw->csv = perf_plot_temp_csv(temp_csv, temp_len);
        if (sw->csv == NULL) {
            return -1;
        }
    }
    if (sw->csv != NULL) {
        perf_csv_header(sw->csv);
    }
    return 0;
}

/* The first-call table from the slowest PE's times, and its CSV rows (modes "cold" and
 * "warm-single"). */
static int report_first_calls(sweep_t *sw) {
    double mine[PERF_NUM_OPS * 2], all[SYMCOLL_MAX_PES * PERF_NUM_OPS * 2];
    _Static_assert(sizeof mine <= PERF_EXCHANGE_BYTES, "first-call times fit");
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        mine[2 * op] = sw->first[op].us[0];
        mine[2 * op + 1] = sw->first[op].us[1];
    }
    if (perf_exchange_gather(&sw->ex, mine, sizeof mine, all) != 0) {
        return -1;
    }
    if (!sw->reporter) {
        return 0;
    }
    perf_first_call_header(stdout);
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        const first_call_t *f = &sw->first[op];
        if (!f->measured) {
            continue;
        }
        double slowest[2];
        for (int i = 0; i < 2; i++) {
            slowest[i] =
                perf_combine_times(all + 2 * op + i, sw->npes, PERF_NUM_OPS * 2, PERF_AVERAGE_MAX);
        }
        bool barrier = op == PERF_OP_BARRIER;
        const char *type = barrier ? "none" : symcoll_datatype_name(f->call.type);
        perf_first_call_row(stdout, perf_op_info((perf_op_t)op)->name, f->bytes, type, slowest[0],
                            slowest[1]);
        for (int i = 0; i < 2 && sw->csv != NULL; i++) {
            perf_row_t row = {
                .op = perf_op_info((perf_op_t)op)->name,
                .mode = i == 0 ? "cold" : "warm-single",
                .bytes = f->bytes,
                .count = f->call.count,
                .type = type,
                .redop = perf_op_reduces(op) ? symcoll_op_name(f->call.redop) : "none",
                .root = op == PERF_OP_BROADCAST ? f->call.root : -1,
                .npes = sw->npes,
                .algorithm = "",
                .time_us = slowest[i],
                .wrong = -1,
                .nccl_us = -1,
                .nccl_sym_us = -1,
            };
            perf_csv_row(sw->csv, &row);
        }
    }
    return 0;
}

/* Bytes of dst: the largest size, or more where --skew has alltoallv's fullest PE receive
 * more than a share (its capacity at each size and selected type). */
static size_t dst_bytes_for(sweep_t *sw, const size_t *sizes, size_t n_sizes) {
    size_t bytes = sw->buffer_bytes;
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES && sw->args->skew > 0 && sw->counts.matrix; t++) {
        size_t elem = symcoll_datatype_size((symcoll_datatype_t)t);
        for (size_t s = 0; s < n_sizes && sw->args->types[t]; s++) {
            size_t count = perf_op_count(PERF_OP_ALLTOALLV, sizes[s], elem, sw->npes);
            perf_counts_draw(&sw->counts, count, sw->args->skew, PERF_COUNTS_SEED);
            bytes = sw->counts.capacity * elem > bytes ? sw->counts.capacity * elem : bytes;
        }
    }
    return bytes;
}

/* failed_before: this PE's own failure before setup (the baseline), agreed on with setup's
 * local steps. */
static int setup(sweep_t *sw, int failed_before, const size_t *sizes, size_t n_sizes,
                 char *temp_csv, size_t temp_len) {
    const perf_args_t *a = sw->args;
    PERF_SYMCOLL(symcoll_gpu_sharing(&sw->sharing));
    if (perf_nccl_columns(a->compare_nccl, &sw->nccl) != 0) {
        return -1;
    }
    PERF_CUDA(cudaStreamCreateWithFlags(&sw->stream, cudaStreamNonBlocking));
    if (a->ops[PERF_OP_ALLTOALLV] && perf_counts_init(&sw->counts, sw->npes) != 0) {
        return -1;
    }
    sw->buffer_bytes = perf_buffer_bytes(sizes, n_sizes);
    sw->dst_bytes = dst_bytes_for(sw, sizes, n_sizes);
    sw->src = symcoll_malloc(sw->buffer_bytes);
    sw->dst = sw->src ? symcoll_malloc(sw->dst_bytes) : NULL;
    if (sw->dst == NULL) {
        return perf_fail("symcoll_malloc(%zu): %s%s", sw->src ? sw->dst_bytes : sw->buffer_bytes,
                         symcoll_last_error(),
                         sw->src && sw->dst_bytes > sw->buffer_bytes
                             ? " (--skew: the fullest PE receives more than -e bytes; raise "
                               "SYMCOLL_SYMMETRIC_SIZE)"
                             : "");
    }
    if (a->check) {
        PERF_CUDA(cudaMallocHost(&sw->host_src, sw->buffer_bytes));
        PERF_CUDA(cudaMallocHost(&sw->host_dst, sw->dst_bytes));
    }
    if (measure_first_calls(sw, n_sizes > 0 ? sizes[0] : 0) != 0) {
        return -1;
    }
    if (perf_exchange_init(&sw->ex, sw->team, sw->stream) != 0 ||
        perf_bench_init(&sw->bench, a, sw->team, sw->stream) != 0 ||
        (sw->nccl == PERF_NCCL_ON && perf_nccl_init(&sw->nccl_comm, &sw->ex, sw->dst_bytes) != 0)) {
        return -1;
    }
    perf_job_topology_t topo;
    if (perf_job_topology(&sw->ex, &topo) != 0) {
        perf_job_topology_free(&topo);
        return -1;
    }
    int rc = failed_before;
    if (rc == 0 && sw->reporter) {
        rc = open_outputs(sw, temp_csv, temp_len);
    }
    if (rc == 0 && sw->reporter) {
        rc = perf_print_machine(stdout, a, sw->npes, &topo, &sw->sharing);
    }
    perf_job_topology_free(&topo);
    /* These steps are each PE's own: one that failed (a CSV path the reporter cannot create)
     * fails the sweep on every PE instead of leaving the others in the next exchange. */
    return perf_exchange_agree(&sw->ex, rc);
}

/* 0, or -1 after reporting a failed release. */
/* Releases what setup made. After a failure, which may be this PE's alone, the symmetric
 * buffers stay for symcoll_finalize: freeing them is collective, and the other PEs may be
 * elsewhere. */
static int teardown(sweep_t *sw, bool failed) {
    int rc = 0;
    if (sw->csv != NULL && fclose(sw->csv) != 0) {
        rc = perf_fail("cannot write %s", sw->args->csv_path ? sw->args->csv_path
                                                             : "the CSV for --plot or --baseline");
    }
    if (sw->nccl == PERF_NCCL_ON) {
        rc |= perf_nccl_fini(&sw->nccl_comm);
    }
    rc |= perf_bench_fini(&sw->bench);
    rc |= perf_counts_fini(&sw->counts);
    rc |= perf_cuda_check(cudaFreeHost(sw->host_dst), "cudaFreeHost");
    rc |= perf_cuda_check(cudaFreeHost(sw->host_src), "cudaFreeHost");
    if (!failed) {
        rc |= perf_exchange_fini(&sw->ex);
        symcoll_free(sw->dst);
        symcoll_free(sw->src);
    }
    rc |= perf_cuda_check(cudaStreamDestroy(sw->stream), "cudaStreamDestroy");
    return rc;
}

/* Reads the --baseline CSV; 0, or -1 after printing why. */
static int load_baseline(const char *path, perf_points_t *points) {
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        return perf_fail("--baseline %s: cannot open it", path);
    }
    char err[512];
    int rc = perf_points_load(in, path, points, err, sizeof err);
    fclose(in);
    return rc != 0 ? perf_fail("--baseline %s", err) : 0;
}

/* The sweep's CSV against the baseline: 1 when a point regressed, 0 when none, -1 on error. */
static int compare_with_baseline(const perf_points_t *baseline, const char *sweep_csv) {
    perf_points_t now;
    if (load_baseline(sweep_csv, &now) != 0) {
        return -1;
    }
    perf_baseline_result_t r =
        perf_baseline_compare(baseline, &now, PERF_BASELINE_THRESHOLD, stdout);
    perf_points_free(&now);
    return r.regressions > 0 ? 1 : 0;
}

int perf_sweep(const perf_args_t *a) {
    sweep_t sw = {.args = a,
                  .team = a->team,
                  .npes = symcoll_team_n_pes(a->team),
                  .me = symcoll_team_my_pe(a->team),
                  .reporter = symcoll_my_pe() == 0};
    if (!perf_args_root_fits(a, sw.npes, sw.reporter)) {
        return 2;
    }
    size_t sizes[PERF_MAX_SIZES];
    size_t n_sizes = perf_size_list(a, sizes, PERF_MAX_SIZES);
    perf_points_t baseline = {NULL, 0};
    int loaded = symcoll_my_pe() == 0 && a->baseline_path != NULL
                     ? load_baseline(a->baseline_path, &baseline)
                     : 0;
    char temp_csv[4096] = "";
    if (setup(&sw, loaded, sizes, n_sizes, temp_csv, sizeof temp_csv) != 0 ||
        report_first_calls(&sw) != 0) {
        perf_points_free(&baseline);
        return -1;
    }
    /* A mode that failed still releases what setup made. */
    bool failed =
        ((a->modes & PERF_MODE_STREAM) && run_mode(&sw, "stream", 0, sizes, n_sizes) != 0) ||
        ((a->modes & PERF_MODE_GRAPH) &&
         run_mode(&sw, "graph", a->graph_calls, sizes, n_sizes) != 0);
    int rc = failed ? -1 : sw.my_wrong > 0 ? 1 : 0;
    if (teardown(&sw, failed) != 0 && rc == 0) {
        rc = 1;
    }
    if (!failed && sw.reporter && a->plot_path != NULL &&
        perf_plot(a->csv_path ? a->csv_path : temp_csv, a->plot_path) != 0) {
        rc = 1;
    }
    if (!failed && sw.reporter && a->baseline_path != NULL &&
        compare_with_baseline(&baseline, a->csv_path ? a->csv_path : temp_csv) != 0) {
        rc = 1;
    }
    perf_points_free(&baseline);
    if (temp_csv[0] != '\0') {
        remove(temp_csv);
    }
    return rc;
}
