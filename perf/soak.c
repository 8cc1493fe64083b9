/* The soak: two lanes, each a team (WORLD and a copy of it) with its own stream, run random
 * operations side by side: every collective with random sizes, types, ops and roots (alltoallv
 * with uniform counts), some captured into a CUDA graph and replayed, put_signal to the next
 * PE, and halo exchanges. Every PE draws the same sequence, so the PEs issue the same calls in
 * the same order. Each round checks every result against the CPU reference. A fixed probe
 * (8-byte reduces, the fastest of a few timings) is timed at the start and at each of up to ten
 * windows of the run; the run fails if the median of the later half of the probes exceeds that
 * of the earlier half by more than PERF_SOAK_SLOWDOWN_LIMIT, if device memory or file
 * descriptors leaked, or on any wrong element. */
#include "soak.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alltoallv_device.h"
#include "call.h"
#include "symcoll_halo.h"
#include "check.h"
#include "exchange.h"
#include "fail.h"
#include "soak_verdict.h"

#define SOAK_MAX_BYTES ((size_t)4 << 20) /* per buffer */
#define SOAK_POISON 0xa5
#define SOAK_PUT PERF_NUM_OPS        /* the lanes' operations besides the collectives */
#define SOAK_HALO (PERF_NUM_OPS + 1) /* a halo exchange of the lane's plan */
#define SOAK_HALO_X 37               /* the plan: rows of 37 uint32 split along y, periodic */
#define SOAK_HALO_Y 9
#define SOAK_HALO_WIDTH 2
#define SOAK_HALO_CELLS (SOAK_HALO_X * (SOAK_HALO_Y + 2 * SOAK_HALO_WIDTH))
#define SOAK_GRAPH_REPLAYS 3
#define SOAK_PROBE_CALLS 100
/* A single timing of PEs sharing a GPU drifts by a third between windows (another client's
 * time slice); the fastest of a few is what the machine does and still grows with a slowdown. */
#define SOAK_PROBE_TIMINGS 5

typedef struct {
    symcoll_team_t team;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    char *src, *dst;   /* symmetric, SOAK_MAX_BYTES each */
    uint64_t *signal;  /* symmetric: the previous PE's puts add 1 */
    uint64_t received; /* puts received so far */
    void *host_src, *host_dst;
    perf_call_t call; /* op SOAK_PUT: a put_signal of count bytes to the next PE; op SOAK_HALO:
                         a halo exchange of dst */
    symcoll_halo_t halo;
    int halo_low, halo_high; /* team PEs whose rows fill the halos below and above */
    perf_counts_t counts;    /* alltoallv's */
    bool in_graph;
    cudaGraphExec_t graph;
} lane_t;

typedef struct {
    int npes, me;
    uint64_t rng, seed;
    lane_t lanes[2];
    long long rounds, calls, replays, puts, halos, wrong;
} soak_t;

