/* See proxy_fixture.h. The UCX transport is a stand-in whose puts and flushes complete at
 * once (the proxy puts its count of applied records back to the sender, and its staged chunks
 * to PE 0). */
#include "proxy_fixture.h"
#include <stdlib.h>
#include <string.h>
#include "transport/proxy/proxy_internal.h"
#include "transport/ucx/ucx_internal.h"

enum { SLOT_BYTES = 4096, SLOTS = 3, RECORDS = 64, STAGED = 8, REQUESTS = 16 };

struct proxy_fixture {
    symcoll_bootstrap_t boot;
    symcoll_ucx_peer_t peers[2];
    uint64_t remote_base[2], remote_bytes[2];
    ucp_rkey_h rkeys[2];
    symcoll_ucx_region_t region;
    symcoll_ucx_t t;
    symcoll_proxy_t p;
    proxy_source_t sources[2];
    proxy_target_t targets[2];
    proxy_entry_t ring[REQUESTS];
    void *sends[RECORDS];
    uint64_t arrived[RECORDS];
    proxy_record_t records[STAGED]; /* as PE 0 staged them */
    unsigned char data[STAGED][64];
    unsigned char *heap;
};

static ucs_status_ptr_t put_done(ucp_ep_h ep, const void *buffer, size_t count,
                                 uint64_t remote_addr, ucp_rkey_h rkey,
                                 const ucp_request_param_t *param) {
    (void)ep, (void)buffer, (void)count, (void)remote_addr, (void)rkey, (void)param;
    return NULL;
}

static ucs_status_ptr_t flush_done(ucp_ep_h ep, const ucp_request_param_t *param) {
    (void)ep, (void)param;
    return NULL;
}

static symcoll_status_t copy_in(void *context, void *gpu, const void *host, size_t bytes) {
    (void)context;
    memcpy(gpu, host, bytes);
    return SYMCOLL_SUCCESS;
}

static symcoll_status_t set_word(void *context, uint64_t *word, uint64_t value,
                                 symcoll_ucx_signal_op_t op) {
    (void)context;
    *word = op == SYMCOLL_UCX_SIGNAL_SET ? value : *word + value;
    return SYMCOLL_SUCCESS;
}

proxy_fixture_t *proxy_fixture_create(size_t heap_bytes) {
    proxy_fixture_t *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    proxy_layout_t *l = &f->p.layout;
    *l = (proxy_layout_t){.slot_bytes = SLOT_BYTES,
                          .ring_bytes = SLOTS * SLOT_BYTES,
                          .slots = SLOTS,
                          .records = RECORDS,
                          .n_pes = 2};
    l->box_bytes = proxy_count(l) + 64;
    f->p.host_bytes = 4 * l->box_bytes;
    f->p.host = aligned_alloc(64, f->p.host_bytes);
    f->heap = malloc(heap_bytes);
    if (!f->p.host || !f->heap) {
        proxy_fixture_destroy(f);
        return NULL;
    }
    memset(f->p.host, 0, f->p.host_bytes);
    memset(f->heap, 0xee, heap_bytes);
    f->boot = (symcoll_bootstrap_t){.name = "fixture", .rank = 1, .size = 2};
    f->peers[0].ep = (ucp_ep_h)f; /* connected: never dereferenced by the stand-in */
    f->remote_bytes[0] = f->p.host_bytes;
    f->region = (symcoll_ucx_region_t){.base = f->p.host,
                                       .bytes = f->p.host_bytes,
                                       .memory = SYMCOLL_UCX_MEMORY_HOST,
                                       .remote_base = f->remote_base,
                                       .remote_bytes = f->remote_bytes,
                                       .rkeys = f->rkeys};
    f->t.boot = &f->boot;
    f->t.peers = f->peers;
    f->t.lib.ucp_put_nbx = put_done;
    f->t.lib.ucp_ep_flush_nbx = flush_done;
    f->sources[0].arrived = f->arrived;
    f->p.boot = &f->boot;
    f->p.t = &f->t;
    f->p.region = &f->region;
    f->p.heap = (char *)f->heap;
    f->p.heap_bytes = heap_bytes;
    f->p.sources = f->sources;
    f->targets[0].sends = f->sends;
    f->p.targets = f->targets;
    f->p.ring = f->ring;
    f->p.ring_entries = REQUESTS;
    f->p.memory =
        (symcoll_proxy_memory_t){.to_host = copy_in, .from_host = copy_in, .signal = set_word};
    pthread_mutex_init(&f->p.failure_lock, NULL);
    return f;
}

