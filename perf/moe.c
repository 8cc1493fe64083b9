#include "moe.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "fail.h"
#include "job_topology.h"
#include "moe_check.h"
#include "moe_nccl.h"
#include "report.h"
#include "stats.h"
#include "timing.h"

#define POISON_BYTE 0xa5
#define LIBRARY_ROOM ((size_t)64 << 20) /* the heap's room for the library's own state */

typedef struct {
    const perf_args_t *args;
    symcoll_team_t team;
    int npes, me; /* team numbering */
    bool reporter;
    cudaStream_t stream;
    perf_exchange_t ex;
    perf_bench_t bench;
    perf_nccl_columns_t nccl;
    perf_nccl_t nccl_comm; /* nccl ON only */
    perf_moe_nccl_t nccl_moe;
    perf_moe_routing_t routing;
    size_t dispatch_tokens;   /* the dispatch's dst_capacity in tokens, the same on every PE */
    size_t *counts;           /* device: send_counts, recv_counts, recv_offsets, one per expert */
    uint8_t *src, *dst, *out; /* symmetric: the tokens out, the experts' groups, the tokens back */
    uint8_t *host;            /* pinned, as large as the largest of them: the check's copies */
    uint64_t seed;            /* check round */
    long long my_wrong;
    FILE *csv;
} moe_run_t;

/* One hidden size's dispatch + combine. */
typedef struct {
    moe_run_t *m;
    perf_moe_case_t c;
    bool symmetric; /* NCCL only: on its symmetric windows */
} moe_call_t;

enum { RESULT_TIME, RESULT_NCCL, RESULT_NCCL_SYM, RESULT_WRONG, N_RESULTS };

static size_t experts_in_all(const moe_run_t *m) {
    return (size_t)m->npes * (size_t)m->args->experts;
}

static size_t dispatch_capacity(const moe_call_t *k) {
    return k->m->dispatch_tokens * k->c.hidden;
}

static size_t major_align(const moe_call_t *k) {
    return k->c.align * k->c.hidden;
}

static int enqueue_symcoll(void *ctx, cudaStream_t stream) {
    const moe_call_t *k = ctx;
    moe_run_t *m = k->m;
    size_t *counts = m->counts, segments = experts_in_all(m);
    int experts = m->args->experts;
    PERF_SYMCOLL(symcoll_moe_dispatch_on_stream(m->team, m->dst, dispatch_capacity(k), m->src,
                                                counts, counts + segments, counts + 2 * segments,
                                                experts, major_align(k), SYMCOLL_UINT8, stream));
    PERF_SYMCOLL(symcoll_moe_combine_on_stream(m->team, m->out, perf_moe_src_bytes(&k->c), m->dst,
                                               counts, experts, major_align(k), SYMCOLL_UINT8,
                                               stream));
    return 0;
}

static int enqueue_nccl(void *ctx, cudaStream_t stream) {
    const moe_call_t *k = ctx;
    return perf_moe_nccl_enqueue(&k->m->nccl_comm, &k->m->nccl_moe, k->m->counts, major_align(k),
                                 k->symmetric, stream);
}

/* This PE's send_counts for hidden bytes per token, before anything of the size is timed. */
static int upload_counts(moe_run_t *m, size_t hidden) {
    size_t row[PERF_MOE_MAX_EXPERTS];
    for (size_t g = 0; g < experts_in_all(m); g++) {
        row[g] = perf_moe_sent(&m->routing, m->me, (int)g) * hidden;
    }
    /* From pageable memory the copy has read the row when it returns. */
    PERF_CUDA(cudaMemcpyAsync(m->counts, row, sizeof *row * experts_in_all(m),
                              cudaMemcpyHostToDevice, m->stream));
    return 0;
}

