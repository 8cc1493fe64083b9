/* A matmul whose result is summed over the PEs (the matmul and all-reduce of a tensor-parallel
 * layer), with the all-reduce fused into the matmul:
 *
 *   symcoll-run -n 2 ./fused_matmul_allreduce [-n 4096] [-niter 20] [-blocks B]
 *
 * Each PE computes C_pe = A_pe x B_pe (float, n x n, row-major) and every PE must end with the
 * sum over the PEs in C. unfused: the tiled matmul writes C, then symcoll_reduce_on_stream sums
 * C in place. fused: the same matmul hands each finished 128 x 128 tile to
 * symcoll_dev_tile_reduce_copy_block (symcoll_device_coll.cuh), which writes the team's sum of
 * the tile into C: no second kernel, and the reduction of a tile overlaps the products of the
 * tiles still in flight. Both run on one stream, are timed (the median of -niter steps after a
 * warm-up, launched one by one and replayed from a CUDA graph of one step) and are checked bit
 * for bit against the sum computed on one GPU. */
#include <string.h>
#include "example_flags.h"
#include "fused_matmul.h"

static void usage(FILE *out, const char *program) {
    fprintf(out,
            "usage: %s [-n 1..%d] [-niter >= 1] [-blocks 1..%d (default: one per SM of the PE's "
            "share)]\n",
            program, MM_MAX_N, MM_MAX_GRID);
}

static void step_unfused(const mm_t *m) {
    mm_launch(m, 0);
    CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m->c, m->c, (size_t)m->n * m->n,
                                           SYMCOLL_FLOAT32, SYMCOLL_SUM, m->stream));
}

static void step_fused(const mm_t *m) {
    mm_launch(m, 1);
}

/* Times a variant and checks the C it leaves; 1 when C is wrong. C starts as NaNs, so that an
 * element no step writes cannot pass for the previous variant's result. */
static int run_variant(const mm_t *m, const float *ref, const char *name, mm_step_t step,
                       float ms[2]) {
    CHECK_CUDA(cudaMemsetAsync(m->c, 0xff, (size_t)m->n * m->n * sizeof(float), m->stream));
    CHECK_CUDA(cudaMemsetAsync(m->failed, 0, sizeof(int), m->stream));
    mm_time(m, step, &ms[0], &ms[1]);
    int failed = 0;
    CHECK_CUDA(
        cudaMemcpyAsync(&failed, m->failed, sizeof failed, cudaMemcpyDeviceToHost, m->stream));
    CHECK_CUDA(cudaStreamSynchronize(m->stream));
    if (failed) {
        symcoll_status_t st = symcoll_team_status(SYMCOLL_TEAM_WORLD);
        fprintf(stderr, "PE %d: %s: a tile reduce failed: %s\n", m->me, name,
                st == SYMCOLL_SUCCESS ? "its slot is out of range" : symcoll_last_error());
        exit(1);
    }
    CHECK_SYMCOLL(symcoll_team_status(SYMCOLL_TEAM_WORLD)); /* TIMEOUT if a wait expired */
    size_t wrong = mm_compare(m, ref, name);
    printf("PE %d of %d: %s: %zu wrong\n", m->me, m->npes, name, wrong);
    fflush(stdout);
    return wrong != 0;
}

int main(int argc, char **argv) {
    mm_t m;
    memset(&m, 0, sizeof m);
    if (example_wants_help(argc, argv)) {
        usage(stdout, argv[0]);
        return 0;
    }
    static const char *const options[] = {"-n", "-niter", "-blocks", NULL};
    static const char *const switches[] = {NULL};
    int flags_ok = example_flags_valid(argc, argv, options, switches) &&
                   example_int_option(argc, argv, "-n", 4096, &m.n) &&
                   example_int_option(argc, argv, "-niter", 20, &m.niter) &&
                   example_int_option(argc, argv, "-blocks", 0, &m.grid);
    if (!flags_ok || m.n < 1 || m.n > MM_MAX_N || m.niter < 1 || m.grid < 0 ||
        m.grid > MM_MAX_GRID) {
        usage(stderr, argv[0]);
        return 2;
    }
    size_t bytes = (size_t)m.n * m.n * sizeof(float);
    size_t staging_bytes = (size_t)MM_MAX_GRID * MM_TILE * MM_TILE * sizeof(float);
    example_init_heap(bytes + staging_bytes);
    m.me = symcoll_my_pe();
    m.npes = symcoll_n_pes();
    symcoll_gpu_sharing_t sharing;
    CHECK_SYMCOLL(symcoll_gpu_sharing(&sharing));
    m.grid = mm_grid(m.n, m.grid ? m.grid : sharing.sm_share);
    m.h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    if (m.h.team_size == 0) {
        fprintf(stderr, "symcoll_device_handle: %s\n", symcoll_last_error());
        return 1;
    }
    m.c = (float *)example_symmetric(bytes);
    m.staging = (float *)example_symmetric((size_t)m.grid * MM_TILE * MM_TILE * sizeof(float));
    float *ref;
    CHECK_CUDA(cudaMalloc((void **)&m.a, bytes));
    CHECK_CUDA(cudaMalloc((void **)&m.b, bytes));
    CHECK_CUDA(cudaMalloc((void **)&ref, bytes));
    CHECK_CUDA(cudaMalloc((void **)&m.failed, sizeof(int)));
    CHECK_CUDA(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));

    mm_reference(&m, ref);
    mm_fill(m.a, m.n, m.me, 0, m.stream);
    mm_fill(m.b, m.n, m.me, 1, m.stream);
    float unfused[2], fused[2];
    int failed = run_variant(&m, ref, "unfused", step_unfused, unfused);
    failed |= run_variant(&m, ref, "fused", step_fused, fused);
    if (m.me == 0) {
        printf("n = %d, %d PEs, %d blocks of %d threads, %d x %d tiles, median of %d steps "
               "(PE 0)\n",
               m.n, m.npes, m.grid, MM_THREADS, MM_TILE, MM_TILE, m.niter);
        printf("unfused (matmul, then symcoll_reduce_on_stream): %.3f ms, graph %.3f ms, "
               "speedup 1.00\n",
               unfused[0], unfused[1]);
        printf("fused (symcoll_dev_tile_reduce_copy_block per tile): %.3f ms, graph %.3f ms, "
               "speedup %.3f, graph %.3f\n",
               fused[0], fused[1], unfused[0] / fused[0], unfused[1] / fused[1]);
    }

    CHECK_CUDA(cudaStreamDestroy(m.stream));
    CHECK_CUDA(cudaFree(m.failed));
    CHECK_CUDA(cudaFree(ref));
    CHECK_CUDA(cudaFree(m.b));
    CHECK_CUDA(cudaFree(m.a));
    CHECK_SYMCOLL(symcoll_free_checked(m.staging));
    CHECK_SYMCOLL(symcoll_free_checked(m.c));
    CHECK_SYMCOLL(symcoll_finalize());
    return failed;
}
