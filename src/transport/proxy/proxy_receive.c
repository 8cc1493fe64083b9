/* The receiving side of the proxy thread: applies the records that other PEs announced or sent
 * as messages (eager), in each sender's order. */
#include <string.h>
#include "internal.h"
#include "proxy_internal.h"

static bool inside(uint64_t offset, uint64_t bytes, size_t heap) {
    return offset <= heap && bytes <= heap - offset;
}

/* The record asks for this PE's heap only, and its chunk is at most a slot, whole inside the
 * window; a sender that breaks this is refused rather than trusted with this PE's memory. */
static symcoll_status_t check_record(const symcoll_proxy_t *p, const proxy_record_t *r, int from,
                                     uint64_t index) {
    size_t heap = p->heap_bytes;
    /* A reply lands where this PE's own get asked, which may be outside its heap. */
    bool ok = (r->kind == PROXY_REPLY && p->memory.any_local) || inside(r->offset, r->bytes, heap);
    if (r->kind == PROXY_PUT || r->kind == PROXY_REPLY)
        ok = ok && r->bytes <= p->layout.slot_bytes &&
             r->bytes <= p->layout.ring_bytes - proxy_ring_at(&p->layout, r->data_at);
    if (r->kind == PROXY_PUT && r->has_signal)
        ok = ok && r->signal_offset % 8 == 0 && inside(r->signal_offset, 8, heap) &&
             (r->op == SYMCOLL_UCX_SIGNAL_SET || r->op == SYMCOLL_UCX_SIGNAL_ADD);
    ok = ok && r->kind <= PROXY_REPLY;
    return ok ? SYMCOLL_SUCCESS
              : symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                                  "symcoll_proxy: record %llu from PE %d (kind %u, %llu bytes at "
                                  "offset %llu, signal at %llu, op %u) does not fit this PE's "
                                  "%zu-byte heap",
                                  (unsigned long long)index, from, r->kind,
                                  (unsigned long long)r->bytes, (unsigned long long)r->offset,
                                  (unsigned long long)r->signal_offset, r->op, heap);
}

static symcoll_status_t apply(symcoll_proxy_t *p, int from, uint64_t index) {
    const proxy_layout_t *l = &p->layout;
    const char *inbox = p->host + proxy_inbox(l, from);
    const proxy_record_t *r =
        (const proxy_record_t *)(inbox + proxy_records(l)) + index % l->records;
    symcoll_status_t st = check_record(p, r, from, index);
    if (st != SYMCOLL_SUCCESS)
        return st;
    if (r->kind == PROXY_GET) {
        proxy_reply_t reply = {p->heap + r->offset, r->reply_offset, r->bytes, 0};
        return proxy_queue_reply(p, from, &reply);
    }
    if (r->bytes)
        st = p->memory.from_host(p->memory.context, (char *)((uintptr_t)p->heap + r->offset),
                                 inbox + proxy_ring_at(l, r->data_at), r->bytes);
    if (st == SYMCOLL_SUCCESS && r->has_signal && r->kind == PROXY_PUT)
        st = p->memory.signal(p->memory.context, (uint64_t *)(p->heap + r->signal_offset), r->value,
                              (symcoll_ucx_signal_op_t)r->op);
    if (st == SYMCOLL_SUCCESS && r->has_signal && r->kind == PROXY_REPLY)
        p->sources[from].answering++;
    return st;
}

/* The applied records, and their chunks, go back to the sender: its outbox for this PE counts
 * them. The count is put again once its last put is flushed (proxy_put_count). */
static bool give_back(symcoll_proxy_t *p, int from, symcoll_status_t *st) {
    proxy_source_t *source = &p->sources[from];
    if (!symcoll_ucx_flush_done(p->t, from, &source->returning, st) || *st != SYMCOLL_SUCCESS ||
        source->returned == source->consumed)
        return false;
    source->returned = source->consumed;
    *st =
        proxy_put_count(p, from, proxy_outbox(&p->layout, p->boot->rank) + proxy_count(&p->layout),
                        &source->returned);
    if (*st == SYMCOLL_SUCCESS)
        *st = symcoll_ucx_flush_start(p->t, from, &source->returning);
    return true;
}

/* Whether record index of PE from is here to apply: eager, it has arrived; else it is
 * announced. An eager record that a count covers may not have arrived yet (the transport
 * orders no message beside a put): its slot still holds an older record. */
static bool here(const symcoll_proxy_t *p, int from, uint64_t index, uint64_t posted) {
    const proxy_layout_t *l = &p->layout;
    const proxy_record_t *r =
        (const proxy_record_t *)(p->host + proxy_inbox(l, from) + proxy_records(l)) +
        index % l->records;
    return p->sources[from].arrived[index % l->records] == index + 1 ||
           (index < posted && r->seq == (uint32_t)(index + 1));
}

