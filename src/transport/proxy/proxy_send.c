/* The sending side of the proxy thread: stage, announce, retire. */
#include <stdlib.h>
#include "internal.h"
#include "proxy_internal.h"

static uint64_t freed_by(const symcoll_proxy_t *p, int pe) {
    return proxy_counter(p, proxy_outbox(&p->layout, pe) + proxy_count(&p->layout));
}

static bool slot_free(const symcoll_proxy_t *p, int pe) {
    return p->targets[pe].staged - freed_by(p, pe) < p->layout.slots;
}

/* Stages one record to PE pe in its next slot (which must be free): len bytes of data from
 * src in this PE's heap, copied into the staging slot and put into the same slot of pe's
 * window, and the record beside them. */
static symcoll_status_t stage_record(symcoll_proxy_t *p, int pe, const char *src, size_t len,
                                     proxy_record_t record) {
    const proxy_layout_t *l = &p->layout;
    proxy_target_t *target = &p->targets[pe];
    size_t slot = proxy_slot(l, target->staged);
    char *staging = p->host + proxy_outbox(l, pe) + slot;
    symcoll_status_t st = SYMCOLL_SUCCESS;
    if (len)
        st = p->memory.to_host(p->memory.context, staging, src, len);
    if (len && st == SYMCOLL_SUCCESS)
        st = symcoll_ucx_put(p->t, p->region, pe, proxy_inbox(l, p->boot->rank) + slot, staging,
                             len);
    if (st != SYMCOLL_SUCCESS)
        return st;
    proxy_record_t *records = (proxy_record_t *)(p->host + proxy_outbox(l, pe) + proxy_records(l));
    records[target->staged % l->slots] = record;
    target->staged++;
    return SYMCOLL_SUCCESS;
}

/* The direct path: the whole request straight between the heaps, complete at the target (a
 * put's source may then change, a get's data is in place); a put's signal follows as a record
 * of no data, applied after what came before it. A get asks nothing of the target, so its
 * count stays and the request retires once staged. */
static bool move_direct(symcoll_proxy_t *p, const proxy_request_t *r, symcoll_status_t *st) {
    symcoll_ucx_memory_t memory = p->memory.heap_memory;
    *st = r->kind == PROXY_GET ? symcoll_ucx_get_into(p->t, p->heap_region, r->pe, r->remote_offset,
                                                      r->local, r->bytes, memory)
                               : symcoll_ucx_put_from(p->t, p->heap_region, r->pe, r->remote_offset,
                                                      r->local, r->bytes, memory);
    if (*st == SYMCOLL_SUCCESS)
        *st = symcoll_ucx_quiet_pe(p->t, r->pe);
    if (*st == SYMCOLL_SUCCESS && r->kind == PROXY_PUT && r->signal)
        *st = stage_record(p, r->pe, NULL, 0,
                           (proxy_record_t){.kind = PROXY_PUT,
                                            .offset = r->remote_offset,
                                            .signal_offset = r->signal_offset,
                                            .value = r->value,
                                            .has_signal = 1,
                                            .op = (uint32_t)r->op});
    return *st == SYMCOLL_SUCCESS;
}

/* The next chunk of request r, of which p->taken_bytes are staged; true once its last record
 * is staged. */
static bool stage_request(symcoll_proxy_t *p, const proxy_request_t *r, symcoll_status_t *st) {
    if (p->heap_region)
        return move_direct(p, r, st);
    if (r->kind == PROXY_GET) {
        *st = stage_record(
            p, r->pe, NULL, 0,
            (proxy_record_t){.kind = PROXY_GET,
                             .offset = r->remote_offset,
                             .bytes = r->bytes,
                             .reply_offset = (uint64_t)((uintptr_t)r->local - (uintptr_t)p->heap)});
        p->targets[r->pe].gets++;
        return *st == SYMCOLL_SUCCESS;
    }
    size_t left = r->bytes - p->taken_bytes;
    size_t len = left < p->layout.slot_bytes ? left : p->layout.slot_bytes;
    bool last = len == left;
    /* A signal alone has no source (NULL, not to be offset). */
    *st = stage_record(p, r->pe, len ? r->local + p->taken_bytes : NULL, len,
                       (proxy_record_t){.kind = PROXY_PUT,
                                        .offset = r->remote_offset + p->taken_bytes,
                                        .bytes = len,
                                        .signal_offset = r->signal_offset,
                                        .value = r->value,
                                        .has_signal = last && r->signal,
                                        .op = (uint32_t)r->op});
    p->taken_bytes = last ? 0 : p->taken_bytes + len;
    return last && *st == SYMCOLL_SUCCESS;
}

