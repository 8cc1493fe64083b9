/* Team barrier on a stream: one kernel (kernels/barrier.cu), quiet included. */
#include "barrier_launch.h"
#include "internal.h"

symcoll_status_t symcoll_barrier_on_stream(symcoll_team_t team, cudaStream_t stream) {
    static const char fn[] = "symcoll_barrier_on_stream";
    symcoll_team_state_t *t;
    symcoll_status_t st = symcoll_team_for_call(fn, team, &t);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_stream(fn, stream);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_check_team_p2p(fn, t);
    if (st != SYMCOLL_SUCCESS)
        return st;
    return symcoll_cuda_status(symcoll_barrier_launch(symcoll_team_device(t), stream), fn,
                               "barrier kernel launch");
}
