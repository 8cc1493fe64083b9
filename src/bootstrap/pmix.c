/* PMIx bootstrap: Put/Commit/Fence/Get through libpmix.so.2 opened with dlopen. Needs no GPU,
 * so heap symmetry and allocator logic are testable under mpirun on a CPU-only machine.
 *
 * PMIx keeps every key a rank has put and sends them all again at each collecting fence, and
 * a key cannot be put twice safely (a Get may return an older value of another size). So an
 * exchange over PMIx costs more the more exchanges came before it: with 2 ranks 0.4 ms at first,
 * 39 ms after 1,200 (each symcoll_malloc and symcoll_free is one). When every rank is on this
 * host, PMIx serves one exchange only: the name of an abstract Unix socket on which rank 0
 * relays every later exchange (the socket bootstrap of symcoll-run), at a constant cost. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bootstrap.h"
#include "internal.h"

int symcoll_bootstrap_pmix_detected(void) {
    return getenv("PMIX_RANK") != NULL || getenv("PMIX_NAMESPACE") != NULL;
}

#ifndef SYMCOLL_HAVE_PMIX_HEADERS

symcoll_status_t symcoll_bootstrap_pmix_create(uint64_t timeout_ms, symcoll_bootstrap_t **out) {
    (void)timeout_ms;
    *out = NULL;
    return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                             "PMIx bootstrap: this build of symcoll has no PMIx headers");
}

symcoll_status_t symcoll_bootstrap_pmix_share(symcoll_bootstrap_t *b, void *data, size_t bytes) {
    (void)b, (void)data, (void)bytes;
    return SYMCOLL_ERROR_UNSUPPORTED;
}

#else
#include <pmix.h>

typedef struct {
    void *lib;
    pmix_proc_t me;
    unsigned long sequence;
    uint64_t timeout_ms;        /* SYMCOLL_INIT_TIMEOUT_MS: each fence's limit */
    symcoll_bootstrap_t *relay; /* the socket bootstrap when every rank is on this host */
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t *, size_t);
    pmix_status_t (*finalize)(const pmix_info_t *, size_t);
    pmix_status_t (*put)(pmix_scope_t, const pmix_key_t, pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);
    pmix_status_t (*get)(const pmix_proc_t *, const pmix_key_t, const pmix_info_t *, size_t,
                         pmix_value_t **);
    void (*value_destruct)(pmix_value_t *);
} pmix_impl_t;

static void release_value(pmix_impl_t *p, pmix_value_t *v) {
    if (p->value_destruct)
        p->value_destruct(v);
    free(v);
}

static symcoll_status_t pmix_fail(const char *what, pmix_status_t rc) {
    return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP, "PMIx bootstrap: %s failed (status %d)", what,
                             (int)rc);
}

/* A fence of every rank that gives up after the timeout (PMIX_TIMEOUT, whole seconds): a rank
 * that died or stopped calling must not hang the others. */
static symcoll_status_t pmix_fence_all(pmix_impl_t *p) {
    pmix_proc_t all;
    memset(&all, 0, sizeof all);
    memcpy(all.nspace, p->me.nspace, sizeof all.nspace);
    all.rank = PMIX_RANK_WILDCARD;
    pmix_info_t limit;
    memset(&limit, 0, sizeof limit);
    snprintf(limit.key, sizeof limit.key, "%s", PMIX_TIMEOUT);
    limit.value.type = PMIX_INT;
    uint64_t seconds = (p->timeout_ms + 999) / 1000;
    limit.value.data.integer = seconds > INT32_MAX ? INT32_MAX : (int)seconds;
    pmix_status_t rc = p->fence(&all, 1, &limit, 1);
    if (rc == PMIX_ERR_TIMEOUT)
        return symcoll_set_error(
            SYMCOLL_ERROR_TIMEOUT,
            "PMIx bootstrap: a fence waited %d s (SYMCOLL_INIT_TIMEOUT_MS=%llu) "
            "for the other ranks: one has died or stopped calling",
            limit.value.data.integer, (unsigned long long)p->timeout_ms);
    return rc == PMIX_SUCCESS ? SYMCOLL_SUCCESS : pmix_fail("PMIx_Fence", rc);
}

