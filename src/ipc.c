/* File-descriptor passing between processes of one node. The socket names are abstract
 * (no file left behind) and carry a job-unique value, so parallel jobs never collide. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "ipc.h"
#include "internal.h"

struct symcoll_ipc_server {
    int listener, fd, n_requests, served;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    int done, failed_errno;
};

void symcoll_ipc_name(uint64_t job, int pe, char *name, size_t len) {
    snprintf(name, len, "symcoll-%016llx-%d", (unsigned long long)job, pe);
}

static socklen_t make_address(const char *name, struct sockaddr_un *addr) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    size_t n = strlen(name);
    if (n > sizeof addr->sun_path - 2)
        n = sizeof addr->sun_path - 2;
    memcpy(addr->sun_path + 1, name, n); /* leading NUL: abstract namespace */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int send_fd(int sock, int fd) {
    char byte = 'F';
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static void *serve_loop(void *arg) {
    symcoll_ipc_server_t *s = arg;
    int failed = 0;
    while (s->served < s->n_requests) {
        int client = accept(s->listener, NULL, NULL);
        if (client < 0) {
            if (errno == EINTR)
                continue;
            failed = errno;
            break;
        }
        if (send_fd(client, s->fd) != 0)
            failed = errno;
        close(client);
        if (failed)
            break;
        /* Read by symcoll_ipc_serve_finish for its message after a timeout. */
        pthread_mutex_lock(&s->lock);
        s->served++;
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
    s->done = 1;
    s->failed_errno = failed;
    pthread_cond_signal(&s->done_cond);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

symcoll_status_t symcoll_ipc_serve(const char *name, int fd, int n_requests,
                                   symcoll_ipc_server_t **out) {
    *out = NULL;
    symcoll_ipc_server_t *s = calloc(1, sizeof *s);
    if (!s)
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "ipc: out of host memory");
    s->fd = fd;
    s->n_requests = n_requests;
    s->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr;
    socklen_t len = make_address(name, &addr);
    if (s->listener < 0 || bind(s->listener, (struct sockaddr *)&addr, len) != 0 ||
        listen(s->listener, n_requests + 1) != 0) {
        int err = errno;
        if (s->listener >= 0)
            close(s->listener);
        free(s);
        return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "ipc: cannot listen on @%s: %s", name,
                                 strerror(err));
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->done_cond, NULL);
    if (pthread_create(&s->thread, NULL, serve_loop, s) != 0) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->done_cond);
        close(s->listener);
        free(s);
        return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "ipc: cannot start the server thread");
    }
    *out = s;
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_ipc_serve_finish(symcoll_ipc_server_t *s, int timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    while (!s->done && rc == 0)
        rc = pthread_cond_timedwait(&s->done_cond, &s->lock, &deadline);
    int done = s->done, failed = s->failed_errno, served = s->served;
    pthread_mutex_unlock(&s->lock);
    /* shutdown wakes a thread blocked in accept, so it can always be joined. */
    shutdown(s->listener, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->listener);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->done_cond);
    int n = s->n_requests;
    free(s);
    if (!done)
        return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                 "ipc: only %d of %d peers fetched the heap handle within %d ms",
                                 served, n, timeout_ms);
    if (failed)
        return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "ipc: serving the heap handle failed: %s",
                                 strerror(failed));
    return SYMCOLL_SUCCESS;
}

static int receive_fd(int sock, int timeout_ms) {
    struct pollfd p = {sock, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) != 1)
        return -1;
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

symcoll_status_t symcoll_ipc_fetch(const char *name, int timeout_ms, int *fd) {
    struct sockaddr_un addr;
    socklen_t len = make_address(name, &addr);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0)
            return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "ipc: socket: %s", strerror(errno));
        if (connect(sock, (struct sockaddr *)&addr, len) == 0) {
            *fd = receive_fd(sock, timeout_ms);
            close(sock);
            if (*fd < 0)
                return symcoll_set_error(SYMCOLL_ERROR_SYSTEM,
                                         "ipc: no file descriptor received from @%s", name);
            return SYMCOLL_SUCCESS;
        }
        int err = errno;
        close(sock);
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if ((err != ECONNREFUSED && err != ENOENT && err != EAGAIN) || elapsed > timeout_ms)
            return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "ipc: cannot connect to @%s: %s", name,
                                     strerror(err));
        usleep(1000);
    }
}
