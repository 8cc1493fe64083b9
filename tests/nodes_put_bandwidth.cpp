// What staging costs on the GPU: PE 0 puts to PE 1 of another (simulated) node, first straight
// over a UCX transport of its own (pinned host memory to pinned host memory), then with
// symcoll_put_on_stream from GPU memory into PE 1's symmetric heap through the proxy (heap to
// staging, put into the window, record, copy into PE 1's GPU); the bandwidth of each and their
// ratio at each size. The last put of each size is checked at PE 1, so a wrong copy fails the
// run; exit 77 (skipped) without a GPU, UCX, or 2 PEs on 2 nodes.
//
// The two alternate at each size, pairs times (3), and each figure is the median of its pairs.
//
//   symcoll-run -n 2 --nodes 2 nodes_put_bandwidth [max_bytes] [total_bytes] [pairs]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bandwidth_timing.h"
#include "internal.h"
#include "transport/proxy/proxy.h"
#include "transport/ucx/ucx_transport.h"

using namespace bandwidth_timing;

namespace {

int skip(const char *why) {
    std::printf("skipped: %s\n", why);
    return 77;
}

// Plain UCX puts of pinned host memory over a transport of the test's own; the fill pattern's
// seed is 1.
struct RawUcx {
    symcoll_bootstrap_t *boot;
    symcoll_ucx_t *t = nullptr;
    char *heap = nullptr;
    symcoll_ucx_region_t *region = nullptr;
    size_t max_bytes;

    RawUcx(symcoll_bootstrap_t *b, size_t max) : boot(b), max_bytes(max) {}
    bool open() {
        bool other[SYMCOLL_MAX_PES] = {};
        other[1 - boot->rank] = true;
        if (symcoll_ucx_create(boot, other, 60000, &t) != SYMCOLL_SUCCESS)
            return false;
        bool ok = cudaHostAlloc((void **)&heap, 2 * max_bytes, cudaHostAllocDefault) == cudaSuccess;
        return symcoll_bootstrap_agree(boot, "nodes_put_bandwidth",
                                       ok ? SYMCOLL_SUCCESS : SYMCOLL_ERROR_OUT_OF_MEMORY) ==
                   SYMCOLL_SUCCESS &&
               symcoll_ucx_region_map(t, heap, 2 * max_bytes, SYMCOLL_UCX_MEMORY_HOST, &region) ==
                   SYMCOLL_SUCCESS;
    }
    double time(size_t bytes, size_t total) {
        char *src = heap + max_bytes;
        for (size_t i = 0; i < bytes; i++)
            src[i] = (char)(i * 131 + 1);
        auto barrier = [&] { return symcoll_ucx_barrier(t); };
        double seconds = timed(
            boot, barrier, (int)(total / bytes) + 1,
            [&] { return symcoll_ucx_put(t, region, 1, 0, src, bytes); },
            [&] { return symcoll_ucx_quiet(t); });
        return seconds > 0 && check(boot, barrier, "a UCX put", heap, bytes, 1) ? seconds : -1;
    }
    bool close(bool ok) {
        if (region)
            ok = symcoll_ucx_region_unmap(t, region) == SYMCOLL_SUCCESS && ok;
        cudaFreeHost(heap);
        return t ? symcoll_ucx_destroy(t, !ok) == SYMCOLL_SUCCESS && ok : false;
    }
};

// symcoll_put_on_stream from GPU memory to PE 1's heap; the fill pattern's seed is 2.
struct ProxyPut {
    symcoll_bootstrap_t *boot;
    char *dst = nullptr, *src = nullptr;
    cudaStream_t stream = nullptr;
    std::vector<char> host;

