#include "gpu_sharing.h"

#include "topology_text.h"

bool perf_pes_share_gpu(const char *topology) {
    return perf_topology_pes_per_gpu(topology) > 1;
}

void perf_print_gpu_sharing(FILE *out, const symcoll_gpu_sharing_t *s) {
    fprintf(out, "# gpu sharing: %d PE%s on this GPU, SM share %d of %d", s->pes_on_gpu,
            s->pes_on_gpu == 1 ? "" : "s", s->sm_share, s->device_sms);
    if (s->pes_on_gpu > 1) {
        fputs(s->mps ? ", MPS" : ", time-sliced", out);
    }
    if (s->divided) {
        fputs(", divided", out);
    }
    fputc('\n', out);
}
