// What both bandwidth tools (transport_proxy_bandwidth on the CPU, nodes_put_bandwidth on the
// GPU) time and check: PE 0 issuing transfers to PE 1, and PE 1's copy of the last one.
#ifndef SYMCOLL_BANDWIDTH_TIMING_H
#define SYMCOLL_BANDWIDTH_TIMING_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "symcoll.h"

namespace bandwidth_timing {

using Clock = std::chrono::steady_clock;

// Seconds for PE 0 to issue `count` transfers and complete them (PE 1 takes part in the
// barriers only: the transport's own while it carries plain puts, since over TCP they complete
// only while PE 1 progresses, and the bootstrap's while the proxy threads progress).
template <typename Barrier, typename Issue, typename Quiet>
double timed(symcoll_bootstrap_t *boot, Barrier barrier, int count, Issue issue, Quiet quiet) {
    if (barrier() != SYMCOLL_SUCCESS)
        return -1;
    auto start = Clock::now();
    bool ok = true;
    if (boot->rank == 0) {
        for (int i = 0; i < count && ok; i++)
            ok = issue() == SYMCOLL_SUCCESS;
        ok = ok && quiet() == SYMCOLL_SUCCESS;
    }
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!ok)
        std::fprintf(stderr, "PE 0: %s\n", symcoll_last_error());
    return ok ? seconds : -1;
}

template <typename Barrier>
bool check(symcoll_bootstrap_t *boot, Barrier barrier, const char *what, const char *got,
           size_t bytes, int seed) {
    if (barrier() != SYMCOLL_SUCCESS)
        return false;
    if (boot->rank != 1)
        return true;
    for (size_t i = 0; i < bytes; i++)
        if ((uint8_t)got[i] != (uint8_t)(i * 131 + seed)) {
            std::fprintf(stderr, "PE 1: %s of %zu bytes: byte %zu wrong\n", what, bytes, i);
            return false;
        }
    return true;
}

// PE 0's table: per size, the GB/s (1e9 bytes/s) of count = total / bytes + 1 transfers in
// raw and proxied seconds, and their ratio.
inline void print_bandwidth(const char *heading, const std::vector<size_t> &sizes, size_t total,
                            const std::vector<double> &raw, const std::vector<double> &proxied) {
    std::printf("# %s, UCX_TLS=%s: bandwidth in GB/s (1e9 bytes/s)\n", heading,
                std::getenv("UCX_TLS") ? std::getenv("UCX_TLS") : "(unset)");
    std::printf("%12s %10s %10s %8s\n", "bytes", "ucx_put", "proxy_put", "ratio");
    for (size_t s = 0; s < sizes.size(); s++) {
        double n = (double)((total / sizes[s]) + 1) * (double)sizes[s];
        std::printf("%12zu %10.2f %10.2f %8.2f\n", sizes[s], n / raw[s] / 1e9, n / proxied[s] / 1e9,
                    raw[s] / proxied[s]);
    }
}

} // namespace bandwidth_timing

#endif