/* The records of PE from that are here, in order, into applied (their copies and signals may
 * still be running). */
static bool apply_here(symcoll_proxy_t *p, int from, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    proxy_source_t *source = &p->sources[from];
    uint64_t posted = proxy_counter(p, proxy_inbox(l, from) + proxy_count(l));
    /* A sender never has more records out; eager ones may be applied before they are counted. */
    if (posted > source->consumed && posted - source->consumed > l->records - 1) {
        *st = symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                                "symcoll_proxy: PE %d announced %llu records, %llu beyond "
                                "the %llu this PE applied, where at most %u may be out",
                                from, (unsigned long long)posted,
                                (unsigned long long)(posted - source->consumed),
                                (unsigned long long)source->consumed, l->records - 1);
        return false;
    }
    uint64_t start = source->applied;
    while (*st == SYMCOLL_SUCCESS && here(p, from, source->applied, posted))
        if ((*st = apply(p, from, source->applied)) == SYMCOLL_SUCCESS)
            source->applied++;
    return source->applied != start;
}

static symcoll_status_t refuse(const char *what, int from, uint64_t value) {
    return symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                             "symcoll_proxy: a message from PE %d refused: %s (%llu)", from, what,
                             (unsigned long long)value);
}

/* The eager record in header, and its chunk, into the inbox of its sender, once checked. */
static symcoll_status_t lay_in(symcoll_proxy_t *p, const void *header, size_t header_bytes,
                               const void *data, size_t bytes) {
    const proxy_layout_t *l = &p->layout;
    proxy_record_t r;
    if (header_bytes != sizeof r)
        return refuse("a header that is no record, bytes", -1, header_bytes);
    memcpy(&r, header, sizeof r);
    int from = (int)r.from;
    if (r.from >= (uint32_t)l->n_pes || !symcoll_ucx_connected(p->t, from))
        return refuse("no PE of another node, from", -1, r.from);
    proxy_source_t *source = &p->sources[from];
    /* Its index: of those the sender may have out, beyond what this PE has applied. */
    uint64_t ahead = (uint32_t)(r.seq - 1 - (uint32_t)source->consumed);
    uint64_t index = source->consumed + ahead;
    if (!r.eager || (!data && bytes) || bytes != proxy_record_data(&r))
        return refuse("an eager record of a wrong size, bytes", from, bytes);
    if (ahead >= l->records - 1 || index < source->applied)
        return refuse("a record out of turn, index", from, index);
    symcoll_status_t st = check_record(p, &r, from, index);
    if (st != SYMCOLL_SUCCESS)
        return st;
    char *inbox = p->host + proxy_inbox(l, from);
    if (bytes)
        memcpy(inbox + proxy_ring_at(l, r.data_at), data, bytes);
    ((proxy_record_t *)(inbox + proxy_records(l)))[index % l->records] = r;
    source->arrived[index % l->records] = index + 1;
    return SYMCOLL_SUCCESS;
}

void proxy_arrived(void *proxy, const void *header, size_t header_bytes, const void *data,
                   size_t bytes) {
    symcoll_proxy_t *p = proxy;
    if (p->aside != SYMCOLL_SUCCESS)
        return;
    symcoll_status_t st = lay_in(p, header, header_bytes, data, bytes);
    if (st != SYMCOLL_SUCCESS)
        proxy_fail_aside(p, st);
}

/* Every source's announced records applied, one settle for all of them, then the records go
 * back and the gets they answer complete. */
bool proxy_receive(symcoll_proxy_t *p, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    bool did = false;
    if (p->aside != SYMCOLL_SUCCESS) {
        *st = p->aside;
        return false;
    }
    for (int from = 0; from < l->n_pes && *st == SYMCOLL_SUCCESS; from++)
        if (symcoll_ucx_connected(p->t, from))
            did |= apply_here(p, from, st);
    if (did && *st == SYMCOLL_SUCCESS && p->memory.settle)
        *st = p->memory.settle(p->memory.context);
    for (int from = 0; from < l->n_pes && *st == SYMCOLL_SUCCESS; from++) {
        if (!symcoll_ucx_connected(p->t, from))
            continue;
        proxy_source_t *source = &p->sources[from];
        source->consumed = source->applied;
        source->answered += source->answering;
        source->answering = 0;
        if (*st == SYMCOLL_SUCCESS)
            did |= give_back(p, from, st);
    }
    return did;
}