void proxy_fixture_destroy(proxy_fixture_t *f) {
    if (!f)
        return;
    if (f->p.host && f->heap)
        pthread_mutex_destroy(&f->p.failure_lock);
    free(f->targets[0].replies);
    free(f->p.host);
    free(f->heap);
    free(f);
}

void proxy_fixture_stage(proxy_fixture_t *f, uint64_t index, const void *data, size_t bytes,
                         uint64_t offset, uint64_t signal_offset, uint64_t value, int eager) {
    memcpy(f->data[index], data, bytes);
    f->records[index] = (proxy_record_t){.offset = offset,
                                         .bytes = bytes,
                                         .signal_offset = signal_offset,
                                         .value = value,
                                         .data_at = index * 64,
                                         .kind = PROXY_PUT,
                                         .has_signal = value != 0,
                                         .op = SYMCOLL_UCX_SIGNAL_SET,
                                         .seq = (uint32_t)(index + 1),
                                         .from = 0,
                                         .eager = (uint32_t)eager};
}

static char *inbox(proxy_fixture_t *f) {
    return f->p.host + proxy_inbox(&f->p.layout, 0);
}

void proxy_fixture_put(proxy_fixture_t *f, uint64_t index) {
    const proxy_record_t *r = &f->records[index];
    memcpy(inbox(f) + proxy_ring_at(&f->p.layout, r->data_at), f->data[index], r->bytes);
    ((proxy_record_t *)(inbox(f) + proxy_records(&f->p.layout)))[index % RECORDS] = *r;
}

void proxy_fixture_announce(proxy_fixture_t *f, uint64_t count) {
    memcpy(inbox(f) + proxy_count(&f->p.layout), &count, sizeof count);
}

void proxy_fixture_deliver(proxy_fixture_t *f, uint64_t index, uint32_t seq_override) {
    proxy_record_t r = f->records[index];
    if (seq_override)
        r.seq = seq_override;
    proxy_arrived(&f->p, &r, sizeof r, f->data[index], r.bytes);
}

symcoll_status_t proxy_fixture_receive(proxy_fixture_t *f, uint64_t *applied) {
    symcoll_status_t st = SYMCOLL_SUCCESS;
    proxy_receive(&f->p, &st);
    *applied = f->sources[0].applied;
    return st;
}

unsigned char *proxy_fixture_heap(proxy_fixture_t *f) {
    return f->heap;
}

size_t proxy_fixture_slot_bytes(void) {
    return SLOT_BYTES;
}

void proxy_fixture_post_put(proxy_fixture_t *f, size_t src_offset, size_t bytes,
                            uint64_t dst_offset) {
    uint64_t i = atomic_load_explicit(&f->p.posted, memory_order_relaxed);
    proxy_entry_t *e = &f->ring[i % REQUESTS];
    e->request = (proxy_request_t){.kind = PROXY_PUT,
                                   .pe = 0,
                                   .remote_offset = dst_offset,
                                   .local = (char *)f->heap + src_offset,
                                   .bytes = bytes};
    atomic_store_explicit(&e->ready, i + 1, memory_order_release);
    atomic_store_explicit(&f->p.posted, i + 1, memory_order_relaxed);
}

void proxy_fixture_queue_reply(proxy_fixture_t *f, size_t src_offset, size_t bytes,
                               uint64_t dst_offset) {
    proxy_reply_t reply = {
        .src = (const char *)f->heap + src_offset, .dst_offset = dst_offset, .bytes = bytes};
    proxy_queue_reply(&f->p, 0, &reply);
}

symcoll_status_t proxy_fixture_stage_pass(proxy_fixture_t *f, uint64_t *records,
                                          uint64_t *requests) {
    symcoll_status_t st = SYMCOLL_SUCCESS;
    proxy_stage(&f->p, &st);
    *records = f->targets[0].staged;
    *requests = f->p.taken;
    return st;
}

const unsigned char *proxy_fixture_staged(const proxy_fixture_t *f, uint64_t index) {
    const proxy_layout_t *l = &f->p.layout;
    const proxy_record_t *r =
        (const proxy_record_t *)(f->p.host + proxy_outbox(l, 0) + proxy_records(l)) +
        index % RECORDS;
    return (const unsigned char *)f->p.host + proxy_outbox(l, 0) + proxy_ring_at(l, r->data_at);
}
