/* The UCX transport's state, shared by its files (not seen outside src/transport/ucx). */
#ifndef SYMCOLL_UCX_INTERNAL_H
#define SYMCOLL_UCX_INTERNAL_H

#include "ucx_lib.h"
#include "ucx_transport.h"

struct symcoll_ucx;

/* One remote PE. The endpoint's error handler records failure, so a wait can say that the
 * PE's connection broke rather than only that it timed out. */
typedef struct {
    struct symcoll_ucx *t;
    int pe;
    ucp_ep_h ep;       /* NULL: not connected */
    bool peer_failure; /* made with peer error handling (needed to close it by force) */
    ucs_status_t failure;
} symcoll_ucx_peer_t;

/* A request of a non-blocking put or get, until a quiet completes it. */
typedef struct {
    void *request;
    const char *call;
    int pe;
} symcoll_ucx_pending_t;

struct symcoll_ucx_region {
    struct symcoll_ucx_region *next; /* the transport's list of mapped regions */
    char *base;
    size_t bytes;
    ucp_mem_h memh;
    symcoll_ucx_memory_t memory;
    uint64_t *remote_base;  /* per PE: its region's address */
    uint64_t *remote_bytes; /* per PE: its region's size */
    ucp_rkey_h *rkeys;      /* per PE: NULL where not connected */
};

struct symcoll_ucx {
    symcoll_ucx_lib_t lib;
    symcoll_bootstrap_t *boot;
    uint64_t timeout_ms;
    ucp_context_h context;
    ucp_worker_h worker;
    symcoll_ucx_capabilities_t caps;
    symcoll_ucx_peer_t *peers; /* boot->size entries */
    symcoll_ucx_pending_t *pending;
    size_t n_pending, pending_capacity;
    struct symcoll_ucx_region *regions;
    bool messages_registered;                 /* on_message's dispatcher, with UCX */
    symcoll_ucx_message_handler_t on_message; /* NULL: none */
    void *on_message_arg;
};

/* ---- context and worker (ucx_context.c) ---- */
symcoll_status_t symcoll_ucx_context_open(symcoll_ucx_t *t);
void symcoll_ucx_context_close(symcoll_ucx_t *t);

/* ---- TCP segments (ucx_tcp_segments.c) ---- */
/* symcoll's segment sizes into config, unless UCX_TCP_TX_SEG_SIZE or UCX_TCP_RX_SEG_SIZE is set
 * in the environment (one in a ucx.conf file is not seen, and is overridden) or UCX may open no
 * TCP interface (symcoll_ucx_may_use_tcp); t->caps.tcp_segments says which. */
symcoll_status_t symcoll_ucx_set_tcp_segments(symcoll_ucx_t *t, ucp_config_t *config);

/* ---- endpoints (ucx_wireup.c) ---- */
/* Collective: worker addresses over the bootstrap, an endpoint to each PE of connect_to. */
symcoll_status_t symcoll_ucx_connect(symcoll_ucx_t *t, const bool *connect_to);

/* ---- requests (ucx_requests.c) ---- */
/* SUCCESS where PE pe is a connected PE (symcoll_ucx_connected), else INVALID_ARGUMENT naming
 * fn and pe. */
symcoll_status_t symcoll_ucx_check_connected(const symcoll_ucx_t *t, const char *fn, int pe);
/* The deadline timeout_ms from now; UINT64_MAX when the timeout is 0 (never). */
uint64_t symcoll_ucx_deadline(const symcoll_ucx_t *t);
/* Waits for the outcome of a UCX call that returned sp (NULL: done, an error, or a request
 * it then frees), progressing the worker until deadline. */
symcoll_status_t symcoll_ucx_wait(symcoll_ucx_t *t, ucs_status_ptr_t sp, const char *call, int pe,
                                  uint64_t deadline);
/* Keeps the request of a non-blocking call for the next quiet (an error fails now). */
symcoll_status_t symcoll_ucx_track(symcoll_ucx_t *t, ucs_status_ptr_t sp, const char *call, int pe);
/* Flushes PE pe's endpoint: everything issued to it is complete at the target. */
symcoll_status_t symcoll_ucx_flush_pe(symcoll_ucx_t *t, int pe, uint64_t deadline);
/* UNSUPPORTED, naming what, for CUDA memory where this UCX cannot take it. */
symcoll_status_t symcoll_ucx_check_memory(const symcoll_ucx_t *t, const char *fn, const char *what,
                                          symcoll_ucx_memory_t memory);
/* Frees every tracked request, complete or not (UCX releases an unfinished one when it
 * finishes or its endpoint is closed). */
void symcoll_ucx_drop_pending(symcoll_ucx_t *t);

#endif
