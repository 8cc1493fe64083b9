/* Variant "host": the halo exchange API and the reduce on a stream, each iteration a CUDA
 * graph in the reference's scheme (split.cu). */
#include "jacobi.h"

static void exchange(jacobi_t *j, void *plan, float *next) {
    CHECK_SYMCOLL(symcoll_halo_exchange_on_stream((symcoll_halo_t)plan, next, j->push));
}

static void sum_norm(jacobi_t *j, void *plan) {
    (void)plan;
    CHECK_SYMCOLL(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, j->norm_sum, j->norm, 1,
                                           SYMCOLL_FLOAT32, SYMCOLL_SUM, j->compute));
}

symcoll_halo_t jacobi_plan(const jacobi_t *j) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 2;
    d.pe_grid[0] = 1;
    d.pe_grid[1] = j->npes;
    d.periodic[1] = 1;
    d.interior[0] = (size_t)j->nx;
    d.interior[1] = (size_t)j->rows;
    d.width[1] = 1;
    d.type = SYMCOLL_FLOAT32;
    symcoll_halo_t plan;
    CHECK_SYMCOLL(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &plan));
    return plan;
}

double jacobi_host(jacobi_t *j) {
    symcoll_halo_t plan = jacobi_plan(j);
    jacobi_split_t s = {exchange, sum_norm, plan};
    double seconds = jacobi_split_run(j, &s);
    CHECK_SYMCOLL(symcoll_halo_destroy(plan));
    return seconds;
}