/* Fresh tokens in src; the dispatch's dst, the combine's dst and the received counts poisoned. */
static int stage(moe_run_t *m, moe_call_t *k) {
    k->c.seed = ++m->seed;
    size_t bytes = perf_moe_src_bytes(&k->c), segments = experts_in_all(m);
    perf_moe_fill(&k->c, m->me, m->host);
    PERF_CUDA(cudaMemcpyAsync(m->src, m->host, bytes, cudaMemcpyHostToDevice, m->stream));
    PERF_CUDA(cudaMemsetAsync(m->dst, POISON_BYTE, dispatch_capacity(k), m->stream));
    PERF_CUDA(cudaMemsetAsync(m->out, POISON_BYTE, bytes, m->stream));
    PERF_CUDA(
        cudaMemsetAsync(m->counts + segments, 0xff, sizeof *m->counts * 2 * segments, m->stream));
    PERF_CUDA(cudaStreamSynchronize(m->stream)); /* host is refilled before the next copy */
    return 0;
}

/* The device's bytes into the host buffer, waited for. */
static int fetch(moe_run_t *m, const void *device, size_t bytes) {
    PERF_CUDA(cudaMemcpyAsync(m->host, device, bytes, cudaMemcpyDeviceToHost, m->stream));
    PERF_CUDA(cudaStreamSynchronize(m->stream));
    return 0;
}

/* After the timed calls: the dispatch's dst, counts and offsets, then the combine's dst. */
static int check(moe_run_t *m, const moe_call_t *k, double *wrong) {
    size_t segments = experts_in_all(m), n = 0;
    if (fetch(m, m->dst, dispatch_capacity(k)) != 0) {
        return -1;
    }
    n += perf_moe_dispatch_wrong(&k->c, m->me, m->host, dispatch_capacity(k), POISON_BYTE);
    if (fetch(m, m->counts + segments, sizeof *m->counts * 2 * segments) != 0) {
        return -1;
    }
    const size_t *received = (const size_t *)m->host;
    n += perf_moe_counts_wrong(&k->c, m->me, received, received + segments);
    if (fetch(m, m->out, perf_moe_src_bytes(&k->c)) != 0) {
        return -1;
    }
    n += perf_moe_combine_wrong(&k->c, m->me, m->host);
    m->my_wrong += (long long)n;
    *wrong = (double)n;
    return 0;
}

/* Median microseconds of one dispatch + combine through enqueue (graph_calls 0: stream). */
static int measure(moe_run_t *m, int graph_calls, perf_enqueue_fn enqueue, moe_call_t *k,
                   double *us) {
    if (perf_bench_begin(&m->bench, graph_calls, enqueue, k) != 0) {
        return -1;
    }
    int rc = perf_bench_measure(&m->bench, us);
    perf_bench_end(&m->bench);
    return rc;
}

/* Tuning's choice for the dispatch, then the combine's where it differs (each call picks by
 * its own dst_capacity, as alltoallv). */
static int choose(const moe_call_t *k, char *algorithm, size_t len, symcoll_explanation_t *out) {
    symcoll_explain_query_t q = {.version = SYMCOLL_EXPLAIN_VERSION,
                                 .collective = SYMCOLL_COLL_ALLTOALLV,
                                 .count = dispatch_capacity(k),
                                 .type = SYMCOLL_UINT8,
                                 .team = k->m->team};
    symcoll_explanation_t combine;
    PERF_SYMCOLL(symcoll_explain(&q, out));
    q.count = perf_moe_src_bytes(&k->c);
    PERF_SYMCOLL(symcoll_explain(&q, &combine));
    bool same = strcmp(out->algorithm, combine.algorithm) == 0;
    snprintf(algorithm, len, "%s%s%s", out->algorithm, same ? "" : "/",
             same ? "" : combine.algorithm);
    return 0;
}