    ProxyPut(symcoll_bootstrap_t *b, size_t max) : boot(b), host(max) {}
    bool open() {
        dst = (char *)symcoll_malloc(host.size());
        return dst && cudaMalloc((void **)&src, host.size()) == cudaSuccess &&
               cudaStreamCreate(&stream) == cudaSuccess;
    }
    double time(size_t bytes, size_t total) {
        for (size_t i = 0; i < bytes; i++)
            host[i] = (char)(i * 131 + 2);
        auto barrier = [&] { return boot->barrier(boot); };
        if (cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemset(dst, 0, bytes) != cudaSuccess)
            return -1;
        double seconds = timed(
            boot, barrier, (int)(total / bytes) + 1,
            [&] { return symcoll_put_on_stream(dst, src, bytes, 1, stream); },
            [&] {
                return symcoll_cuda_status(cudaStreamSynchronize(stream), "nodes_put_bandwidth",
                                           "the puts");
            });
        // PE 1 reads its heap once PE 0's puts are complete.
        bool ok = seconds > 0 && barrier() == SYMCOLL_SUCCESS &&
                  cudaMemcpy(host.data(), dst, bytes, cudaMemcpyDeviceToHost) == cudaSuccess &&
                  check(boot, barrier, "a proxy put", host.data(), bytes, 2);
        return ok ? seconds : -1;
    }
    void close() {
        if (stream)
            cudaStreamDestroy(stream);
        cudaFree(src);
        symcoll_free(dst);
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 64u << 20;
    size_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 512u << 20;
    int pairs = argc > 3 ? std::atoi(argv[3]) : 3;
    if (pairs < 1)
        pairs = 1;
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return skip("no GPU");
    symcoll_status_t st = symcoll_init(nullptr);
    if (st == SYMCOLL_ERROR_UNSUPPORTED)
        return skip(symcoll_last_error());
    if (st != SYMCOLL_SUCCESS) {
        std::fprintf(stderr, "symcoll_init: %s\n", symcoll_last_error());
        return 1;
    }
    if (symcoll_n_pes() != 2 || !symcoll_g.proxy) {
        symcoll_finalize();
        return skip("needs 2 PEs on 2 nodes (symcoll-run -n 2 --nodes 2)");
    }
    std::vector<size_t> sizes;
    for (size_t bytes = 64 << 10; bytes <= max_bytes; bytes *= 4)
        sizes.push_back(bytes);
    std::vector<double> raw(sizes.size()), proxied(sizes.size());
    std::vector<std::vector<double>> ratios(sizes.size());
    symcoll_bootstrap_t *boot = symcoll_g.boot;
    RawUcx ucx(boot, max_bytes);
    ProxyPut proxy(boot, max_bytes);
    bool ok = ucx.open() && proxy.open();
    // The two alternate at each size, so that what moves the machine moves both alike.
    for (size_t s = 0; s < sizes.size() && ok; s++) {
        std::vector<double> r(pairs), p(pairs);
        for (int k = 0; k < pairs && ok; k++) {
            r[k] = ucx.time(sizes[s], total);
            p[k] = proxy.time(sizes[s], total);
            ok = r[k] > 0 && p[k] > 0;
            ratios[s].push_back(r[k] / p[k]);
        }
        if (ok) {
            raw[s] = median(r);
            proxied[s] = median(p);
        }
    }
    // Read before the transport closes: the string is libucp's.
    symcoll_ucx_capabilities_t caps = {};
    ok = ok && symcoll_ucx_capabilities(ucx.t, &caps) == SYMCOLL_SUCCESS;
    std::string version = ok ? caps.version : "";
    proxy.close();
    ok = ucx.close(ok) && ok;
    if (!ok)
        std::fprintf(stderr, "PE %d: %s\n", boot->rank, symcoll_last_error());
    if (ok && boot->rank == 0)
        print_bandwidth((std::string("PE 0 to PE 1 of another node, UCX ") + version +
                         "; ucx_put: pinned host to pinned host, proxy_put: GPU to GPU, " +
                         (symcoll_proxy_direct(symcoll_g.proxy) ? "direct" : "staged"))
                            .c_str(),
                        sizes, total, raw, proxied);
    if (ok && boot->rank == 0) {
        std::printf("# medians of %d pairs, each raw then proxy; the ratio of each pair:\n", pairs);
        for (size_t s = 0; s < sizes.size(); s++) {
            std::printf("# %12zu", sizes[s]);
            for (double r : ratios[s])
                std::printf(" %.2f", r);
            std::printf("\n");
        }
    }
    st = symcoll_finalize();
    return ok && st == SYMCOLL_SUCCESS ? 0 : 1;
}
