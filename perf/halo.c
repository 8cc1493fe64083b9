#include "halo.h"

#include <nccl.h>
#include <stdio.h>
#include <string.h>

#include "exchange.h"
#include "fail.h"
#include "halo_pack.h"
#include "job_topology.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "timing.h"

/* Interior layers along the split dimension. */
#define DEPTH 8

typedef enum { SHAPE_ROWS, SHAPE_COLUMNS, SHAPE_3D, N_SHAPES } shape_t;
static const char *const shape_names[N_SHAPES] = {"halo_rows", "halo_columns", "halo_3d"};

/* A float field split along one periodic dimension, and its faces: rows of row_bytes, pitch
 * bytes apart; layer l (0: low halo, 1 .. DEPTH: interior, DEPTH + 1: high halo) starts at
 * l * layer bytes. */
typedef struct {
    symcoll_halo_desc_t desc;
    size_t elems, row_bytes, rows, pitch, layer, field_bytes;
} layout_t;

static void layout_of(shape_t shape, size_t elems, int npes, layout_t *l) {
    memset(l, 0, sizeof *l);
    symcoll_halo_desc_t *d = &l->desc;
    symcoll_halo_desc_default(d);
    d->type = SYMCOLL_FLOAT32;
    l->elems = elems;
    if (shape == SHAPE_ROWS) { /* contiguous rows */
        d->ndims = 2;
        d->interior[0] = elems, d->interior[1] = DEPTH;
        d->width[1] = 1, d->pe_grid[0] = 1, d->pe_grid[1] = npes, d->periodic[1] = 1;
        l->row_bytes = elems * 4, l->rows = 1, l->pitch = l->row_bytes, l->layer = elems * 4;
    } else if (shape == SHAPE_COLUMNS) { /* one float per row */
        d->ndims = 2;
        d->interior[0] = DEPTH, d->interior[1] = elems;
        d->width[0] = 1, d->pe_grid[0] = npes, d->pe_grid[1] = 1, d->periodic[0] = 1;
        l->row_bytes = 4, l->rows = elems, l->pitch = (DEPTH + 2) * 4, l->layer = 4;
    } else { /* xz faces: rows of x, strided by the planes */
        size_t nz = 1;
        while (nz * nz * 4 <= elems)
            nz *= 2;
        size_t nx = elems / nz;
        d->ndims = 3;
        d->interior[0] = nx, d->interior[1] = DEPTH, d->interior[2] = nz;
        d->width[1] = 1, d->pe_grid[0] = 1, d->pe_grid[1] = npes, d->pe_grid[2] = 1;
        d->periodic[1] = 1;
        l->elems = nx * nz;
        l->row_bytes = nx * 4, l->rows = nz, l->pitch = nx * (DEPTH + 2) * 4, l->layer = nx * 4;
    }
    l->field_bytes = shape == SHAPE_ROWS ? (DEPTH + 2) * l->layer : l->rows * l->pitch;
}

typedef struct {
    const layout_t *l;
    symcoll_halo_t plan;
    char *field;             /* symmetric */
    char *peer_lo, *peer_hi; /* the neighbours' copies of field */
    int lo, hi;              /* the neighbours' PEs */
    ncclComm_t comm;
    char *pack; /* 4 faces: sent low, sent high, received from high, from low */
} halo_case_t;

static int enqueue_symcoll(void *ctx, cudaStream_t stream) {
    halo_case_t *c = ctx;
    symcoll_status_t st = symcoll_halo_exchange_on_stream(c->plan, c->field, stream);
    return st == SYMCOLL_SUCCESS ? 0 : perf_fail("halo exchange: %s", symcoll_last_error());
}

/* Our first interior layer into the low neighbour's high halo, our last into the high
 * neighbour's low halo, then a barrier so that each PE knows its halos are complete. */
