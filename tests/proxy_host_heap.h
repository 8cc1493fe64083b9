// A proxy heap of host memory for the CPU tests and the bandwidth tool
// (transport_proxy_test, transport_proxy_bandwidth).
#ifndef SYMCOLL_PROXY_HOST_HEAP_H
#define SYMCOLL_PROXY_HOST_HEAP_H

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "transport/proxy/proxy.h"

// The heap's memory as the library's CUDA copies would be: memcpy, and signals as atomics
// that release what was copied before them. A PE whose `stall_ms` is set sleeps that long in
// its first copy into the heap, as a PE that stopped applying records; `copy_delay_us` makes
// every copy into the heap that slow, so that a signal applied before its data would be seen.
struct HostHeap {
    static symcoll_status_t to_host(void *, void *host, const void *heap, size_t bytes) {
        std::memcpy(host, heap, bytes);
        return SYMCOLL_SUCCESS;
    }
    static symcoll_status_t from_host(void *context, void *heap, const void *host, size_t bytes) {
        auto *self = static_cast<HostHeap *>(context);
        if (self->stall_ms) {
            std::this_thread::sleep_for(std::chrono::milliseconds(self->stall_ms.load()));
            self->stall_ms = 0;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(self->copy_delay_us.load()));
        std::memcpy(heap, host, bytes);
        return SYMCOLL_SUCCESS;
    }
    static symcoll_status_t signal(void *, uint64_t *word, uint64_t value,
                                   symcoll_ucx_signal_op_t op) {
        if (op == SYMCOLL_UCX_SIGNAL_SET)
            __atomic_store_n(word, value, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(word, value, __ATOMIC_RELEASE);
        return SYMCOLL_SUCCESS;
    }
    static void *host_alloc(void *, size_t bytes) {
        void *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (p)
            std::memset(p, 0, bytes);
        return p;
    }
    static void host_free(void *, void *p) {
        std::free(p);
    }

    // Set by the test's thread while the proxy's may be copying.
    std::atomic<unsigned> stall_ms{0}, copy_delay_us{0};
    symcoll_proxy_memory_t ops() {
        return {this, to_host, from_host, signal, nullptr, host_alloc, host_free};
    }
};

#endif
