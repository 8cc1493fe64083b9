/* Socket bootstrap for PEs of one host that symcoll-run started: PE 0 listens on the abstract
 * Unix socket the launcher named (SYMCOLL_BOOTSTRAP_SOCKET), the others connect to it, and PE
 * 0 relays every exchange. It needs neither NCCL nor a GPU of one's own, so it serves PEs that
 * share a GPU, where NCCL refuses to form a communicator. Only processes of this user may
 * join (the socket's peer credentials). Every wait gives up at the deadline of its exchange, and a
 * PE that fails closes its connections, so that the others fail at once instead of waiting for it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "bootstrap.h"
#include "internal.h"

#define SOCKET_MAGIC 0x53594d43u /* "SYMC" */

typedef struct {
    uint32_t magic;
    int32_t rank, size;
} hello_t;

typedef struct {
    uint64_t seq, bytes;
} header_t;

typedef struct {
    int *fds; /* PE 0: one connection per PE (fds[0] unused); others: fds[0] to PE 0 */
    int n_fds;
    uint64_t seq; /* exchanges so far: PEs out of step are named, not mixed up */
    uint64_t timeout_ms;
    int broken;
} socket_impl_t;

static socket_impl_t *impl_of(symcoll_bootstrap_t *b) {
    return (socket_impl_t *)b->impl;
}

/* An abstract address (no file to remove; the name is private to the job): a NUL, then the
 * name, cut to what sun_path holds (the names symcoll-run and the PMIx relay make are far
 * shorter). */
static socklen_t make_address(const char *name, struct sockaddr_un *addr) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    size_t len = strnlen(name, sizeof addr->sun_path - 1);
    memcpy(addr->sun_path + 1, name, len);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

typedef enum { IO_DONE, IO_TIMEOUT, IO_CLOSED, IO_FAILED } io_result_t;

/* Moves all len bytes, or gives up at deadline_ms. */
static io_result_t move_bytes(int fd, void *buf, size_t len, int sending, uint64_t deadline_ms) {
    char *p = buf;
    while (len > 0) {
        uint64_t now = symcoll_bootstrap_now_ms();
        if (now >= deadline_ms)
            return IO_TIMEOUT;
        struct pollfd pfd = {.fd = fd, .events = sending ? POLLOUT : POLLIN};
        int ready = poll(&pfd, 1, (int)(deadline_ms - now < 1000 ? deadline_ms - now : 1000));
        if (ready < 0 && errno != EINTR)
            return IO_FAILED;
        if (ready <= 0)
            continue;
        ssize_t n = sending ? send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL)
                            : recv(fd, p, len, MSG_DONTWAIT);
        if (n == 0)
            return IO_CLOSED;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                continue;
            return errno == ECONNRESET || errno == EPIPE ? IO_CLOSED : IO_FAILED;
        }
        p += n;
        len -= (size_t)n;
    }
    return IO_DONE;
}

static void close_all(socket_impl_t *p) {
    for (int i = 0; i < p->n_fds; i++)
        if (p->fds[i] >= 0) {
            close(p->fds[i]);
            p->fds[i] = -1;
        }
    p->broken = 1;
}

/* The error of a failed transfer with PE pe; the connections are closed so that every other
 * PE fails at once too. */
static symcoll_status_t io_error(socket_impl_t *p, io_result_t r, int pe, const char *what) {
    int saved = errno;
    close_all(p);
    switch (r) {
    case IO_TIMEOUT:
        return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                 "socket bootstrap: %s PE %d did not finish within %llu ms "
                                 "(SYMCOLL_INIT_TIMEOUT_MS): a PE is missing or stopped calling "
                                 "symcoll?",
                                 what, pe, (unsigned long long)p->timeout_ms);
    case IO_CLOSED:
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "socket bootstrap: %s PE %d: the connection closed (that PE "
                                 "failed or ended)",
                                 what, pe);
    default:
        return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "socket bootstrap: %s PE %d: %s", what, pe,
                                 strerror(saved));
    }
}

