// A PE that dies: its process ends without a word after the transport (and the proxy) are up.
// The survivor's quiet fails within the timeout, naming the dead PE, and its teardown with abort
// returns without waiting on it. The PEs are forked processes over the socket bootstrap, so the
// job outlives one of them (mpirun would end it). UCX_TLS comes from the test's environment.
#include <dlfcn.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>
#include <gtest/gtest.h>
#include "forked_job.h"
#include "internal.h"
#include "proxy_host_heap.h"
#include "transport/ucx/ucx_transport.h"

namespace {

constexpr uint64_t kTimeoutMs = 1500;
constexpr size_t kBytes = 1 << 20;

// Seconds since start.
double since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// In the surviving PE: the failed wait names PE 1 and took at most the timeout and a margin.
int expect_named(const char *what, symcoll_status_t st, double waited) {
    std::string why = symcoll_last_error();
    bool named = st != SYMCOLL_SUCCESS && why.find("PE 1") != std::string::npos;
    std::fprintf(stderr, "PE 0: %s after the death of PE 1: %s (%s) after %.2f s\n", what,
                 symcoll_status_string(st), why.c_str(), waited);
    return named && waited < kTimeoutMs / 1000.0 + 2.0 ? 0 : 1;
}

// Both PEs: the socket bootstrap, the transport and a window (and, with `proxied`, the proxy
// over them); then PE 1 dies and PE 0 puts to it and waits.
int dead_peer(const std::string &socket, int rank, bool proxied) {
    symcoll_bootstrap_t *boot = nullptr;
    if (symcoll_bootstrap_socket_create(socket.c_str(), rank, 2, 10000, &boot) != SYMCOLL_SUCCESS)
        return expect_status(rank, SYMCOLL_ERROR_BOOTSTRAP, SYMCOLL_SUCCESS, "the bootstrap");
    symcoll_ucx_t *t = nullptr;
    symcoll_status_t st = symcoll_ucx_create(boot, nullptr, kTimeoutMs, &t);
    if (st != SYMCOLL_SUCCESS)
        return expect_status(rank, st, SYMCOLL_SUCCESS, "symcoll_ucx_create");
    std::vector<uint64_t> storage(2 * kBytes / 8);
    char *heap = reinterpret_cast<char *>(storage.data());
    HostHeap memory;
    symcoll_proxy_memory_t ops = memory.ops();
    symcoll_proxy_t *proxy = nullptr;
    symcoll_ucx_region_t *region = nullptr;
    st = proxied
             ? symcoll_proxy_create(boot, t, heap, 2 * kBytes, &ops, nullptr, kTimeoutMs, &proxy)
             : symcoll_ucx_region_map(t, heap, 2 * kBytes, SYMCOLL_UCX_MEMORY_HOST, &region);
    if (st == SYMCOLL_SUCCESS)
        st = boot->barrier(boot);
    if (st != SYMCOLL_SUCCESS)
        return expect_status(rank, st, SYMCOLL_SUCCESS, "the set-up");
    if (rank == 1)
        _exit(0); // dead: no teardown, no word to anyone
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto start = std::chrono::steady_clock::now();
    if (proxied) {
        symcoll_proxy_put_t put = {1, 0, heap + kBytes, kBytes, true, 0, 1, SYMCOLL_UCX_SIGNAL_ADD};
        st = symcoll_proxy_put(proxy, &put, nullptr);
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_proxy_quiet(proxy);
    } else {
        st = symcoll_ucx_put(t, region, 1, 0, heap + kBytes, kBytes);
        if (st == SYMCOLL_SUCCESS)
            st = symcoll_ucx_quiet(t);
    }
    int failed =
        expect_named(proxied ? "symcoll_proxy_quiet" : "symcoll_ucx_quiet", st, since(start));
    start = std::chrono::steady_clock::now();
    if (proxied)
        symcoll_proxy_destroy(proxy, 1);
    symcoll_ucx_destroy(t, 1);
    boot->destroy(boot, 1);
    double teardown = since(start);
    if (teardown > kTimeoutMs / 1000.0 + 2.0) {
        std::fprintf(stderr, "PE 0: the teardown with abort took %.2f s\n", teardown);
        failed = 1;
    }
    return failed;
}

class DeadPeer : public ::testing::TestWithParam<bool> {};

TEST_P(DeadPeer, TheSurvivorsQuietNamesItAndTheAbortDoesNotWaitForIt) {
    void *ucp = dlopen("libucp.so.0", RTLD_NOW);
    if (!ucp)
        GTEST_SKIP() << "no libucp.so.0: " << dlerror();
    dlclose(ucp);
    std::string socket = fresh_name();
    std::vector<int> codes =
        run_job(2, [&](int rank) { return dead_peer(socket, rank, GetParam()); });
    EXPECT_EQ(codes[0], 0) << "the surviving PE (its reasons on stderr)";
    EXPECT_EQ(codes[1], 0) << "the PE that died";
}

INSTANTIATE_TEST_SUITE_P(Transport, DeadPeer, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                             return info.param ? std::string("Proxy") : std::string("Ucx");
                         });

} // namespace