/* Every PE's results to the reporter, which prints the row. */
static int report(moe_run_t *m, const moe_call_t *k, const char *mode, bool nccl_na,
                  const double mine[N_RESULTS]) {
    double all[SYMCOLL_MAX_PES * N_RESULTS];
    char algorithm[80];
    symcoll_explanation_t choice;
    if (perf_exchange_gather(&m->ex, mine, sizeof(double) * N_RESULTS, all) != 0 ||
        choose(k, algorithm, sizeof algorithm, &choice) != 0) {
        return -1;
    }
    if (!m->reporter) {
        return 0;
    }
    perf_average_t average = m->args->average;
    perf_row_t row = {.op = "moe",
                      .mode = mode,
                      .bytes = perf_moe_src_bytes(&k->c),
                      .count = k->c.hidden,
                      .type = symcoll_datatype_name(SYMCOLL_UINT8),
                      .redop = "none",
                      .root = -1,
                      .npes = m->npes,
                      .algorithm = algorithm,
                      .blocks = choice.blocks,
                      .threads = choice.threads,
                      .time_us = perf_combine_times(all + RESULT_TIME, m->npes, N_RESULTS, average),
                      .has_bandwidth = true,
                      .nccl_us = perf_combine_times(all + RESULT_NCCL, m->npes, N_RESULTS, average),
                      .nccl_sym_us =
                          perf_combine_times(all + RESULT_NCCL_SYM, m->npes, N_RESULTS, average),
                      .nccl_na = nccl_na};
    /* Each PE sends bytes in the dispatch and as much back in the combine. */
    row.algbw_gbps = perf_algbw_gbps(2 * row.bytes, row.time_us);
    row.busbw_gbps = row.algbw_gbps * (m->npes - 1) / m->npes;
    for (int p = 0; p < m->npes && row.wrong >= 0; p++) {
        double wrong = all[p * N_RESULTS + RESULT_WRONG];
        row.wrong = wrong < 0 ? -1 : row.wrong + (long long)wrong;
    }
    perf_table_row(stdout, &row, m->nccl);
    if (m->csv != NULL) {
        perf_csv_row(m->csv, &row);
    }
    return 0;
}

static int run_size(moe_run_t *m, const char *mode, int graph_calls, size_t hidden) {
    moe_call_t k = {
        .m = m, .c = {.routing = &m->routing, .hidden = hidden, .align = (size_t)m->args->align}};
    double mine[N_RESULTS] = {0, -1, -1, -1};
    bool checked = m->args->check;
    if (upload_counts(m, hidden) != 0 || (checked && stage(m, &k) != 0) ||
        measure(m, graph_calls, enqueue_symcoll, &k, &mine[RESULT_TIME]) != 0 ||
        (checked && check(m, &k, &mine[RESULT_WRONG]) != 0)) {
        return -1;
    }
    bool nccl_na = m->nccl == PERF_NCCL_ON && graph_calls > 0; /* the host sync */
    if (m->nccl == PERF_NCCL_ON && !nccl_na) {
        moe_call_t symmetric = k;
        symmetric.symmetric = true;
        if (measure(m, 0, enqueue_nccl, &k, &mine[RESULT_NCCL]) != 0 ||
            measure(m, 0, enqueue_nccl, &symmetric, &mine[RESULT_NCCL_SYM]) != 0) {
            return -1;
        }
    }
    return report(m, &k, mode, nccl_na, mine);
}

