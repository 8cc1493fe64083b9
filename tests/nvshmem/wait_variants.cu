/* Point-to-point synchronization on the device: wait_until_any (with and without a status
 * mask), wait_until_some, wait_until_all, test, signal_op / signal_wait_until / signal_fetch,
 * nvshmem_ptr and get. Each PE writes into the next PE and checks what the previous PE wrote;
 * every result lands in checks[], which the host compares with what NVSHMEM specifies. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include "check.h"

#define NVARS 8
#define NCHECKS 12
#define ACK 4 /* lvars[ACK]: the next PE has seen our first put */

__global__ void waits(int *ivars, long *lvars, uint64_t *sig, long long *checks) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    int status[NVARS] = {0};
    size_t indices[NVARS];

    nvshmem_int_p(ivars + 3, 5, next);
    checks[0] = (long long)nvshmem_int_wait_until_any(ivars, NVARS, NULL, NVSHMEM_CMP_EQ, 5);
    checks[1] = nvshmem_int_test(ivars + 0, NVSHMEM_CMP_EQ, 5);
    checks[2] = nvshmem_int_test(ivars + 3, NVSHMEM_CMP_EQ, 5);

    /* Index 6 is written only once the reader has seen index 3 alone: a writer that ran ahead
     * could land both before the reader's scan passed index 3, and the scan would say 6. */
    nvshmem_long_p(lvars + ACK, 1, (me + n - 1) % n);
    nvshmem_long_wait_until(lvars + ACK, NVSHMEM_CMP_EQ, 1);
    nvshmem_int_p(ivars + 6, 5, next);
    status[3] = 1; /* leave index 3 out: only 6 can satisfy */
    checks[3] = (long long)nvshmem_int_wait_until_any(ivars, NVARS, status, NVSHMEM_CMP_EQ, 5);
    checks[4] =
        (long long)nvshmem_int_wait_until_some(ivars, NVARS, indices, NULL, NVSHMEM_CMP_EQ, 5);
    checks[5] = (long long)(indices[0] * 10 + indices[1]);

    for (int i = 0; i < 4; i++)
        nvshmem_long_p(lvars + i, (long)(me + 1) * 100 + i + 1, next);
    nvshmem_long_wait_until_all(lvars, 4, NULL, NVSHMEM_CMP_GT, 0);
    checks[6] = lvars[0] + lvars[1] + lvars[2] + lvars[3];

    nvshmemx_signal_op(sig, 7, NVSHMEM_SIGNAL_ADD, next);
    nvshmemx_signal_op(sig, 7, NVSHMEM_SIGNAL_ADD, next);
    checks[7] = (long long)nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 14);
    checks[8] = (long long)nvshmem_signal_fetch(sig);

    int *peer = (int *)nvshmem_ptr(ivars, next);
    checks[9] = peer != NULL;
    int got[NVARS];
    nvshmem_int_get(got, ivars, NVARS, next);
    checks[10] = got[3] * 10 + got[6];
    checks[11] = nvshmem_int_g(ivars + 6, me);
}

/* A cmp or sig_op that is none of NVSHMEM's does nothing: the test says 0, the wait returns at
 * once (a value of -1 would never satisfy NVSHMEM_CMP_LE, which an unchecked cmp fell back
 * to), the signal stays 0; checks[3] says the kernel got past all three. */
__global__ void bad_arguments(int *ivars, uint64_t *fresh_sig, long long *checks) {
    const int bad = 42;
    checks[0] = nvshmem_int_test(ivars + NVARS - 1, bad, 0);
    nvshmem_int_wait_until(ivars + NVARS - 1, bad, -1);
    nvshmemx_signal_op(fresh_sig, 7, bad, nvshmem_my_pe());
    checks[1] = (long long)nvshmem_signal_fetch(fresh_sig);
    checks[2] = (long long)nvshmem_signal_wait_until(fresh_sig, bad, 1);
    checks[3] = 1;
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int prev = (me + n - 1) % n;
    set_device_of_node_pe();
    int *ivars = (int *)nvshmem_calloc(NVARS, sizeof(int));
    long *lvars = (long *)nvshmem_calloc(ACK + 1, sizeof(long));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    long long *checks;
    CHECK_CUDA(cudaMalloc(&checks, NCHECKS * sizeof(long long)));
    CHECK_CUDA(cudaMemset(checks, 0xff, NCHECKS * sizeof(long long)));
    nvshmem_barrier_all();
    waits<<<1, 1>>>(ivars, lvars, sig, checks);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    long long got[NCHECKS];
    CHECK_CUDA(cudaMemcpy(got, checks, sizeof got, cudaMemcpyDeviceToHost));
    long long sum = 4 * (long long)(prev + 1) * 100 + 1 + 2 + 3 + 4;
    long long want[NCHECKS] = {3, 0, 1, 6, 2, 36, sum, 14, 14, 1, 55, 5};
    long bad = 0;
    for (int i = 0; i < NCHECKS; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "wait_variants: PE %d check %d: %lld, expected %lld\n", me, i, got[i],
                    want[i]);
            bad++;
        }
    uint64_t *fresh_sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    CHECK_CUDA(cudaMemset(checks, 0xff, NCHECKS * sizeof(long long)));
    bad_arguments<<<1, 1>>>(ivars, fresh_sig, checks);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got, checks, 4 * sizeof(long long), cudaMemcpyDeviceToHost));
    const long long want_bad[4] = {0, 0, 0, 1};
    for (int i = 0; i < 4; i++)
        if (got[i] != want_bad[i]) {
            fprintf(stderr, "wait_variants: PE %d bad-argument check %d: %lld, expected %lld\n", me,
                    i, got[i], want_bad[i]);
            bad++;
        }
    nvshmem_barrier_all();
    nvshmem_free(fresh_sig);
    CHECK_CUDA(cudaFree(checks));
    nvshmem_free(sig);
    nvshmem_free(lvars);
    nvshmem_free(ivars);
    nvshmem_finalize();
    return report("wait_variants", me, bad);
}
