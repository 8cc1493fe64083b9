/* Heat diffusion on a 3D grid of PEs with symcoll's halo exchange beside NCCL:
 *
 *   symcoll-run -n 2 ./heat3d [-n 256] [-niter 100] [-corners 0|1|both] [-grid X,Y,Z]
 *                             [-variant symcoll|nccl|all] [-csv]
 *
 * Each PE owns an n^3 cube of a periodic domain; -grid fixes the PE grid (0 entries are
 * chosen, as MPI_Dims_create does). Corners 0: 7-point stencil, faces exchanged; 1: 27-point,
 * faces, edges and corners. Every iteration (a CUDA graph) refreshes the halos and steps.
 * Each run is checked against the whole domain on one GPU. With -csv, PE 0 prints
 *   heat3d_<variant>, n, corners, X x Y x Z, niter, npes, seconds_on_npes, seconds_on_1 */
#include <math.h>
#include <string.h>
#include "example_flags.h"
#include "heat3d.h"

/* One iteration: the halos of cur refreshed, then cur -> next. */
static void iteration(heat_t *h, heat_nccl_t *nccl, float *next, float *cur) {
    if (nccl)
        heat_nccl_exchange(nccl, h, cur);
    else
        CHECK_SYMCOLL(symcoll_halo_exchange_on_stream(h->plan, cur, h->stream));
    int ext[3] = {h->n, h->n, h->n};
    heat_step(next, cur, ext, h->corners, h->stream);
}

static void initialize(heat_t *h) {
    int ext[3] = {h->n, h->n, h->n}, origin[3], total[3];
    for (int i = 0; i < 3; i++)
        origin[i] = h->coords[i] * h->n, total[i] = h->grid[i] * h->n;
    heat_initialize(h->u, ext, origin, total, h->stream);
    CHECK_CUDA(cudaStreamSynchronize(h->stream));
    CHECK_SYMCOLL(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, h->stream));
    CHECK_CUDA(cudaStreamSynchronize(h->stream));
}

