/* The receiving side of the proxy thread: applies the records that other PEs announced. */
#include "internal.h"
#include "proxy_internal.h"

/* The record lies inside this PE's heap and its slot; a sender that breaks this is refused
 * rather than trusted with this PE's memory. */
static symcoll_status_t check_record(const symcoll_proxy_t *p, const proxy_record_t *r, int from,
                                     uint64_t index) {
    size_t heap = p->heap_bytes;
    bool ok =
        r->bytes <= p->layout.slot_bytes && r->dst_offset <= heap &&
        r->bytes <= heap - r->dst_offset &&
        (!r->has_signal ||
         (r->signal_offset % 8 == 0 && r->signal_offset <= heap && heap - r->signal_offset >= 8 &&
          (r->op == SYMCOLL_UCX_SIGNAL_SET || r->op == SYMCOLL_UCX_SIGNAL_ADD)));
    return ok ? SYMCOLL_SUCCESS
              : symcoll_set_error(SYMCOLL_ERROR_INTERNAL,
                                  "symcoll_proxy: record %llu from PE %d (%llu bytes at offset "
                                  "%llu, signal at %llu, op %u) does not fit this PE's %zu-byte "
                                  "heap",
                                  (unsigned long long)index, from, (unsigned long long)r->bytes,
                                  (unsigned long long)r->dst_offset,
                                  (unsigned long long)r->signal_offset, r->op, heap);
}

static symcoll_status_t apply(symcoll_proxy_t *p, int from, uint64_t index) {
    const proxy_layout_t *l = &p->layout;
    const char *inbox = p->host + proxy_inbox(l, from);
    const proxy_record_t *r = (const proxy_record_t *)(inbox + proxy_records(l)) + index % l->slots;
    symcoll_status_t st = check_record(p, r, from, index);
    if (st == SYMCOLL_SUCCESS && r->bytes)
        st = p->memory.from_host(p->memory.context, p->heap + r->dst_offset,
                                 inbox + proxy_slot(l, index), r->bytes);
    if (st == SYMCOLL_SUCCESS && r->has_signal)
        st = p->memory.signal(p->memory.context, (uint64_t *)(p->heap + r->signal_offset), r->value,
                              (symcoll_ucx_signal_op_t)r->op);
    return st;
}

bool proxy_receive(symcoll_proxy_t *p, symcoll_status_t *st) {
    const proxy_layout_t *l = &p->layout;
    bool did = false;
    for (int from = 0; from < l->n_pes && *st == SYMCOLL_SUCCESS; from++) {
        if (!symcoll_ucx_connected(p->t, from))
            continue;
        uint64_t posted = proxy_counter(p, proxy_inbox(l, from) + proxy_count(l));
        uint64_t start = p->consumed[from];
        while (p->consumed[from] < posted && *st == SYMCOLL_SUCCESS)
            if ((*st = apply(p, from, p->consumed[from])) == SYMCOLL_SUCCESS)
                p->consumed[from]++;
        /* The slots go back to the sender: its outbox for this PE counts them. */
        if (p->consumed[from] != start && *st == SYMCOLL_SUCCESS) {
            *st = symcoll_ucx_signal(p->t, p->region, from,
                                     proxy_outbox(l, p->boot->rank) + proxy_count(l),
                                     p->consumed[from] - start, SYMCOLL_UCX_SIGNAL_ADD);
            did = true;
        }
    }
    return did;
}
