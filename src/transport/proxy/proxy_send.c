/* The sending side of the proxy thread: stage, announce, retire. */
#include <stdlib.h>
#include "internal.h"
#include "proxy_internal.h"

static uint64_t freed_by(const symcoll_proxy_t *p, int pe) {
    return proxy_counter(p, proxy_outbox(&p->layout, pe) + proxy_count(&p->layout));
}

static proxy_record_t *outbox_records(const symcoll_proxy_t *p, int pe) {
    return (proxy_record_t *)(p->host + proxy_outbox(&p->layout, pe) + proxy_records(&p->layout));
}

static uint64_t align64(uint64_t at) {
    return (at + 63) & ~(uint64_t)63;
}

uint64_t proxy_sent(symcoll_proxy_t *p, int pe) {
    proxy_target_t *target = &p->targets[pe];
    while (target->sends_done < target->staged) {
        symcoll_status_t st = SYMCOLL_SUCCESS;
        if (!symcoll_ucx_send_done(p->t, pe, &target->sends[target->sends_done % p->layout.records],
                                   &st))
            break;
        if (st != SYMCOLL_SUCCESS)
            proxy_fail_aside(p, st);
        target->sends_done++;
    }
    return target->sends_done;
}

/* Records of PE pe done with: freed there and, if eager, sent. */
static uint64_t released(symcoll_proxy_t *p, int pe) {
    uint64_t freed = freed_by(p, pe), sent = proxy_sent(p, pe);
    return freed < sent ? freed : sent;
}

/* Where the next record to PE pe can stage len bytes (at most slot_bytes) in the ring: false
 * while it has no free record or no contiguous room. The ring is free from the end of the last
 * chunk that pe has applied, which stays in its record: a record is reused only once the one
 * before it is freed, and its send, if eager, is complete. */
static bool room(symcoll_proxy_t *p, int pe, size_t len, uint64_t *data_at) {
    const proxy_layout_t *l = &p->layout;
    const proxy_target_t *target = &p->targets[pe];
    uint64_t freed = released(p, pe);
    if (target->staged - freed >= l->records - 1)
        return false;
    uint64_t tail = 0;
    if (freed) {
        const proxy_record_t *last = &outbox_records(p, pe)[(freed - 1) % l->records];
        tail = align64(last->data_at + proxy_record_data(last));
    }
    uint64_t at = target->head;
    size_t offset = proxy_ring_at(l, at);
    if (len > l->ring_bytes - offset) /* a chunk never wraps: it starts the ring again */
        at += l->ring_bytes - offset;
    if (at + len - tail > l->ring_bytes)
        return false;
    *data_at = at;
    return true;
}

/* Stages one record to PE pe at data_at (from room): len bytes of data from src in this PE's
 * heap, copied into the staging ring, and the record beside them. prestaged: src is pinned host
 * memory already, sent from where it is. An eager record (at most eager_bytes of data) goes
 * with its data as one message; any other's data is put into the same place of pe's window, and
 * its record follows in a batch (send_records). */
static symcoll_status_t stage_record(symcoll_proxy_t *p, int pe, uint64_t data_at, const char *src,
                                     size_t len, bool prestaged, proxy_record_t record) {
    const proxy_layout_t *l = &p->layout;
    proxy_target_t *target = &p->targets[pe];
    size_t at = proxy_ring_at(l, data_at);
    char *staging = p->host + proxy_outbox(l, pe) + at;
    const char *data = prestaged ? src : staging;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (len && !prestaged)
        st = p->memory.to_host(p->memory.context, staging, src, len);
    if (st != SYMCOLL_SUCCESS)
        return st;
    record.data_at = data_at;
    record.seq = (uint32_t)(target->staged + 1);
    record.from = (uint32_t)p->boot->rank;
    record.eager = p->eager_bytes && len <= p->eager_bytes;
    uint64_t slot = target->staged % l->records;
    proxy_record_t *kept = &outbox_records(p, pe)[slot];
    *kept = record;
    if (record.eager)
        st = symcoll_ucx_send(p->t, pe, kept, sizeof *kept, len ? data : NULL, len,
                              &target->sends[slot]);
    else if (len)
        st = symcoll_ucx_put(p->t, p->region, pe, proxy_inbox(l, p->boot->rank) + at, data, len);
    if (st != SYMCOLL_SUCCESS)
        return st;
    target->staged++;
    target->head = align64(data_at + len);
    return SYMCOLL_SUCCESS;
}

/* The direct path: the whole request straight between the heaps, complete at the target (a
 * put's source may then change, a get's data is in place); a put's signal follows as a record
 * of no data, applied after what came before it. A get asks nothing of the target, so its
 * count stays and the request retires once staged. */
