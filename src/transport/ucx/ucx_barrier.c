/* A barrier that keeps the worker progressing while the bootstrap blocks, so that another PE's
 * transfer to this one (which over TCP completes only when this PE progresses) can finish. */
#include <pthread.h>
#include <stdatomic.h>
#include "internal.h"
#include "ucx_internal.h"

typedef struct {
    symcoll_ucx_t *t;
    atomic_bool stop;
} progress_thread_t;

static void *progress_until_stopped(void *arg) {
    progress_thread_t *p = arg;
    while (!atomic_load_explicit(&p->stop, memory_order_acquire))
        p->t->lib.ucp_worker_progress(p->t->worker);
    return NULL;
}

symcoll_status_t symcoll_ucx_barrier(symcoll_ucx_t *t) {
    symcoll_status_t st = symcoll_ucx_quiet(t);
    progress_thread_t progress = {.t = t};
    atomic_init(&progress.stop, false);
    pthread_t thread;
    int err = pthread_create(&thread, NULL, progress_until_stopped, &progress);
    if (st == SYMCOLL_SUCCESS && err != 0)
        st = symcoll_set_error(SYMCOLL_ERROR_SYSTEM,
                               "symcoll_ucx_barrier: pthread_create failed (error %d)", err);
    /* The agreement is the barrier: every PE's status, so that a PE whose quiet or thread
     * failed fails the barrier everywhere. It runs even without the thread: every PE must
     * join it. */
    st = symcoll_bootstrap_agree(t->boot, "symcoll_ucx_barrier", st);
    if (err == 0) {
        atomic_store_explicit(&progress.stop, true, memory_order_release);
        pthread_join(thread, NULL);
    }
    return st;
}