static int enqueue_copies(void *ctx, cudaStream_t stream) {
    halo_case_t *c = ctx;
    const layout_t *l = c->l;
    PERF_CUDA(cudaMemcpy2DAsync(c->peer_lo + (DEPTH + 1) * l->layer, l->pitch, c->field + l->layer,
                                l->pitch, l->row_bytes, l->rows, cudaMemcpyDeviceToDevice, stream));
    PERF_CUDA(cudaMemcpy2DAsync(c->peer_hi, l->pitch, c->field + DEPTH * l->layer, l->pitch,
                                l->row_bytes, l->rows, cudaMemcpyDeviceToDevice, stream));
    symcoll_status_t st = symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream);
    return st == SYMCOLL_SUCCESS ? 0 : perf_fail("barrier: %s", symcoll_last_error());
}

static int nccl_ok(ncclResult_t rc, const char *what) {
    return rc == ncclSuccess ? 0 : perf_fail("%s: %s", what, ncclGetErrorString(rc));
}

/* What most hand-written exchanges do: faces packed when strided, grouped send/recv, and the
 * received faces unpacked into the halos. */
static int enqueue_nccl(void *ctx, cudaStream_t stream) {
    halo_case_t *c = ctx;
    const layout_t *l = c->l;
    size_t face = l->row_bytes * l->rows;
    int packed = l->rows > 1;
    char *send_lo = c->field + l->layer, *send_hi = c->field + DEPTH * l->layer;
    char *recv_hi = c->field + (DEPTH + 1) * l->layer, *recv_lo = c->field;
    if (packed) {
        PERF_CUDA(perf_halo_copy_rows(c->pack, l->row_bytes, send_lo, l->pitch, l->row_bytes,
                                      l->rows, stream));
        PERF_CUDA(perf_halo_copy_rows(c->pack + face, l->row_bytes, send_hi, l->pitch, l->row_bytes,
                                      l->rows, stream));
        send_lo = c->pack, send_hi = c->pack + face;
        recv_hi = c->pack + 2 * face, recv_lo = c->pack + 3 * face;
    }
    size_t n = face / 4;
    if (nccl_ok(ncclGroupStart(), "ncclGroupStart") || //
        nccl_ok(ncclSend(send_lo, n, ncclFloat, c->lo, c->comm, stream), "ncclSend") ||
        nccl_ok(ncclRecv(recv_hi, n, ncclFloat, c->hi, c->comm, stream), "ncclRecv") ||
        nccl_ok(ncclSend(send_hi, n, ncclFloat, c->hi, c->comm, stream), "ncclSend") ||
        nccl_ok(ncclRecv(recv_lo, n, ncclFloat, c->lo, c->comm, stream), "ncclRecv") ||
        nccl_ok(ncclGroupEnd(), "ncclGroupEnd"))
        return -1;
    if (packed) {
        PERF_CUDA(perf_halo_copy_rows(c->field + (DEPTH + 1) * l->layer, l->pitch, recv_hi,
                                      l->row_bytes, l->row_bytes, l->rows, stream));
        PERF_CUDA(perf_halo_copy_rows(c->field, l->pitch, recv_lo, l->row_bytes, l->row_bytes,
                                      l->rows, stream));
    }
    return 0;
}

/* Median microseconds of one call of enqueue in this mode (graph_calls 0: stream). */
static int measure(perf_bench_t *bench, int graph_calls, perf_enqueue_fn enqueue, void *ctx,
                   double *us) {
    if (perf_bench_begin(bench, graph_calls, enqueue, ctx) != 0)
        return -1;
    int rc = perf_bench_measure(bench, us);
    perf_bench_end(bench);
    return rc;
}

typedef struct {
    const perf_args_t *args;
    perf_bench_t bench;
    perf_exchange_t ex;
    perf_nccl_columns_t nccl;
    ncclComm_t comm; /* nccl ON only */
    FILE *csv;
    int me, npes;
} halo_sweep_t;