static uint64_t next_random(soak_t *s) {
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* A put's data: the bytes a uint8 broadcast of the same count would send. */
static perf_call_t put_data_call(const perf_call_t *c) {
    return (perf_call_t){.op = PERF_OP_BROADCAST, .type = SYMCOLL_UINT8, .count = c->count};
}

/* Cell idx of team PE pe's halo field in check round seed: halos poisoned, interior random. */
static uint32_t halo_cell(uint64_t seed, int pe, size_t idx) {
    size_t row = idx / SOAK_HALO_X;
    if (row < SOAK_HALO_WIDTH || row >= SOAK_HALO_WIDTH + SOAK_HALO_Y)
        return 0xa5a5a5a5u;
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + (uint64_t)pe * 0xbf58476d1ce4e5b9ull + idx;
    z = (z ^ (z >> 31)) * 0x94d049bb133111ebull;
    return (uint32_t)(z ^ (z >> 29));
}

/* Wrong cells of a halo field after the exchange: each halo holds the neighbour's rows. */
static size_t halo_wrong(const lane_t *l, const uint32_t *field, uint64_t seed, int me) {
    size_t wrong = 0;
    for (size_t idx = 0; idx < SOAK_HALO_CELLS; idx++) {
        size_t row = idx / SOAK_HALO_X, col = idx % SOAK_HALO_X;
        uint32_t expected = halo_cell(seed, me, idx);
        if (row < SOAK_HALO_WIDTH)
            expected = halo_cell(seed, l->halo_low, (row + SOAK_HALO_Y) * SOAK_HALO_X + col);
        else if (row >= SOAK_HALO_WIDTH + SOAK_HALO_Y)
            expected = halo_cell(seed, l->halo_high, (row - SOAK_HALO_Y) * SOAK_HALO_X + col);
        wrong += field[idx] != expected;
    }
    return wrong;
}

/* The same random operation on every PE: sizes log-uniform from one element up. */
static void draw_call(soak_t *s, lane_t *l) {
    perf_call_t *c = &l->call;
    *c = (perf_call_t){.op = (perf_op_t)(next_random(s) % (SOAK_HALO + 1))};
    c->type = (symcoll_datatype_t)(next_random(s) % SYMCOLL_NUM_DATATYPES);
    do {
        c->redop = (symcoll_op_t)(next_random(s) % SYMCOLL_NUM_OPS);
    } while (!perf_redop_valid(c->type, c->redop));
    c->root = (int)(next_random(s) % (uint64_t)s->npes);
    size_t elem = c->op == SOAK_PUT ? 1 : symcoll_datatype_size(c->type);
    size_t max_count = SOAK_MAX_BYTES / elem / (size_t)s->npes;
    uint64_t scale_bits = next_random(s);
    c->count = perf_soak_count(scale_bits, next_random(s), max_count);
    l->in_graph = c->op != SOAK_PUT && next_random(s) % 4 == 0;
}

static int enqueue_call(soak_t *s, lane_t *l) {
    if (l->call.op == SOAK_HALO)
        return perf_symcoll_check(symcoll_halo_exchange_on_stream(l->halo, l->dst, l->stream),
                                  "halo exchange");
    if (l->call.op != SOAK_PUT) {
        return perf_symcoll_check(perf_call_enqueue(&l->call, l->team, l->dst, l->src, l->stream),
                                  perf_op_info(l->call.op)->name);
    }
    /* The barrier orders this PE's poisoning of dst before the previous PE's put into it. */
    int next = symcoll_team_translate_pe(l->team, (s->me + 1) % s->npes, SYMCOLL_TEAM_WORLD);
    PERF_SYMCOLL(symcoll_barrier_on_stream(l->team, l->stream));
    PERF_SYMCOLL(symcoll_put_signal_on_stream(l->dst, l->src, l->call.count, l->signal, 1,
                                              SYMCOLL_SIGNAL_ADD, next, l->stream));
    PERF_SYMCOLL(
        symcoll_signal_wait_until_on_stream(l->signal, SYMCOLL_CMP_GE, ++l->received, l->stream));
    s->puts++;
    return 0;
}

static int capture(soak_t *s, lane_t *l) {
    cudaGraph_t graph = NULL;
    PERF_CUDA(cudaStreamBeginCapture(l->stream, cudaStreamCaptureModeThreadLocal));
    int rc = enqueue_call(s, l);
    cudaError_t err = cudaStreamEndCapture(l->stream, &graph);
    if (rc == 0 && perf_cuda_check(err, "cudaStreamEndCapture") == 0)
        rc = perf_cuda_check(cudaGraphInstantiate(&l->graph, graph, 0), "cudaGraphInstantiate");
    if (graph != NULL)
        cudaGraphDestroy(graph);
    return rc != 0 ? -1 : 0;
}

/* A halo exchange's data: the interior fresh, the halos poisoned, in dst. */
static int fill_halo_field(soak_t *s, lane_t *l, size_t *bytes) {
    uint32_t *field = l->host_src;
    ++s->seed;
    for (size_t idx = 0; idx < SOAK_HALO_CELLS; idx++)
        field[idx] = halo_cell(s->seed, s->me, idx);
    *bytes = SOAK_HALO_CELLS * sizeof *field;
    PERF_CUDA(cudaMemcpyAsync(l->dst, field, *bytes, cudaMemcpyHostToDevice, l->stream));
    return 0;
}

/* A collective's or put's data: fresh into src, poison into dst. */
static int fill_buffers(soak_t *s, lane_t *l, size_t *dst_bytes) {
    const perf_call_t data = l->call.op == SOAK_PUT ? put_data_call(&l->call) : l->call;
    size_t elem = symcoll_datatype_size(data.type);
    size_t src_bytes = perf_op_src_bytes(data.op, data.count, elem, s->npes);
    *dst_bytes = perf_call_dst_bytes(&data, s->npes);
    perf_check_fill(l->host_src, &data, ++s->seed, s->me, s->npes);
    PERF_CUDA(cudaMemcpyAsync(l->src, l->host_src, src_bytes, cudaMemcpyHostToDevice, l->stream));
    PERF_CUDA(cudaMemsetAsync(l->dst, SOAK_POISON, *dst_bytes, l->stream));
    return 0;
}

/* Fresh data, the call (or a replay of its graph), dst back. */
static int run_call(soak_t *s, lane_t *l) {
    size_t dst_bytes;
    if ((l->call.op == SOAK_HALO ? fill_halo_field(s, l, &dst_bytes)
                                 : fill_buffers(s, l, &dst_bytes)) != 0)
        return -1;
    if (l->in_graph) {
        PERF_CUDA(cudaGraphLaunch(l->graph, l->stream));
        s->replays++;
    } else if (enqueue_call(s, l) != 0) {
        return -1;
    }
    PERF_CUDA(cudaMemcpyAsync(l->host_dst, l->dst, dst_bytes, cudaMemcpyDeviceToHost, l->stream));
    s->calls++;
    s->halos += l->call.op == SOAK_HALO;
    return 0;
}

/* After the lane's stream is idle: wrong elements of the last call's dst. */
static size_t check_call(soak_t *s, lane_t *l, uint64_t seed) {
    if (l->call.op == PERF_OP_BARRIER)
        return 0;
    if (l->call.op == SOAK_HALO)
        return halo_wrong(l, l->host_dst, seed, s->me);
    if (l->call.op != SOAK_PUT)
        return perf_check_count_wrong(l->host_dst, &l->call, seed, s->me, s->npes);
    const perf_call_t data = put_data_call(&l->call);
    perf_check_fill(l->host_src, &data, seed, (s->me + s->npes - 1) % s->npes, s->npes);
    size_t wrong = 0;
    for (size_t i = 0; i < l->call.count; i++)
        wrong += ((const char *)l->host_src)[i] != ((const char *)l->host_dst)[i];
    return wrong;
}

/* One round: both lanes' calls in flight together, then checked; a graph is replayed
 * SOAK_GRAPH_REPLAYS times with fresh data each time. */
static int run_round(soak_t *s) {
    int runs = 1;
    for (int i = 0; i < 2; i++) {
        lane_t *l = &s->lanes[i];
        draw_call(s, l);
        /* Counts that stay for the round: a graph's replays read them from the device. */
        if (perf_counts_set(&l->counts, &l->call, s->me, 0, l->stream) != 0 ||
            (l->in_graph && capture(s, l) != 0))
            return -1;
        runs = s->lanes[i].in_graph ? SOAK_GRAPH_REPLAYS : runs;
    }
    for (int r = 0; r < runs; r++) {
        uint64_t seeds[2];
        for (int i = 0; i < 2; i++) {
            if (r > 0 && !s->lanes[i].in_graph)
                continue;
            if (run_call(s, &s->lanes[i]) != 0)
                return -1;
            seeds[i] = s->seed;
        }
        for (int i = 0; i < 2; i++) {
            if (r > 0 && !s->lanes[i].in_graph)
                continue;
            lane_t *l = &s->lanes[i];
            size_t counts_wrong = 0;
            PERF_CUDA(cudaStreamSynchronize(l->stream));
            if (l->call.counts != NULL &&
                perf_counts_check(l->call.counts, s->me, l->stream, &counts_wrong) != 0)
                return -1;
            s->wrong += (long long)(check_call(s, l, seeds[i]) + counts_wrong);
        }
    }
    for (int i = 0; i < 2; i++)
        if (s->lanes[i].in_graph)
            cudaGraphExecDestroy(s->lanes[i].graph);
    s->rounds++;
    return 0;
}

/* The probe: the fastest of SOAK_PROBE_TIMINGS timings of SOAK_PROBE_CALLS back-to-back 8-byte
 * float sums on lane 0, per call. */
static int probe(soak_t *s, double *us) {
    lane_t *l = &s->lanes[0];
    perf_call_t c = {
        .op = PERF_OP_REDUCE, .type = SYMCOLL_FLOAT32, .redop = SYMCOLL_SUM, .count = 2};
    double best = 0;
    for (int t = 0; t < SOAK_PROBE_TIMINGS; t++) {
        PERF_SYMCOLL(symcoll_barrier_on_stream(l->team, l->stream));
        PERF_CUDA(cudaEventRecord(l->start, l->stream));
        for (int i = 0; i < SOAK_PROBE_CALLS; i++)
            PERF_SYMCOLL(perf_call_enqueue(&c, l->team, l->dst, l->src, l->stream));
        PERF_CUDA(cudaEventRecord(l->stop, l->stream));
        PERF_CUDA(cudaEventSynchronize(l->stop));
        float ms;
        PERF_CUDA(cudaEventElapsedTime(&ms, l->start, l->stop));
        double per_call = 1e3 * ms / SOAK_PROBE_CALLS;
        if (t == 0 || per_call < best)
            best = per_call;
    }
    *us = best;
    return 0;
}

/* The window of the run every PE has reached: the largest of the PEs' own clocks' windows,
 * so that all PEs take the same decisions. */
static int agreed_window(soak_t *s, int mine, int *agreed) {
    lane_t *l = &s->lanes[0];
    int *box = (int *)l->dst + 1024;
    PERF_CUDA(cudaMemcpyAsync(box, &mine, sizeof mine, cudaMemcpyHostToDevice, l->stream));
    PERF_SYMCOLL(
        symcoll_reduce_on_stream(l->team, box, box, 1, SYMCOLL_INT32, SYMCOLL_MAX, l->stream));
    PERF_CUDA(cudaMemcpyAsync(agreed, box, sizeof *agreed, cudaMemcpyDeviceToHost, l->stream));
    PERF_CUDA(cudaStreamSynchronize(l->stream));
    return 0;
}

static int open_fds(void) {
    DIR *dir = opendir("/proc/self/fd");
    int n = 0;
    if (dir == NULL)
        return -1;
    while (readdir(dir) != NULL)
        n++;
    closedir(dir);
    return n - 3; /* ".", ".." and the directory's own */
}

/* The GPU's free memory, read while every PE waits between two barriers: PEs that share the
 * GPU allocate on it too, and one still setting up or already tearing down would count as a
 * leak of the others. */
static int device_free_bytes(soak_t *s, size_t *free_bytes) {
    lane_t *l = &s->lanes[0];
    size_t total;
    if (perf_sync_pes(l->team, l->stream) != 0)
        return -1;
    PERF_CUDA(cudaMemGetInfo(free_bytes, &total));
    return perf_sync_pes(l->team, l->stream);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The lane's halo plan: the team's PEs stacked along y, periodic, rows moving. */
static int create_halo(lane_t *l, int npes) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 2;
    d.pe_grid[0] = 1;
    d.pe_grid[1] = npes;
    d.periodic[0] = d.periodic[1] = 1;
    d.interior[0] = SOAK_HALO_X;
    d.interior[1] = SOAK_HALO_Y;
    d.width[1] = SOAK_HALO_WIDTH;
    d.type = SYMCOLL_UINT32;
    PERF_SYMCOLL(symcoll_halo_create(l->team, &d, &l->halo));
    l->halo_low = symcoll_halo_neighbor(l->halo, 1, -1);
    l->halo_high = symcoll_halo_neighbor(l->halo, 1, 1);
    return 0;
}

static int lane_init(lane_t *l, symcoll_team_t team, int npes) {
    l->team = team;
    PERF_CUDA(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking));
    PERF_CUDA(cudaEventCreate(&l->start));
    PERF_CUDA(cudaEventCreate(&l->stop));
    l->src = symcoll_malloc(SOAK_MAX_BYTES);
    l->dst = symcoll_malloc(SOAK_MAX_BYTES);
    l->signal = symcoll_calloc(1, sizeof *l->signal);
    if (l->src == NULL || l->dst == NULL || l->signal == NULL)
        return perf_fail("soak: symcoll_malloc: %s", symcoll_last_error());
    PERF_CUDA(cudaMallocHost(&l->host_src, SOAK_MAX_BYTES));
    PERF_CUDA(cudaMallocHost(&l->host_dst, SOAK_MAX_BYTES));
    if (perf_counts_init(&l->counts, npes) != 0)
        return -1;
    return create_halo(l, npes);
}