static symcoll_status_t pmix_put_bytes(pmix_impl_t *p, const char *key, const void *data,
                                       size_t bytes) {
    pmix_value_t value;
    memset(&value, 0, sizeof value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)data;
    value.data.bo.size = bytes;
    pmix_status_t rc = p->put(PMIX_GLOBAL, key, &value);
    if (rc != PMIX_SUCCESS)
        return pmix_fail("PMIx_Put", rc);
    rc = p->commit();
    return rc == PMIX_SUCCESS ? SYMCOLL_SUCCESS : pmix_fail("PMIx_Commit", rc);
}

static symcoll_status_t pmix_get_bytes(pmix_impl_t *p, int rank, const char *key, void *data,
                                       size_t bytes) {
    pmix_proc_t proc;
    memset(&proc, 0, sizeof proc);
    memcpy(proc.nspace, p->me.nspace, sizeof proc.nspace);
    proc.rank = (pmix_rank_t)rank;
    pmix_value_t *value = NULL;
    pmix_status_t rc = p->get(&proc, key, NULL, 0, &value);
    if (rc != PMIX_SUCCESS || !value)
        return pmix_fail("PMIx_Get", rc);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (value->type != PMIX_BYTE_OBJECT || value->data.bo.size != bytes)
        st = symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                               "PMIx bootstrap: rank %d published %zu bytes under %s, expected "
                               "%zu",
                               rank, (size_t)value->data.bo.size, key, bytes);
    else
        memcpy(data, value->data.bo.bytes, bytes);
    release_value(p, value);
    return st;
}

static symcoll_status_t pmix_allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                       size_t bytes) {
    pmix_impl_t *p = b->impl;
    if (p->relay)
        return p->relay->allgather(p->relay, mine, all, bytes);
    char key[PMIX_MAX_KEYLEN];
    snprintf(key, sizeof key, "symcoll.ag.%lu", p->sequence++);
    symcoll_status_t st = pmix_put_bytes(p, key, mine, bytes);
    if (st == SYMCOLL_SUCCESS)
        st = pmix_fence_all(p);
    for (int r = 0; r < b->size && st == SYMCOLL_SUCCESS; r++)
        st = pmix_get_bytes(p, r, key, (char *)all + (size_t)r * bytes, bytes);
    return st;
}

static symcoll_status_t pmix_barrier(symcoll_bootstrap_t *b) {
    pmix_impl_t *p = b->impl;
    return p->relay ? p->relay->barrier(p->relay) : pmix_fence_all(p);
}

symcoll_status_t symcoll_bootstrap_pmix_share(symcoll_bootstrap_t *b, void *data, size_t bytes) {
    pmix_impl_t *p = b->impl;
    char key[PMIX_MAX_KEYLEN];
    snprintf(key, sizeof key, "symcoll.share.%lu", p->sequence++);
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (b->rank == 0)
        st = pmix_put_bytes(p, key, data, bytes);
    if (st == SYMCOLL_SUCCESS)
        st = pmix_fence_all(p);
    if (st == SYMCOLL_SUCCESS && b->rank != 0)
        st = pmix_get_bytes(p, 0, key, data, bytes);
    return st;
}

static void pmix_destroy(symcoll_bootstrap_t *b, int abort) {
    pmix_impl_t *p = b->impl;
    if (p->relay)
        p->relay->destroy(p->relay, abort);
    p->finalize(NULL, 0);
    dlclose(p->lib);
    free(p);
    free(b);
}

