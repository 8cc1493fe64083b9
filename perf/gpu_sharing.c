#include "gpu_sharing.h"

static int pes_on_gpu_of(const symcoll_topology_t *t, int pe) {
    int n = 1;
    for (int other = 0; other < t->n_pes; other++) {
        n += other != pe && t->link[pe][other].cls == TOPO_SAME_GPU;
    }
    return n;
}

int perf_topology_pes_per_gpu(const symcoll_topology_t *t) {
    int most = 1;
    for (int pe = 0; pe < t->n_pes; pe++) {
        int n = pes_on_gpu_of(t, pe);
        most = n > most ? n : most;
    }
    return most;
}

bool perf_pes_share_gpu(const symcoll_topology_t *t) {
    return perf_topology_pes_per_gpu(t) > 1;
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