static symcoll_status_t root_allgather(symcoll_bootstrap_t *b, socket_impl_t *p, uint64_t deadline,
                                       size_t bytes, char *all) {
    for (int pe = 1; pe < b->size; pe++) {
        header_t h;
        io_result_t r = move_bytes(p->fds[pe], &h, sizeof h, 0, deadline);
        if (r != IO_DONE)
            return io_error(p, r, pe, "waiting for");
        if (h.seq != p->seq || h.bytes != bytes) {
            close_all(p);
            return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                     "socket bootstrap: PE %d made exchange %llu of %llu bytes "
                                     "where PE 0 made exchange %llu of %zu bytes: the PEs call "
                                     "symcoll's collective functions in a different order",
                                     pe, (unsigned long long)h.seq, (unsigned long long)h.bytes,
                                     (unsigned long long)p->seq, bytes);
        }
        r = move_bytes(p->fds[pe], all + (size_t)pe * bytes, bytes, 0, deadline);
        if (r != IO_DONE)
            return io_error(p, r, pe, "receiving from");
    }
    /* The header goes back too: with no bytes, it is what ends a peer's barrier. */
    header_t reply = {.seq = p->seq, .bytes = bytes};
    for (int pe = 1; pe < b->size; pe++) {
        io_result_t r = move_bytes(p->fds[pe], &reply, sizeof reply, 1, deadline);
        if (r == IO_DONE)
            r = move_bytes(p->fds[pe], all, (size_t)b->size * bytes, 1, deadline);
        if (r != IO_DONE)
            return io_error(p, r, pe, "sending to");
    }
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t peer_allgather(symcoll_bootstrap_t *b, socket_impl_t *p, uint64_t deadline,
                                       const void *mine, size_t bytes, char *all) {
    header_t h = {.seq = p->seq, .bytes = bytes};
    io_result_t r = move_bytes(p->fds[0], &h, sizeof h, 1, deadline);
    if (r == IO_DONE)
        r = move_bytes(p->fds[0], (void *)mine, bytes, 1, deadline);
    header_t reply = {0};
    if (r == IO_DONE)
        r = move_bytes(p->fds[0], &reply, sizeof reply, 0, deadline);
    if (r != IO_DONE)
        return io_error(p, r, 0, "exchanging with");
    if (reply.seq != h.seq || reply.bytes != h.bytes) {
        close_all(p);
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "socket bootstrap: PE 0 answered exchange %llu of %llu bytes to "
                                 "exchange %llu of %zu bytes",
                                 (unsigned long long)reply.seq, (unsigned long long)reply.bytes,
                                 (unsigned long long)h.seq, bytes);
    }
    r = move_bytes(p->fds[0], all, (size_t)b->size * bytes, 0, deadline);
    return r == IO_DONE ? SYMCOLL_SUCCESS : io_error(p, r, 0, "receiving from");
}

static symcoll_status_t socket_allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                         size_t bytes) {
    socket_impl_t *p = impl_of(b);
    if (p->broken)
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "socket bootstrap: an earlier exchange failed; the job's "
                                 "connections are closed");
    uint64_t deadline = symcoll_bootstrap_now_ms() + p->timeout_ms;
    if (bytes)
        memcpy((char *)all + (size_t)b->rank * bytes, mine, bytes);
    symcoll_status_t st = b->rank == 0 ? root_allgather(b, p, deadline, bytes, all)
                                       : peer_allgather(b, p, deadline, mine, bytes, all);
    p->seq++;
    return st;
}

static symcoll_status_t socket_barrier(symcoll_bootstrap_t *b) {
    char nothing = 0;
    return socket_allgather(b, &nothing, &nothing, 0);
}

static void socket_destroy(symcoll_bootstrap_t *b, int abort) {
    (void)abort;
    socket_impl_t *p = impl_of(b);
    close_all(p);
    free(p->fds);
    free(p);
    free(b);
}

/* An abstract socket has no permissions: a process of another user may connect. */
static int from_this_user(int fd) {
    struct ucred peer;
    socklen_t len = sizeof peer;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == geteuid();
}