static void report(halo_sweep_t *s, shape_t shape, const char *mode, const layout_t *l,
                   const double us[3]) {
    if (s->me != 0)
        return;
    size_t bytes = 2 * l->row_bytes * l->rows; /* sent by each PE per exchange */
    double gbps[3];
    for (int i = 0; i < 3; i++)
        gbps[i] = us[i] > 0 ? bytes / (us[i] * 1e3) : 0;
    printf("%-13s %-6s %12zu %12zu %10.2f %8.1f", shape_names[shape], mode, l->row_bytes * l->rows,
           bytes, us[0], gbps[0]);
    perf_nccl_number(stdout, s->nccl, 10, 2, us[1] >= 0, us[1]);
    perf_nccl_number(stdout, s->nccl, 8, 1, us[1] >= 0, gbps[1]);
    printf(" %10.2f %8.1f\n", us[2], gbps[2]);
    if (s->csv) {
        perf_row_t row = {.op = shape_names[shape],
                          .mode = mode,
                          .bytes = bytes,
                          .count = l->elems,
                          .type = "float32",
                          .redop = "none",
                          .root = -1,
                          .npes = s->npes,
                          .algorithm = "fused",
                          .time_us = us[0],
                          .has_bandwidth = true,
                          .algbw_gbps = gbps[0],
                          .busbw_gbps = gbps[0],
                          .wrong = -1,
                          .nccl_us = us[1],
                          .nccl_sym_us = us[2]};
        perf_csv_row(s->csv, &row);
    }
}

/* Every PE's three times, combined as -a asks (the slowest PE by default), as the collectives
 * sweep reports them: PE 0's own times would hide a slower PE. */