/* Warm-up, a fresh start, then niter iterations from two graphs; h->u holds the result. */
static double run(heat_t *h, heat_nccl_t *nccl) {
    cudaGraphExec_t graphs[2];
    for (int parity = 0; parity < 2; parity++) {
        cudaGraph_t graph;
        CHECK_CUDA(cudaStreamBeginCapture(h->stream, cudaStreamCaptureModeGlobal));
        iteration(h, nccl, parity ? h->u : h->v, parity ? h->v : h->u);
        CHECK_CUDA(cudaStreamEndCapture(h->stream, &graph));
        CHECK_CUDA(cudaGraphInstantiate(&graphs[parity], graph, 0));
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
    for (int i = 0; i < 4; i++)
        CHECK_CUDA(cudaGraphLaunch(graphs[i % 2], h->stream));
    initialize(h);
    double start = heat_now();
    for (int it = 0; it < h->niter; it++)
        CHECK_CUDA(cudaGraphLaunch(graphs[it % 2], h->stream));
    CHECK_CUDA(cudaStreamSynchronize(h->stream));
    double seconds = heat_now() - start;
    if (h->niter % 2) {
        float *t = h->u;
        h->u = h->v;
        h->v = t;
    }
    CHECK_SYMCOLL(symcoll_team_status(SYMCOLL_TEAM_WORLD));
    for (int parity = 0; parity < 2; parity++)
        CHECK_CUDA(cudaGraphExecDestroy(graphs[parity]));
    return seconds;
}

/* The whole domain on this GPU; returns seconds and fills ref ((total + 2)^3 layout). */
static double single(const heat_t *h, float *ref, size_t cells) {
    int total[3], origin[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        total[i] = h->grid[i] * h->n;
    float *u, *v;
    CHECK_CUDA(cudaMalloc(&u, cells * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&v, cells * sizeof(float)));
    heat_initialize(u, total, origin, total, h->stream);
    CHECK_CUDA(cudaStreamSynchronize(h->stream));
    double start = heat_now();
    for (int it = 0; it < h->niter; it++) {
        heat_wrap(u, total, h->stream);
        heat_step(v, u, total, h->corners, h->stream);
        float *t = u;
        u = v;
        v = t;
    }
    CHECK_CUDA(cudaStreamSynchronize(h->stream));
    double seconds = heat_now() - start;
    CHECK_CUDA(cudaMemcpy(ref, u, cells * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(u));
    CHECK_CUDA(cudaFree(v));
    return seconds;
}

/* Interior cells of this PE that differ from the one-GPU result, summed over the PEs. */
static int team_mismatches(const heat_t *h, const float *ref) {
    size_t m = (size_t)h->n + 2, cells = heat_cells(h->n);
    size_t gx = (size_t)h->grid[0] * h->n + 2, gy = (size_t)h->grid[1] * h->n + 2;
    float *mine = (float *)malloc(cells * sizeof(float));
    CHECK_CUDA(cudaMemcpy(mine, h->u, cells * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t z = 1; z <= (size_t)h->n; z++)
        for (size_t y = 1; y <= (size_t)h->n; y++)
            for (size_t x = 1; x <= (size_t)h->n; x++) {
                size_t X = h->coords[0] * (size_t)h->n + x, Y = h->coords[1] * (size_t)h->n + y,
                       Z = h->coords[2] * (size_t)h->n + z;
                if (mine[(z * m + y) * m + x] != ref[(Z * gy + Y) * gx + X] && bad++ == 0)
                    fprintf(stderr, "PE %d: cell %zu,%zu,%zu is %g, one GPU has %g\n", h->me, X, Y,
                            Z, mine[(z * m + y) * m + x], ref[(Z * gy + Y) * gx + X]);
            }
    free(mine);
    return example_sum_over_pes(bad, h->stream);
}

static void make_plan(heat_t *h, const int grid[3]) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 3;
    d.type = SYMCOLL_FLOAT32;
    d.corners = h->corners;
    for (int i = 0; i < 3; i++) {
        d.pe_grid[i] = grid[i];
        d.periodic[i] = 1;
        d.interior[i] = (size_t)h->n;
        d.width[i] = 1;
    }
    CHECK_SYMCOLL(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &h->plan));
    CHECK_SYMCOLL(symcoll_halo_grid(h->plan, h->grid, h->coords));
}

static void usage(FILE *out, const char *program) {
    fprintf(out,
            "usage: %s [-n >= 1] [-niter >= 0] [-corners 0|1|both] [-grid X,Y,Z] "
            "[-variant symcoll|nccl|all] [-csv]\n",
            program);
}

int main(int argc, char **argv) {
    heat_t h;
    memset(&h, 0, sizeof h);
    if (example_wants_help(argc, argv)) {
        usage(stdout, argv[0]);
        return 0;
    }
    static const char *const options[] = {"-n", "-niter", "-corners", "-grid", "-variant", NULL};
    static const char *const switches[] = {"-csv", NULL};
    int flags_ok = example_flags_valid(argc, argv, options, switches) &&
                   example_int_option(argc, argv, "-n", 256, &h.n) &&
                   example_int_option(argc, argv, "-niter", 100, &h.niter);
    static const char *const corner_choices[] = {"0", "1", "both", NULL};
    static const char *const variant_choices[] = {"symcoll", "nccl", "all", NULL};
    const char *corners = "both", *variant = "all";
    flags_ok = flags_ok &&
               example_choice_option(argc, argv, "-corners", corner_choices, "both", &corners) &&
               example_choice_option(argc, argv, "-variant", variant_choices, "all", &variant);
    int grid[3], used = 0, csv = example_switch(argc, argv, "-csv");
    const char *grid_text = example_option(argc, argv, "-grid", "0,0,0");
    if (sscanf(grid_text, "%d,%d,%d%n", &grid[0], &grid[1], &grid[2], &used) != 3 ||
        grid_text[used] != '\0' || grid[0] < 0 || grid[1] < 0 || grid[2] < 0) {
        fprintf(stderr, "%s: -grid '%s' is not X,Y,Z (whole numbers, 0: chosen)\n", argv[0],
                grid_text);
        flags_ok = 0;
    }
    int run_symcoll = strcmp(variant, "symcoll") == 0 || strcmp(variant, "all") == 0;
    int want_nccl = strcmp(variant, "nccl") == 0 || strcmp(variant, "all") == 0;
    int first = strcmp(corners, "1") == 0, last = strcmp(corners, "0") == 0 ? 0 : 1;
    if (!flags_ok || h.n < 1 || h.niter < 0) {
        usage(stderr, argv[0]);
        return 2;
    }
    example_init_heap(2 * heat_cells(h.n) * sizeof(float));
    int run_nccl = want_nccl && example_nccl_can_run();
    h.me = symcoll_my_pe();
    h.npes = symcoll_n_pes();
    CHECK_CUDA(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking));
    h.u = (float *)example_symmetric(heat_cells(h.n) * sizeof(float));
    h.v = (float *)example_symmetric(heat_cells(h.n) * sizeof(float));
    int failed = 0;
    for (h.corners = first; h.corners <= last; h.corners++) {
        make_plan(&h, grid);
        size_t cells =
            (size_t)(h.grid[0] * h.n + 2) * (h.grid[1] * h.n + 2) * (h.grid[2] * h.n + 2);
        float *ref = (float *)malloc(cells * sizeof(float));
        double seconds_on_1 = single(&h, ref, cells);
        for (int v = 0; v < 2; v++) {
            if (!(v == 0 ? run_symcoll : run_nccl))
                continue;
            heat_nccl_t *nccl = v == 1 ? heat_nccl_create(&h) : NULL;
            double seconds = run(&h, nccl);
            if (nccl)
                heat_nccl_destroy(nccl);
            int bad = team_mismatches(&h, ref);
            failed |= bad != 0;
            const char *name = v == 0 ? "symcoll" : "nccl";
            if (h.me != 0)
                continue;
            if (bad)
                fprintf(stderr, "heat3d_%s: %d cells differ from the one-GPU result\n", name, bad);
            else if (csv)
                printf("heat3d_%s, %d, %d, %dx%dx%d, %d, %d, %f, %f\n", name, h.n, h.corners,
                       h.grid[0], h.grid[1], h.grid[2], h.niter, h.npes, seconds, seconds_on_1);
            else
                printf("%s: %d^3 per PE on %d x %d x %d PEs, %s, %d iterations: %.4f s (%.1f us "
                       "per iteration), one GPU %.4f s\n",
                       name, h.n, h.grid[0], h.grid[1], h.grid[2],
                       h.corners ? "27-point" : "7-point", h.niter, seconds,
                       h.niter ? 1e6 * seconds / h.niter : 0.0, seconds_on_1);
            fflush(stdout);
        }
        free(ref);
        CHECK_SYMCOLL(symcoll_halo_destroy(h.plan));
    }
    CHECK_CUDA(cudaStreamDestroy(h.stream));
    symcoll_free(h.u);
    symcoll_free(h.v);
    CHECK_SYMCOLL(symcoll_finalize());
    return failed;
}
