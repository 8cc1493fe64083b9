/* Multi-GPU Jacobi with symcoll beside NCCL (the problem of NVIDIA's multi-gpu-programming-
 * models Jacobi, whose nccl_graphs variant is the baseline):
 *
 *   symcoll-run -n 2 ./jacobi [-nx 16384] [-ny 16384] [-niter 1000] [-nccheck 1] [-csv]
 *                             [-variant host|device|nccl|all]
 *   mpirun -np 2 ./jacobi ...
 *
 * Each variant runs after a warm-up and is checked against the same iterations on one GPU.
 * host and nccl stop as the reference does, the host waiting for each norm and comparing it
 * with the tolerance; device decides on the GPU and the host never waits (device.cu), which
 * is why its cost of a norm every iteration is small.
 * With -csv, PE 0 prints one line per variant:
 *   symcoll_<variant>, nx, ny, niter, nccheck, npes, 1, seconds_on_npes, seconds_on_1 */
#include <math.h>
#include <string.h>
#include "example_flags.h"
#include "jacobi.h"

/* The reference's split of rows 1 .. ny-2: the first PEs get one row less when uneven. */
static void split_rows(jacobi_t *j) {
    int low = (j->ny - 2) / j->npes, n_low = j->npes * (low + 1) - (j->ny - 2);
    j->rows = j->me < n_low ? low : low + 1;
    j->first_row = 1 + (j->me < n_low ? j->me * low : n_low * low + (j->me - n_low) * (low + 1));
}

/* Cells of this PE's slab that differ from the one-GPU result, summed over the PEs. */
static int team_mismatches(jacobi_t *j, const float *ref) {
    size_t nx = (size_t)j->nx, cells = (size_t)j->rows * nx;
    float *mine = (float *)malloc(cells * sizeof(float));
    CHECK_CUDA(cudaMemcpy(mine, j->a + nx, cells * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < j->rows; r++)
        for (size_t x = 1; x + 1 < nx; x++) {
            float want = ref[(size_t)(j->first_row + r) * nx + x], got = mine[r * nx + x];
            if (fabsf(want - got) > JACOBI_TOL && bad++ == 0)
                fprintf(stderr, "PE %d: a[%d][%zu] = %g, one GPU has %g\n", j->me, j->first_row + r,
                        x, got, want);
        }
    free(mine);
    return example_sum_over_pes(bad, j->compute);
}

static void usage(FILE *out, const char *program) {
    fprintf(out,
            "usage: %s [-nx >= 3] [-ny >= 4] [-niter >= 0] [-nccheck >= 1] [-csv] "
            "[-variant host|device|nccl|all]\n",
            program);
}

int main(int argc, char **argv) {
    jacobi_t j;
    memset(&j, 0, sizeof j);
    if (example_wants_help(argc, argv)) {
        usage(stdout, argv[0]);
        return 0;
    }
    static const char *const options[] = {"-nx", "-ny", "-niter", "-nccheck", "-variant", NULL};
    static const char *const switches[] = {"-csv", NULL};
    int flags_ok = example_flags_valid(argc, argv, options, switches) &&
                   example_int_option(argc, argv, "-nx", 16384, &j.nx) &&
                   example_int_option(argc, argv, "-ny", 16384, &j.ny) &&
                   example_int_option(argc, argv, "-niter", 1000, &j.niter) &&
                   example_int_option(argc, argv, "-nccheck", 1, &j.nccheck);
    int csv = example_switch(argc, argv, "-csv");
    static const char *const choices[] = {"host", "device", "nccl", "all", NULL};
    const char *which = "all";
    flags_ok = flags_ok && example_choice_option(argc, argv, "-variant", choices, "all", &which);
    static const struct {
        const char *name;
        jacobi_variant_t run;
    } variants[] = {{"host", jacobi_host}, {"device", jacobi_device}, {"nccl", jacobi_nccl}};
    int chosen = -1;
    for (int v = 0; v < 3; v++)
        if (strcmp(which, variants[v].name) == 0)
            chosen = v;
    if (!flags_ok || j.nx < 3 || j.ny < 4 || j.niter < 0 || j.nccheck < 1) {
        usage(stderr, argv[0]);
        return 2;
    }
    /* Room for both grids even when one PE holds them whole. */
    example_init_heap(2 * (size_t)j.ny * j.nx * sizeof(float));
    j.me = symcoll_my_pe();
    j.npes = symcoll_n_pes();
    if (j.ny - 2 < j.npes) {
        fprintf(stderr, "jacobi: %d interior rows for %d PEs\n", j.ny - 2, j.npes);
        return 2;
    }
    split_rows(&j);
    int max_rows = (j.ny - 2 + j.npes - 1) / j.npes;
    size_t grid_bytes = (size_t)(max_rows + 2) * j.nx * sizeof(float);
    j.a = (float *)example_symmetric(grid_bytes);
    j.a_new = (float *)example_symmetric(grid_bytes);
    j.norm = (float *)example_symmetric(sizeof(float));
    j.norm_sum = (float *)example_symmetric(sizeof(float));
    CHECK_CUDA(cudaMallocHost(&j.norm_host, sizeof(float)));
    int least, greatest;
    CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK_CUDA(cudaStreamCreateWithPriority(&j.compute, cudaStreamNonBlocking, least));
    CHECK_CUDA(cudaStreamCreateWithPriority(&j.push, cudaStreamNonBlocking, greatest));

    float *ref = (float *)malloc((size_t)j.nx * j.ny * sizeof(float));
    double seconds_on_1 = jacobi_single(&j, ref);
    int failed = 0;
    int nccl_runs = example_nccl_can_run();
    for (int v = 0; v < 3; v++) {
        if ((chosen >= 0 && chosen != v) || (variants[v].run == jacobi_nccl && !nccl_runs))
            continue;
        double seconds = variants[v].run(&j);
        int bad = team_mismatches(&j, ref);
        failed |= bad != 0;
        if (j.me != 0)
            continue;
        if (bad)
            fprintf(stderr, "symcoll_%s: %d cells differ from the one-GPU result\n",
                    variants[v].name, bad);
        else if (csv)
            printf("symcoll_%s, %d, %d, %d, %d, %d, 1, %f, %f\n", variants[v].name, j.nx, j.ny,
                   j.niter, j.nccheck, j.npes, seconds, seconds_on_1);
        else
            printf("%s: %d x %d, %d iterations, norm every %d: %d PEs %.4f s (%.2f us per "
                   "iteration), 1 GPU %.4f s, speedup %.2f\n",
                   variants[v].name, j.ny, j.nx, j.niter, j.nccheck, j.npes, seconds,
                   j.niter ? 1e6 * seconds / j.niter : 0.0, seconds_on_1, seconds_on_1 / seconds);
        fflush(stdout);
    }
    free(ref);
    CHECK_CUDA(cudaStreamDestroy(j.compute));
    CHECK_CUDA(cudaStreamDestroy(j.push));
    CHECK_CUDA(cudaFreeHost(j.norm_host));
    symcoll_free(j.norm_sum);
    symcoll_free(j.norm);
    symcoll_free(j.a_new);
    symcoll_free(j.a);
    CHECK_SYMCOLL(symcoll_finalize());
    return failed;
}