static void print_header(const moe_run_t *m) {
    const perf_args_t *a = m->args;
    printf("# moe: dispatch + combine on %d PEs x %d experts (%zu in all), %d tokens per PE, "
           "top-%d, align %d tokens, routing ",
           m->npes, a->experts, experts_in_all(m), a->tokens, a->topk, a->align);
    if (a->skew > 0) {
        printf("Zipf %g over the experts (the same popular ones on every PE)", a->skew);
    } else {
        printf("uniform");
    }
    printf(" (seed %#llx)\n"
           "# dst_capacity: dispatch %zu tokens (the fullest PE's aligned groups; %zu sent per "
           "PE), combine %zu tokens\n"
           "# size: bytes each PE sends in the dispatch and gets back in the combine (tokens x "
           "top-k x H); count: H, bytes per token (uint8); time: one dispatch + one combine;\n"
           "# algbw: 2 x size / time; busbw: algbw x (n-1)/n, alltoall's convention (the share "
           "of tokens bound for other PEs under uniform routing)\n"
           "# algorithm: tuning's choice for the dispatch's dst_capacity, /the combine's where "
           "it differs\n",
           (unsigned long long)PERF_MOE_SEED, m->dispatch_tokens,
           (size_t)a->tokens * (size_t)a->topk, (size_t)a->tokens * (size_t)a->topk);
    if (m->nccl != PERF_NCCL_OFF) {
        printf("# nccl: ncclAlltoAll of the counts, a copy to the host and a stream sync, then "
               "ncclSend/ncclRecv per (PE, expert) in a group, and back in a second group\n");
    }
}