static int combine_over_pes(halo_sweep_t *s, double us[3]) {
    double all[SYMCOLL_MAX_PES][3];
    if (perf_exchange_gather(&s->ex, us, sizeof all[0], all) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        us[i] = perf_combine_times(&all[0][i], s->npes, 3, s->args->average);
    return 0;
}

static int run_case(halo_sweep_t *s, shape_t shape, size_t face_bytes) {
    layout_t l;
    layout_of(shape, face_bytes / 4, s->npes, &l);
    halo_case_t c = {.l = &l, .comm = s->comm};
    symcoll_status_t st = symcoll_halo_create(SYMCOLL_TEAM_WORLD, &l.desc, &c.plan);
    if (st != SYMCOLL_SUCCESS)
        return perf_fail("symcoll_halo_create: %s", symcoll_last_error());
    c.field = symcoll_calloc(1, l.field_bytes);
    if (c.field == NULL)
        return perf_fail("symcoll_calloc of %zu bytes: %s", l.field_bytes, symcoll_last_error());
    int dim = shape == SHAPE_COLUMNS ? 0 : 1;
    c.lo = symcoll_halo_neighbor(c.plan, dim, -1);
    c.hi = symcoll_halo_neighbor(c.plan, dim, 1);
    c.peer_lo = symcoll_ptr(c.field, c.lo);
    c.peer_hi = symcoll_ptr(c.field, c.hi);
    int rc = c.peer_lo && c.peer_hi ? 0 : perf_fail("symcoll_ptr: %s", symcoll_last_error());
    if (rc == 0 && c.comm)
        rc = perf_cuda_check(cudaMalloc((void **)&c.pack, 4 * l.row_bytes * l.rows), "cudaMalloc");
    const perf_args_t *a = s->args;
    for (int mode = PERF_MODE_STREAM; mode <= PERF_MODE_GRAPH && rc == 0; mode <<= 1) {
        if (!(a->modes & mode))
            continue;
        int graph_calls = mode == PERF_MODE_GRAPH ? a->graph_calls : 0;
        double us[3] = {0, -1, 0};
        rc = measure(&s->bench, graph_calls, enqueue_symcoll, &c, &us[0]);
        if (rc == 0 && c.comm)
            rc = measure(&s->bench, graph_calls, enqueue_nccl, &c, &us[1]);
        if (rc == 0)
            rc = measure(&s->bench, graph_calls, enqueue_copies, &c, &us[2]);
        if (rc == 0)
            rc = combine_over_pes(s, us);
        if (rc == 0)
            report(s, shape, mode == PERF_MODE_GRAPH ? "graph" : "stream", &l, us);
    }
    if (perf_cuda_check(cudaFree(c.pack), "cudaFree") != 0 && rc == 0)
        rc = -1;
    symcoll_free(c.field);
    if (symcoll_halo_destroy(c.plan) != SYMCOLL_SUCCESS && rc == 0)
        rc = perf_fail("symcoll_halo_destroy: %s", symcoll_last_error());
    return rc;
}

static int make_comm(halo_sweep_t *s) {
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (s->me == 0 && nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId"))
        return -1;
    if (perf_exchange_broadcast(&s->ex, &id, sizeof id) != 0)
        return -1;
    return nccl_ok(ncclCommInitRank(&s->comm, s->npes, id, s->me), "ncclCommInitRank");
}

int perf_halo(const perf_args_t *args) {
    halo_sweep_t s = {.args = args, .me = symcoll_my_pe(), .npes = symcoll_n_pes()};
    cudaStream_t stream;
    PERF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    char temp_csv[4096] = "";
    int rc = perf_exchange_init(&s.ex, SYMCOLL_TEAM_WORLD, stream) != 0 ||
                     perf_bench_init(&s.bench, args, SYMCOLL_TEAM_WORLD, stream) != 0 ||
                     perf_nccl_columns(args->compare_nccl, &s.nccl) != 0 ||
                     (s.nccl == PERF_NCCL_ON && make_comm(&s) != 0)
                 ? -1
                 : 0;
    int opened = 0;
    if (rc == 0 && s.me == 0 && (args->csv_path || args->plot_path)) {
        s.csv = args->csv_path ? fopen(args->csv_path, "w")
                               : perf_plot_temp_csv(temp_csv, sizeof temp_csv);
        opened = s.csv ? 0 : perf_fail("cannot create the CSV file");
        if (s.csv)
            perf_csv_header(s.csv);
    }
    if (rc == 0)
        rc = perf_exchange_agree(&s.ex, opened);
    if (rc == 0 && s.me == 0 && s.nccl == PERF_NCCL_NA)
        perf_nccl_na_line(stdout);
    if (rc == 0 && s.me == 0)
        printf("# halo exchange of 2 float faces per PE (%d PEs): face bytes, bytes sent per PE, "
               "time in us and GB/s of symcoll, NCCL send/recv, cudaMemcpy2DAsync + barrier\n"
               "%-13s %-6s %12s %12s %10s %8s %10s %8s %10s %8s\n",
               s.npes, "# shape", "mode", "face", "bytes", "symcoll", "GB/s", "nccl", "GB/s",
               "copies", "GB/s");
    size_t sizes[PERF_MAX_SIZES];
    size_t n = perf_size_list(args, sizes, PERF_MAX_SIZES);
    for (int shape = 0; shape < N_SHAPES && rc == 0; shape++)
        for (size_t i = 0; i < n && rc == 0; i++)
            if (sizes[i] >= 16)
                rc = run_case(&s, (shape_t)shape, sizes[i]);
    if (s.csv) {
        if (fclose(s.csv) != 0 && rc == 0)
            rc = perf_fail("cannot write %s", args->csv_path ? args->csv_path : temp_csv);
        if (rc == 0 && args->plot_path &&
            perf_plot(args->csv_path ? args->csv_path : temp_csv, args->plot_path) != 0)
            rc = -1;
    }
    if (temp_csv[0] != '\0')
        remove(temp_csv);
    if (s.comm && ncclCommDestroy(s.comm) != ncclSuccess)
        rc = perf_fail("ncclCommDestroy failed");
    if ((perf_bench_fini(&s.bench) | perf_exchange_fini(&s.ex) |
         perf_cuda_check(cudaStreamDestroy(stream), "cudaStreamDestroy")) != 0)
        rc = rc != 0 ? rc : -1;
    return rc;
}