static bool move_direct(symcoll_proxy_t *p, const proxy_request_t *r, uint64_t data_at,
                        symcoll_status_t *st) {
    symcoll_ucx_memory_t memory = r->prestaged ? SYMCOLL_UCX_MEMORY_HOST : p->memory.heap_memory;
    *st = r->kind == PROXY_GET ? symcoll_ucx_get_into(p->t, p->heap_region, r->pe, r->remote_offset,
                                                      r->local, r->bytes, memory)
                               : symcoll_ucx_put_from(p->t, p->heap_region, r->pe, r->remote_offset,
                                                      r->local, r->bytes, memory);
    if (*st == SYMCOLL_SUCCESS)
        *st = symcoll_ucx_quiet_pe(p->t, r->pe);
    if (*st == SYMCOLL_SUCCESS && r->kind == PROXY_PUT && r->signal)
        *st = stage_record(p, r->pe, data_at, NULL, 0, false,
                           (proxy_record_t){.kind = PROXY_PUT,
                                            .offset = r->remote_offset,
                                            .signal_offset = r->signal_offset,
                                            .value = r->value,
                                            .has_signal = 1,
                                            .op = (uint8_t)r->op});
    return *st == SYMCOLL_SUCCESS;
}

/* The next chunk of left bytes to stage. */
static size_t chunk(const symcoll_proxy_t *p, size_t left) {
    return left < p->layout.slot_bytes ? left : p->layout.slot_bytes;
}

/* The bytes of request r's next record (p->taken_bytes of it are staged). */
static size_t next_chunk(const symcoll_proxy_t *p, const proxy_request_t *r) {
    return p->heap_region || r->kind == PROXY_GET ? 0 : chunk(p, r->bytes - p->taken_bytes);
}

/* The next chunk of request r (next_chunk bytes, at data_at); true once its last record is
 * staged. */
static bool stage_request(symcoll_proxy_t *p, const proxy_request_t *r, uint64_t data_at,
                          symcoll_status_t *st) {
    if (p->heap_region)
        return move_direct(p, r, data_at, st);
    if (r->kind == PROXY_GET) {
        *st = stage_record(
            p, r->pe, data_at, NULL, 0, false,
            (proxy_record_t){.kind = PROXY_GET,
                             .offset = r->remote_offset,
                             .bytes = r->bytes,
                             .reply_offset = (uint64_t)((uintptr_t)r->local - (uintptr_t)p->heap)});
        p->targets[r->pe].gets++;
        return *st == SYMCOLL_SUCCESS;
    }
    size_t len = next_chunk(p, r);
    bool last = len == r->bytes - p->taken_bytes;
    /* A signal alone has no source (NULL, not to be offset). */
    *st = stage_record(p, r->pe, data_at, len ? r->local + p->taken_bytes : NULL, len, r->prestaged,
                       (proxy_record_t){.kind = PROXY_PUT,
                                        .offset = r->remote_offset + p->taken_bytes,
                                        .bytes = len,
                                        .signal_offset = r->signal_offset,
                                        .value = r->value,
                                        .has_signal = last && r->signal,
                                        .op = (uint8_t)r->op});
    p->taken_bytes = last ? 0 : p->taken_bytes + len;
    return last && *st == SYMCOLL_SUCCESS;
}

/* A pass of proxy_stage stages replies to each PE, and then requests, until each has staged
 * slot_bytes of data or more. */
static bool pass_spent(const symcoll_proxy_t *p, size_t spent) {
    return spent >= p->layout.slot_bytes;
}

/* The replies to PE pe's gets, oldest first, as far as its ring has room and the pass goes:
 * each PE's replies have a budget of their own, so a PE getting much cannot stall the rest. */
static bool stage_replies(symcoll_proxy_t *p, int pe, symcoll_status_t *st) {
    proxy_target_t *target = &p->targets[pe];
    bool did = false;
    uint64_t data_at;
    size_t spent = 0;
    while (target->n_replies && !pass_spent(p, spent) && *st == SYMCOLL_SUCCESS) {
        proxy_reply_t *reply = &target->replies[target->first];
        size_t left = reply->bytes - reply->staged;
        size_t len = chunk(p, left);
        if (!room(p, pe, len, &data_at))
            break;
        spent += len;
        *st = stage_record(p, pe, data_at, reply->src + reply->staged, len, false,
                           (proxy_record_t){.kind = PROXY_REPLY,
                                            .offset = reply->dst_offset + reply->staged,
                                            .bytes = len,
                                            .has_signal = len == left});
        reply->staged += len;
        if (len == left) {
            target->first = (target->first + 1) % target->replies_capacity;
            target->n_replies--;
        }
        did = true;
    }
    return did;
}