static symcoll_status_t accept_peers(symcoll_bootstrap_t *b, socket_impl_t *p, int listener,
                                     uint64_t deadline) {
    for (int accepted = 1; accepted < b->size;) {
        struct pollfd pfd = {.fd = listener, .events = POLLIN};
        for (;;) {
            uint64_t now = symcoll_bootstrap_now_ms();
            if (now >= deadline)
                return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                         "socket bootstrap: %d of %d PEs connected to PE 0 "
                                         "within %llu ms (SYMCOLL_INIT_TIMEOUT_MS)",
                                         accepted, b->size, (unsigned long long)p->timeout_ms);
            int ready = poll(&pfd, 1, (int)(deadline - now < 1000 ? deadline - now : 1000));
            if (ready > 0)
                break;
            if (ready < 0 && errno != EINTR)
                return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "socket bootstrap: poll: %s",
                                         strerror(errno));
        }
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "socket bootstrap: accept: %s",
                                     strerror(errno));
        if (!from_this_user(fd)) {
            symcoll_debug(SYMCOLL_LOG_WARN,
                          "socket bootstrap: PE 0 closed a connection from another user");
            close(fd);
            continue;
        }
        hello_t hello;
        io_result_t r = move_bytes(fd, &hello, sizeof hello, 0, deadline);
        int valid = r == IO_DONE && hello.magic == SOCKET_MAGIC && hello.size == b->size &&
                    hello.rank > 0 && hello.rank < b->size && p->fds[hello.rank] < 0;
        if (!valid) {
            close(fd);
            return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                     "socket bootstrap: PE 0 of %d got a connection that is no "
                                     "PE of this job (rank %d of %d), or a rank twice",
                                     b->size, r == IO_DONE ? hello.rank : -1,
                                     r == IO_DONE ? hello.size : -1);
        }
        p->fds[hello.rank] = fd;
        accepted++;
    }
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t listen_and_accept(symcoll_bootstrap_t *b, socket_impl_t *p,
                                          const char *name, uint64_t deadline) {
    struct sockaddr_un addr;
    socklen_t len = make_address(name, &addr);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
        return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "socket bootstrap: socket: %s",
                                 strerror(errno));
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (bind(listener, (struct sockaddr *)&addr, len) != 0 || listen(listener, b->size) != 0)
        st = symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                               "socket bootstrap: PE 0 cannot listen on SYMCOLL_BOOTSTRAP_SOCKET "
                               "\"%s\": %s (another job of that name?)",
                               name, strerror(errno));
    else
        st = accept_peers(b, p, listener, deadline);
    close(listener);
    return st;
}

/* PE 0 may not listen yet: retries until the deadline. */
static symcoll_status_t connect_to_root(symcoll_bootstrap_t *b, socket_impl_t *p, const char *name,
                                        uint64_t deadline) {
    struct sockaddr_un addr;
    socklen_t len = make_address(name, &addr);
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return symcoll_set_error(SYMCOLL_ERROR_SYSTEM, "socket bootstrap: socket: %s",
                                     strerror(errno));
        if (connect(fd, (struct sockaddr *)&addr, len) == 0) {
            hello_t hello = {.magic = SOCKET_MAGIC, .rank = b->rank, .size = b->size};
            p->fds[0] = fd;
            io_result_t r = move_bytes(fd, &hello, sizeof hello, 1, deadline);
            return r == IO_DONE ? SYMCOLL_SUCCESS : io_error(p, r, 0, "connecting to");
        }
        int saved = errno;
        close(fd);
        if (saved != ECONNREFUSED && saved != ENOENT && saved != EAGAIN)
            return symcoll_set_error(SYMCOLL_ERROR_SYSTEM,
                                     "socket bootstrap: connecting to PE 0 on \"%s\": %s", name,
                                     strerror(saved));
        if (symcoll_bootstrap_now_ms() >= deadline)
            return symcoll_set_error(SYMCOLL_ERROR_TIMEOUT,
                                     "socket bootstrap: PE 0 did not listen on \"%s\" within %llu "
                                     "ms (SYMCOLL_INIT_TIMEOUT_MS)",
                                     name, (unsigned long long)p->timeout_ms);
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
}

symcoll_status_t symcoll_bootstrap_socket_create(const char *name, int rank, int size,
                                                 uint64_t timeout_ms, symcoll_bootstrap_t **out) {
    symcoll_bootstrap_t *b = calloc(1, sizeof *b);
    socket_impl_t *p = calloc(1, sizeof *p);
    int n_fds = rank == 0 ? size : 1;
    int *fds = malloc((size_t)n_fds * sizeof *fds);
    if (!b || !p || !fds) {
        free(b);
        free(p);
        free(fds);
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                 "socket bootstrap: out of host memory");
    }
    for (int i = 0; i < n_fds; i++)
        fds[i] = -1;
    *p = (socket_impl_t){.fds = fds, .n_fds = n_fds, .timeout_ms = timeout_ms};
    *b = (symcoll_bootstrap_t){
        .name = "socket",
        .rank = rank,
        .size = size,
        .local_rank = -1,
        .local_size = -1,
        .allgather = socket_allgather,
        .barrier = socket_barrier,
        .destroy = socket_destroy,
        .impl = p,
    };
    uint64_t deadline = symcoll_bootstrap_now_ms() + timeout_ms;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (size > 1)
        st = rank == 0 ? listen_and_accept(b, p, name, deadline)
                       : connect_to_root(b, p, name, deadline);
    /* Creation ends together: a PE that never connected fails it on every PE. */
    if (st == SYMCOLL_SUCCESS)
        st = socket_barrier(b);
    if (st != SYMCOLL_SUCCESS) {
        socket_destroy(b, 1);
        return st;
    }
    *out = b;
    return SYMCOLL_SUCCESS;
}