static int get_uint(pmix_impl_t *p, pmix_rank_t rank, const char *key, long *out) {
    pmix_proc_t proc;
    memset(&proc, 0, sizeof proc);
    memcpy(proc.nspace, p->me.nspace, sizeof proc.nspace);
    proc.rank = rank;
    pmix_value_t *v = NULL;
    if (p->get(&proc, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    int ok = 0;
    switch (v->type) {
    case PMIX_UINT16:
        *out = v->data.uint16;
        break;
    case PMIX_UINT32:
        *out = v->data.uint32;
        break;
    case PMIX_INT:
        *out = v->data.integer;
        break;
    default:
        ok = -1;
    }
    release_value(p, v);
    return ok;
}

/* Every rank is on this host: rank 0 names a socket for this job (a hash of its namespace, which
 * may be long or hold any character, and rank 0's pid), PMIx carries the name, and the socket
 * bootstrap takes every later exchange. */
static symcoll_status_t start_relay(symcoll_bootstrap_t *b) {
    pmix_impl_t *p = b->impl;
    char name[64] = {0};
    if (b->rank == 0) {
        uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
        for (const char *c = p->me.nspace; *c && c < p->me.nspace + sizeof p->me.nspace; c++)
            hash = (hash ^ (unsigned char)*c) * 0x100000001b3ull;
        snprintf(name, sizeof name, "symcoll-pmix.%016llx.%ld", (unsigned long long)hash,
                 (long)getpid());
    }
    symcoll_status_t st = symcoll_bootstrap_pmix_share(b, name, sizeof name);
    if (st == SYMCOLL_SUCCESS)
        st = symcoll_bootstrap_socket_create(name, b->rank, b->size, p->timeout_ms, &p->relay);
    return st;
}

symcoll_status_t symcoll_bootstrap_pmix_create(uint64_t timeout_ms, symcoll_bootstrap_t **out) {
    *out = NULL;
    void *lib = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        return symcoll_set_error(SYMCOLL_ERROR_UNSUPPORTED,
                                 "PMIx bootstrap: cannot open libpmix.so.2: %s", dlerror());
    pmix_impl_t *p = calloc(1, sizeof *p);
    symcoll_bootstrap_t *b = calloc(1, sizeof *b);
    if (!p || !b) {
        free(p);
        free(b);
        dlclose(lib);
        return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY, "PMIx bootstrap: out of memory");
    }
    p->lib = lib;
    p->timeout_ms = timeout_ms;
    *(void **)&p->init = dlsym(lib, "PMIx_Init");
    *(void **)&p->finalize = dlsym(lib, "PMIx_Finalize");
    *(void **)&p->put = dlsym(lib, "PMIx_Put");
    *(void **)&p->commit = dlsym(lib, "PMIx_Commit");
    *(void **)&p->fence = dlsym(lib, "PMIx_Fence");
    *(void **)&p->get = dlsym(lib, "PMIx_Get");
    *(void **)&p->value_destruct = dlsym(lib, "PMIx_Value_destruct");
    pmix_status_t rc = PMIX_ERROR;
    if (p->init && p->finalize && p->put && p->commit && p->fence && p->get)
        rc = p->init(&p->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        dlclose(lib);
        free(p);
        free(b);
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP,
                                 "PMIx bootstrap: PMIx_Init failed (status %d): not launched "
                                 "by a PMIx launcher such as mpirun?",
                                 (int)rc);
    }
    long size = -1, local_rank = -1, local_size = -1;
    get_uint(p, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size);
    get_uint(p, p->me.rank, PMIX_LOCAL_RANK, &local_rank);
    get_uint(p, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &local_size);
    b->name = "pmix";
    b->rank = (int)p->me.rank;
    b->size = (int)size;
    b->local_rank = (int)local_rank;
    b->local_size = (int)local_size;
    b->allgather = pmix_allgather;
    b->barrier = pmix_barrier;
    b->destroy = pmix_destroy;
    b->impl = p;
    if (size <= 0) {
        pmix_destroy(b, 1);
        return symcoll_set_error(SYMCOLL_ERROR_BOOTSTRAP, "PMIx bootstrap: no job size");
    }
    symcoll_status_t st = local_size == size && size > 1 ? start_relay(b) : SYMCOLL_SUCCESS;
    if (st != SYMCOLL_SUCCESS) {
        pmix_destroy(b, 1);
        return st;
    }
    *out = b;
    return SYMCOLL_SUCCESS;
}
#endif