symcoll_status_t proxy_queue_reply(symcoll_proxy_t *p, int to, const proxy_reply_t *reply) {
    proxy_target_t *target = &p->targets[to];
    if (target->n_replies == target->replies_capacity) {
        size_t capacity = target->replies_capacity ? 2 * target->replies_capacity : 16;
        proxy_reply_t *grown = malloc(capacity * sizeof *grown);
        if (!grown)
            return symcoll_set_error(SYMCOLL_ERROR_OUT_OF_MEMORY,
                                     "symcoll_proxy: no host memory for %zu gets of PE %d",
                                     capacity, to);
        for (size_t i = 0; i < target->n_replies; i++)
            grown[i] = target->replies[(target->first + i) % target->replies_capacity];
        free(target->replies);
        target->replies = grown;
        target->first = 0;
        target->replies_capacity = capacity;
    }
    target->replies[(target->first + target->n_replies++) % target->replies_capacity] = *reply;
    return SYMCOLL_SUCCESS;
}

bool proxy_stage(symcoll_proxy_t *p, symcoll_status_t *st) {
    bool did = false;
    for (int pe = 0; pe < p->layout.n_pes; pe++)
        did |= stage_replies(p, pe, st);
    size_t spent = 0;
    while (*st == SYMCOLL_SUCCESS && !pass_spent(p, spent)) {
        proxy_entry_t *e = &p->ring[p->taken % p->ring_entries];
        if (atomic_load_explicit(&e->ready, memory_order_acquire) != p->taken + 1)
            return did;
        const proxy_request_t *r = &e->request;
        bool done = false;
        uint64_t data_at;
        while (!done && *st == SYMCOLL_SUCCESS && !pass_spent(p, spent) &&
               room(p, r->pe, next_chunk(p, r), &data_at)) {
            spent += next_chunk(p, r);
            done = stage_request(p, r, data_at, st);
            did = true;
        }
        if (!done) /* no room at this target, or the pass is spent: later requests wait, in
                      order */
            return did;
        e->last = r->kind == PROXY_GET ? p->targets[r->pe].gets : p->targets[r->pe].staged;
        p->taken++;
        atomic_store_explicit(&p->staged, p->taken, memory_order_release);
    }
    return did;
}

/* The records staged since the last batch go to PE pe, behind their data, but for the eager
 * ones, which went with theirs: runs of records, broken by the eager ones and by a wrap past
 * the last record. False where there was none to put. */
static bool send_records(symcoll_proxy_t *p, int pe, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    const int me = p->boot->rank;
    proxy_target_t *target = &p->targets[pe];
    const proxy_record_t *records = outbox_records(p, pe);
    bool any = false;
    for (uint64_t i = target->sent; i < target->staged && *st == SYMCOLL_SUCCESS;) {
        uint64_t k = i % l->records, run = 0;
        while (i + run < target->staged && k + run < l->records && !records[k + run].eager)
            run++;
        if (run) {
            size_t at = proxy_records(l) + k * sizeof(proxy_record_t);
            *st = symcoll_ucx_put(p->t, p->region, pe, proxy_inbox(l, me) + at,
                                  p->host + proxy_outbox(l, pe) + at, run * sizeof(proxy_record_t));
            any = true;
        }
        i += run ? run : 1;
    }
    target->sent = target->staged;
    return any;
}

/* One batch per target in flight: data and records complete at the target (the flush) before
 * the count that announces them, and that count's put complete (the next batch's flush) before
 * the count is put again (proxy_put_count). A batch of eager records only asks for no count:
 * each is applied as it arrives. */
bool proxy_announce(symcoll_proxy_t *p, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    bool did = false;
    for (int pe = 0; pe < l->n_pes && *st == SYMCOLL_SUCCESS; pe++) {
        proxy_target_t *target = &p->targets[pe];
        if (target->sent != target->announced) {
            if (!symcoll_ucx_flush_done(p->t, pe, &target->announcing, st) ||
                *st != SYMCOLL_SUCCESS)
                continue;
            target->announced = target->count = target->sent;
            *st = proxy_put_count(p, pe, proxy_inbox(l, p->boot->rank) + proxy_count(l),
                                  &target->count);
            did = true;
        }
        if (*st == SYMCOLL_SUCCESS && target->staged != target->sent) {
            if (send_records(p, pe, st) && *st == SYMCOLL_SUCCESS)
                *st = symcoll_ucx_flush_start(p->t, pe, &target->announcing);
            else if (*st == SYMCOLL_SUCCESS)
                target->announced = target->sent;
            did = true;
        }
    }
    return did;
}

bool proxy_retire(symcoll_proxy_t *p) {
    uint64_t retired = atomic_load_explicit(&p->retired, memory_order_relaxed);
    bool did = false;
    for (; retired < p->taken; retired++, did = true) {
        proxy_entry_t *e = &p->ring[retired % p->ring_entries];
        int pe = e->request.pe;
        uint64_t done = e->request.kind == PROXY_GET ? p->sources[pe].answered : released(p, pe);
        if (done < e->last)
            break;
        atomic_store_explicit(&p->retired, retired + 1, memory_order_release);
    }
    return did;
}