static int run_mode(moe_run_t *m, const char *mode, int graph_calls, const size_t *sizes,
                    size_t n_sizes) {
    if (m->reporter) {
        perf_table_header(stdout, mode, m->nccl);
        if (m->nccl == PERF_NCCL_ON && graph_calls > 0) {
            perf_nccl_uncapturable_line(stdout, "moe");
        }
    }
    for (size_t s = 0; s < n_sizes; s++) {
        if (run_size(m, mode, graph_calls, sizes[s]) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Whether the team holds the experts and top-k fits them; the reporter says why not. */
static bool shape_fits(const moe_run_t *m) {
    const perf_args_t *a = m->args;
    size_t experts = experts_in_all(m);
    const char *why = experts > PERF_MOE_MAX_EXPERTS ? "more experts than a team may hold (512)"
                      : (size_t)a->topk > experts    ? "--topk larger than the team's experts"
                                                     : NULL;
    if (why != NULL && m->reporter) {
        fprintf(stderr,
                "symcoll-perf: --op moe: %d PEs x --experts %d = %zu experts, --topk %d: %s\n",
                m->npes, a->experts, experts, a->topk, why);
    }
    return why == NULL;
}

/* Symmetric buffers for the largest size; the routing's capacity can ask for more than the
 * default heap. */
static int allocate(moe_run_t *m, size_t max_hidden) {
    size_t out_bytes = (size_t)m->args->tokens * (size_t)m->args->topk * max_hidden;
    size_t dst_bytes = m->dispatch_tokens * max_hidden;
    m->src = symcoll_malloc(out_bytes);
    m->dst = m->src ? symcoll_malloc(dst_bytes) : NULL;
    m->out = m->dst ? symcoll_malloc(out_bytes) : NULL;
    if (m->out == NULL) {
        return perf_fail("--op moe: symcoll_malloc: %s (buffers of %zu, %zu and %zu bytes; raise "
                         "SYMCOLL_SYMMETRIC_SIZE)",
                         symcoll_last_error(), out_bytes, dst_bytes, out_bytes);
    }
    PERF_CUDA(cudaMallocHost((void **)&m->host, dst_bytes > out_bytes ? dst_bytes : out_bytes));
    PERF_CUDA(cudaMalloc((void **)&m->counts, sizeof *m->counts * 3 * experts_in_all(m)));
    bool nccl = m->nccl == PERF_NCCL_ON;
    if (nccl && (perf_nccl_init(&m->nccl_comm, &m->ex,
                                dst_bytes > out_bytes ? dst_bytes : out_bytes) != 0 ||
                 perf_moe_nccl_init(&m->nccl_moe, m->npes, m->args->experts) != 0)) {
        return -1;
    }
    return 0;
}

static int setup(moe_run_t *m, size_t max_hidden) {
    const perf_args_t *a = m->args;
    m->routing = (perf_moe_routing_t){.npes = m->npes,
                                      .experts = a->experts,
                                      .topk = a->topk,
                                      .tokens = (size_t)a->tokens,
                                      .skew = a->skew};
    m->routing.sent = malloc(sizeof *m->routing.sent * (size_t)m->npes * experts_in_all(m));
    if (m->routing.sent == NULL) {
        return perf_fail("--op moe: out of host memory");
    }
    perf_moe_route(&m->routing, PERF_MOE_SEED);
    m->dispatch_tokens = perf_moe_dispatch_capacity(&m->routing, (size_t)a->align);
    PERF_CUDA(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking));
    if (perf_nccl_columns(a->compare_nccl, &m->nccl) != 0 ||
        perf_exchange_init(&m->ex, m->team, m->stream) != 0 ||
        perf_bench_init(&m->bench, a, m->team, m->stream) != 0 || allocate(m, max_hidden) != 0) {
        return -1;
    }
    int rc = 0;
    if (m->reporter && a->csv_path != NULL) {
        m->csv = fopen(a->csv_path, "w");
        rc = m->csv ? 0 : perf_fail("--csv %s: cannot create it", a->csv_path);
        if (m->csv) {
            perf_csv_header(m->csv);
        }
    }
    return perf_exchange_agree(&m->ex, rc);
}

/* 0, or -1 after reporting a failed release. After a failure the symmetric buffers stay for
 * symcoll_finalize: freeing them is collective, and the other PEs may be elsewhere. */
static int teardown(moe_run_t *m, bool failed) {
    int rc = 0;
    if (m->csv != NULL && fclose(m->csv) != 0) {
        rc = perf_fail("cannot write %s", m->args->csv_path);
    }
    if (m->nccl == PERF_NCCL_ON && m->nccl_comm.comm != NULL) {
        rc |= perf_nccl_fini(&m->nccl_comm);
    }
    rc |= perf_moe_nccl_fini(&m->nccl_moe);
    rc |= perf_bench_fini(&m->bench);
    rc |= perf_cuda_check(cudaFree(m->counts), "cudaFree");
    rc |= perf_cuda_check(cudaFreeHost(m->host), "cudaFreeHost");
    if (!failed) {
        rc |= perf_exchange_fini(&m->ex);
        symcoll_free(m->out);
        symcoll_free(m->dst);
        symcoll_free(m->src);
    }
    if (m->stream != NULL) {
        rc |= perf_cuda_check(cudaStreamDestroy(m->stream), "cudaStreamDestroy");
    }
    free(m->routing.sent);
    return rc;
}

int perf_moe(const perf_args_t *args) {
    moe_run_t m = {.args = args,
                   .team = args->team,
                   .npes = symcoll_team_n_pes(args->team),
                   .me = symcoll_team_my_pe(args->team),
                   .reporter = symcoll_my_pe() == 0};
    if (!shape_fits(&m)) {
        return 2;
    }
    size_t sizes[PERF_MAX_SIZES];
    size_t n_sizes = perf_size_list(args, sizes, PERF_MAX_SIZES);
    bool failed = setup(&m, sizes[n_sizes - 1]) != 0;
    if (!failed && m.reporter) {
        print_header(&m);
    }
    failed = failed ||
             ((args->modes & PERF_MODE_STREAM) && run_mode(&m, "stream", 0, sizes, n_sizes) != 0) ||
             ((args->modes & PERF_MODE_GRAPH) &&
              run_mode(&m, "graph", args->graph_calls, sizes, n_sizes) != 0);
    int rc = teardown(&m, failed);
    return failed ? -1 : rc != 0 || m.my_wrong > 0 ? 1 : 0;
}

size_t perf_moe_heap_bytes(const perf_args_t *args) {
    size_t out = (size_t)args->tokens * (size_t)args->topk * args->max_bytes;
    size_t padding = (size_t)args->experts * (size_t)args->align * args->max_bytes;
    return 2 * out + (2 * out + padding) + LIBRARY_ROOM;
}