/* 0, or -1 after reporting a failed release. */
static int lane_fini(lane_t *l) {
    int rc = perf_symcoll_check(symcoll_halo_destroy(l->halo), "symcoll_halo_destroy");
    rc |= perf_counts_fini(&l->counts);
    rc |= perf_cuda_check(cudaFreeHost(l->host_dst), "cudaFreeHost");
    rc |= perf_cuda_check(cudaFreeHost(l->host_src), "cudaFreeHost");
    symcoll_free(l->signal);
    symcoll_free(l->dst);
    symcoll_free(l->src);
    rc |= perf_cuda_check(cudaEventDestroy(l->stop), "cudaEventDestroy");
    rc |= perf_cuda_check(cudaEventDestroy(l->start), "cudaEventDestroy");
    rc |= perf_cuda_check(cudaStreamDestroy(l->stream), "cudaStreamDestroy");
    return rc;
}

/* The run itself, between the lanes' setup and teardown. */
static int soak_run(soak_t *s, double seconds, bool *passed) {
    double start = seconds_now();
    perf_soak_result_t r = {0};
    int window = -1;
    if (probe(s, &r.probe_us[r.probes++]) != 0)
        return -1;
    for (;;) {
        int mine = (int)((seconds_now() - start) / seconds * PERF_SOAK_WINDOWS), agreed;
        mine = mine < PERF_SOAK_WINDOWS ? mine : PERF_SOAK_WINDOWS;
        if (run_round(s) != 0 || agreed_window(s, mine, &agreed) != 0)
            return -1;
        if (s->rounds == PERF_SOAK_WARMUP_ROUNDS) {
            r.fds_before = open_fds();
            if (device_free_bytes(s, &r.free_before) != 0)
                return -1;
        }
        if (agreed == window)
            continue;
        window = agreed;
        if (window > 0 && probe(s, &r.probe_us[r.probes++]) != 0)
            return -1;
        if (s->me == 0)
            printf("soak %5.0f s: %lld rounds, %lld calls (%lld graph replays, %lld puts, %lld "
                   "halo exchanges), %lld wrong, probe %.2f us\n",
                   seconds_now() - start, s->rounds, s->calls, s->replays, s->puts, s->halos,
                   s->wrong, r.probe_us[r.probes - 1]);
        fflush(stdout);
        if (window >= PERF_SOAK_WINDOWS)
            break;
    }
    r.fds_after = open_fds();
    if (device_free_bytes(s, &r.free_after) != 0)
        return -1;
    r.rounds = s->rounds;
    r.wrong = s->wrong;
    *passed = perf_soak_passed(&r);
    char leaks[160];
    if (perf_soak_leaks_checked(&r))
        snprintf(leaks, sizeof leaks, "open fds %d -> %d; free device memory %zu -> %zu bytes",
                 r.fds_before, r.fds_after, r.free_before, r.free_after);
    else
        snprintf(leaks, sizeof leaks,
                 "leaks not checked (the run ended within the %d warm-up rounds)",
                 PERF_SOAK_WARMUP_ROUNDS);
    double earlier, later;
    perf_soak_probe_medians(&r, &earlier, &later);
    printf("soak PE %d: %s: %.0f s, %lld rounds, %lld calls, %lld wrong; %s; probe medians %.2f -> "
           "%.2f us (x%.2f, limit x%.2f)\n",
           s->me, *passed ? "PASS" : "FAIL", seconds_now() - start, s->rounds, s->calls, s->wrong,
           leaks, earlier, later, perf_soak_slowdown(&r), PERF_SOAK_SLOWDOWN_LIMIT);
    return 0;
}

int perf_soak(const perf_args_t *args) {
    soak_t s = {.npes = symcoll_n_pes(), .me = symcoll_my_pe(), .rng = 0x5eed5eed5eedull};
    symcoll_team_t copy = SYMCOLL_TEAM_INVALID;
    PERF_SYMCOLL(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, s.npes, &copy));
    if (lane_init(&s.lanes[0], SYMCOLL_TEAM_WORLD, s.npes) != 0 ||
        lane_init(&s.lanes[1], copy, s.npes) != 0)
        return -1;
    bool passed = false;
    int rc = soak_run(&s, args->soak_seconds, &passed);
    int down = lane_fini(&s.lanes[1]) | lane_fini(&s.lanes[0]);
    down |= perf_symcoll_check(symcoll_team_destroy(copy), "symcoll_team_destroy");
    return rc != 0 || down != 0 ? -1 : passed ? 0 : 1;
}
