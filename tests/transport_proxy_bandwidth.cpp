// What staging costs: PE 0 puts to PE 1, first straight over the UCX transport (registered host
// memory to registered host memory), then through the proxy (heap to staging slot, put into
// the window, record, copy into the heap), at each size; the bandwidth of each and their ratio.
// Run under mpirun -np 2 (UCX_TLS picks the transport); the last put of each size is checked at
// PE 1, so a wrong copy fails the run.
//
//   mpirun -np 2 -x UCX_TLS=tcp transport_proxy_bandwidth [max_bytes] [total_bytes] [slots]
//       [slot_bytes] [min_bytes]
// (sizes from min_bytes, 64 KiB by default, times 4 up to max_bytes; slots and slot_bytes: the
// proxy's staging, 0 or absent for its default, 4 of 1 MiB;
// SYMCOLL_PROXY_DIRECT=1 takes the proxy's direct path, as UCX registers host heaps, else it
// stages)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bandwidth_timing.h"
#include "internal.h"
#include "pmix_test_bootstrap.h"
#include "proxy_host_heap.h"
#include "transport/ucx/ucx_transport.h"

using namespace bandwidth_timing;

int main(int argc, char **argv) {
    size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 64u << 20;
    size_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 512u << 20;
    symcoll_proxy_config_t config = {};
    config.slots = argc > 3 ? (unsigned)std::strtoul(argv[3], nullptr, 0) : 0;
    config.slot_bytes = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 0;
    size_t min_bytes = argc > 5 ? std::strtoull(argv[5], nullptr, 0) : 64u << 10;
    const char *direct = std::getenv("SYMCOLL_PROXY_DIRECT");
    config.staged = !direct || std::strcmp(direct, "1") != 0;
    symcoll_bootstrap_t *boot = nullptr;
    if (int rc = start_pmix_bootstrap(&boot))
        return rc;
    symcoll_ucx_t *t = nullptr;
    symcoll_status_t st = symcoll_ucx_create(boot, nullptr, 60000, &t);
    if (st != SYMCOLL_SUCCESS || boot->size != 2) {
        std::fprintf(stderr, "needs UCX and 2 PEs: %s\n", symcoll_last_error());
        boot->destroy(boot, 1);
        return st == SYMCOLL_ERROR_UNSUPPORTED ? 77 : 1;
    }
    std::vector<uint64_t> storage(2 * max_bytes / 8 + 8);
    char *heap = reinterpret_cast<char *>(storage.data()), *src = heap + max_bytes;
    std::vector<size_t> sizes;
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4)
        sizes.push_back(bytes);
    std::vector<double> raw(sizes.size()), proxied(sizes.size());
    bool ok = true;
    auto ucx_barrier = [&] { return symcoll_ucx_barrier(t); };
    auto boot_barrier = [&] { return boot->barrier(boot); };

    symcoll_ucx_region_t *region = nullptr;
    ok = symcoll_ucx_region_map(t, heap, 2 * max_bytes, SYMCOLL_UCX_MEMORY_HOST, &region) ==
         SYMCOLL_SUCCESS;
    for (size_t s = 0; s < sizes.size() && ok; s++) {
        size_t bytes = sizes[s];
        for (size_t i = 0; i < bytes; i++)
            src[i] = (char)(i * 131 + 1);
        int count = (int)(total / bytes) + 1;
        raw[s] = timed(
            boot, ucx_barrier, count, [&] { return symcoll_ucx_put(t, region, 1, 0, src, bytes); },
            [&] { return symcoll_ucx_quiet(t); });
        ok = raw[s] > 0 && check(boot, ucx_barrier, "a UCX put", heap, bytes, 1);
    }
    if (region)
        ok = symcoll_ucx_region_unmap(t, region) == SYMCOLL_SUCCESS && ok;

    HostHeap memory;
    symcoll_proxy_memory_t ops = memory.ops();
    symcoll_proxy_t *proxy = nullptr;
    ok = ok && symcoll_proxy_create(boot, t, heap, 2 * max_bytes, &ops, &config, 60000, &proxy) ==
                   SYMCOLL_SUCCESS;
    for (size_t s = 0; s < sizes.size() && ok; s++) {
        size_t bytes = sizes[s];
        for (size_t i = 0; i < bytes; i++)
            src[i] = (char)(i * 131 + 2);
        symcoll_proxy_put_t put = {1, 0, src, bytes, false, 0, 0, SYMCOLL_UCX_SIGNAL_ADD};
        int count = (int)(total / bytes) + 1;
        proxied[s] = timed(
            boot, boot_barrier, count, [&] { return symcoll_proxy_put(proxy, &put, nullptr); },
            [&] { return symcoll_proxy_quiet(proxy); });
        ok = proxied[s] > 0 && check(boot, boot_barrier, "a proxy put", heap, bytes, 2);
    }
    bool direct_path = proxy && symcoll_proxy_direct(proxy);
    if (proxy)
        ok = symcoll_proxy_destroy(proxy, !ok) == SYMCOLL_SUCCESS && ok;
    if (!ok)
        std::fprintf(stderr, "PE %d: %s\n", boot->rank, symcoll_last_error());

    if (ok && boot->rank == 0)
        print_bandwidth(direct_path ? "PE 0 to PE 1, the proxy's direct path"
                                    : "PE 0 to PE 1, the proxy staging",
                        sizes, total, raw, proxied);
    st = symcoll_ucx_destroy(t, !ok);
    boot->destroy(boot, !ok);
    return ok && st == SYMCOLL_SUCCESS ? 0 : 1;
}