/* The replies to PE pe's gets, oldest first, as far as its free slots allow. */
static bool stage_replies(symcoll_proxy_t *p, int pe, symcoll_status_t *st) {
    proxy_target_t *target = &p->targets[pe];
    bool did = false;
    while (target->n_replies && *st == SYMCOLL_SUCCESS && slot_free(p, pe)) {
        proxy_reply_t *reply = &target->replies[target->first];
        size_t left = reply->bytes - reply->staged;
        size_t len = left < p->layout.slot_bytes ? left : p->layout.slot_bytes;
        *st = stage_record(p, pe, reply->src + reply->staged, len,
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
    while (*st == SYMCOLL_SUCCESS) {
        proxy_entry_t *e = &p->ring[p->taken % p->ring_entries];
        if (atomic_load_explicit(&e->ready, memory_order_acquire) != p->taken + 1)
            return did;
        const proxy_request_t *r = &e->request;
        bool done = false;
        while (!done && *st == SYMCOLL_SUCCESS && slot_free(p, r->pe)) {
            done = stage_request(p, r, st);
            did = true;
        }
        if (!done) /* out of slots at this target: later requests wait, in order */
            return did;
        e->last = r->kind == PROXY_GET ? p->targets[r->pe].gets : p->targets[r->pe].staged;
        p->taken++;
        atomic_store_explicit(&p->staged, p->taken, memory_order_release);
    }
    return did;
}

bool proxy_announce(symcoll_proxy_t *p, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    const int me = p->boot->rank;
    bool did = false;
    for (int pe = 0; pe < l->n_pes && *st == SYMCOLL_SUCCESS; pe++) {
        proxy_target_t *target = &p->targets[pe];
        if (target->staged == target->announced)
            continue;
        /* The records are contiguous but for a wrap past the last slot. */
        for (uint64_t i = target->announced; i < target->staged && *st == SYMCOLL_SUCCESS;) {
            uint64_t k = i % l->slots, run = target->staged - i;
            if (run > l->slots - k)
                run = l->slots - k;
            size_t at = proxy_records(l) + k * sizeof(proxy_record_t);
            *st = symcoll_ucx_put(p->t, p->region, pe, proxy_inbox(l, me) + at,
                                  p->host + proxy_outbox(l, pe) + at, run * sizeof(proxy_record_t));
            i += run;
        }
        /* Data and records complete at the target before the count that announces them. */
        if (*st == SYMCOLL_SUCCESS)
            *st = symcoll_ucx_quiet_pe(p->t, pe);
        target->announced = target->staged;
        if (*st == SYMCOLL_SUCCESS)
            *st = proxy_put_count(p, pe, proxy_inbox(l, me) + proxy_count(l), &target->announced);
        did = true;
    }
    return did;
}

bool proxy_retire(symcoll_proxy_t *p) {
    uint64_t retired = atomic_load_explicit(&p->retired, memory_order_relaxed);
    bool did = false;
    for (; retired < p->taken; retired++, did = true) {
        proxy_entry_t *e = &p->ring[retired % p->ring_entries];
        int pe = e->request.pe;
        uint64_t done = e->request.kind == PROXY_GET ? p->sources[pe].answered : freed_by(p, pe);
        if (done < e->last)
            break;
        atomic_store_explicit(&p->retired, retired + 1, memory_order_release);
    }
    return did;
}
