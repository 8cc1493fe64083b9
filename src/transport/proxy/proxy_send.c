/* The sending side of the proxy thread: stage, announce, retire. */
#include "internal.h"
#include "proxy_internal.h"

static uint64_t freed_by(const symcoll_proxy_t *p, int pe) {
    return proxy_counter(p, proxy_outbox(&p->layout, pe) + proxy_count(&p->layout));
}

static proxy_record_t *outbox_record(symcoll_proxy_t *p, int pe, uint64_t record) {
    const proxy_layout_t *l = &p->layout;
    return (proxy_record_t *)(p->host + proxy_outbox(l, pe) + proxy_records(l)) + record % l->slots;
}

/* Stages the next chunk of request e (bytes from p->taken_bytes) into a free slot of its
 * target and puts it into the target's window; true once the request's last chunk is staged. */
static bool stage_chunk(symcoll_proxy_t *p, proxy_entry_t *e, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    const symcoll_proxy_put_t *put = &e->put;
    proxy_target_t *target = &p->targets[put->pe];
    size_t left = put->bytes - p->taken_bytes;
    size_t len = left < l->slot_bytes ? left : l->slot_bytes;
    size_t slot = proxy_slot(l, target->staged);
    char *staging = p->host + proxy_outbox(l, put->pe) + slot;
    if (len) {
        *st = p->memory.to_host(p->memory.context, staging, (const char *)put->src + p->taken_bytes,
                                len);
        if (*st == SYMCOLL_SUCCESS)
            *st = symcoll_ucx_put(p->t, p->region, put->pe, proxy_inbox(l, p->boot->rank) + slot,
                                  staging, len);
        if (*st != SYMCOLL_SUCCESS)
            return false;
    }
    bool last = len == left;
    *outbox_record(p, put->pe, target->staged) = (proxy_record_t){
        .dst_offset = put->dst_offset + p->taken_bytes,
        .bytes = len,
        .signal_offset = put->signal_offset,
        .value = put->value,
        .has_signal = last && put->signal,
        .op = (uint32_t)put->op,
    };
    target->staged++;
    p->taken_bytes += len;
    if (last) {
        e->last = target->staged;
        p->taken_bytes = 0;
    }
    return last;
}

bool proxy_stage(symcoll_proxy_t *p, symcoll_status_t *st) {
    bool did = false;
    while (*st == SYMCOLL_SUCCESS) {
        proxy_entry_t *e = &p->ring[p->taken % p->ring_entries];
        if (atomic_load_explicit(&e->ready, memory_order_acquire) != p->taken + 1)
            return did;
        int pe = e->put.pe;
        bool done = false;
        while (!done && *st == SYMCOLL_SUCCESS &&
               p->targets[pe].staged - freed_by(p, pe) < p->layout.slots) {
            done = stage_chunk(p, e, st);
            did = true;
        }
        if (!done) /* out of slots at this target: later requests wait, in order */
            return did;
        p->taken++;
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
                                  outbox_record(p, pe, i), run * sizeof(proxy_record_t));
            i += run;
        }
        /* Data and records complete at the target before the count that announces them. */
        if (*st == SYMCOLL_SUCCESS)
            *st = symcoll_ucx_quiet_pe(p->t, pe);
        if (*st == SYMCOLL_SUCCESS)
            *st = symcoll_ucx_signal(p->t, p->region, pe, proxy_inbox(l, me) + proxy_count(l),
                                     target->staged - target->announced, SYMCOLL_UCX_SIGNAL_ADD);
        target->announced = target->staged;
        did = true;
    }
    return did;
}

bool proxy_retire(symcoll_proxy_t *p) {
    uint64_t retired = atomic_load_explicit(&p->retired, memory_order_relaxed);
    bool did = false;
    for (; retired < p->taken; retired++, did = true) {
        proxy_entry_t *e = &p->ring[retired % p->ring_entries];
        if (freed_by(p, e->put.pe) < e->last)
            break;
        atomic_store_explicit(&p->retired, retired + 1, memory_order_release);
    }
    return did;
}
