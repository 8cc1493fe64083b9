// symcoll_init across simulated nodes on the CPU. The PEs are forked processes that exchange over
// the socket bootstrap, each with its SYMCOLL_NODE_ID, and the link (core.cmake) wraps what init
// calls up to its first GPU work: one GPU, and the SM share agreement, the step after the
// transport, which stops init. Where the UCX transport is built (SYMCOLL_HAVE_UCX), its creation
// and destruction are wrapped too, to see what init asks of the real transport.
// core_init_nodes_without_ucx_test runs the same cases with the src/nodes_transport.c of a build
// without the UCX headers.
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "forked_job.h"
#include "internal.h"
#include "scoped_env.h"
#ifdef SYMCOLL_HAVE_UCX
#include "transport/ucx/ucx_lib.h"
#include "transport/ucx/ucx_transport.h"
#endif

namespace {

constexpr const char *kStopped = "the test stops init at the SM share";
constexpr const char *kTimeoutMs = "12345";
int share_steps; // how often init reached the step after the transport

// The launch symcoll-run makes for PE rank of nodes.size() (nodes[rank]: its node), then init.
symcoll_status_t init_on_node(const std::string &socket, int rank, const std::vector<int> &nodes) {
    setenv("SYMCOLL_BOOTSTRAP_SOCKET", socket.c_str(), 1);
    setenv("SYMCOLL_RANK", std::to_string(rank).c_str(), 1);
    setenv("SYMCOLL_SIZE", std::to_string(nodes.size()).c_str(), 1);
    setenv("SYMCOLL_NODE_ID", std::to_string(nodes[rank]).c_str(), 1);
    setenv("SYMCOLL_TIMEOUT_MS", kTimeoutMs, 1);
    return symcoll_init(nullptr);
}

// Whether this process has libucp loaded: init opens it only for a transport.
bool ucx_loaded() {
    void *handle = dlopen("libucp.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (handle)
        dlclose(handle);
    return handle != nullptr;
}

int expect_ucx_loaded(int rank, bool want) {
    if (ucx_loaded() == want)
        return 0;
    std::fprintf(stderr, "PE %d: libucp is %sloaded\n", rank, want ? "not " : "");
    return 1;
}

int expect_share_steps(int rank, int want) {
    if (share_steps == want)
        return 0;
    std::fprintf(stderr, "PE %d: init reached the SM share %d times, expected %d\n", rank,
                 share_steps, want);
    return 1;
}

// In a PE whose init must fail before any GPU work: 0 for UNSUPPORTED with a reason that opens
// with opening and names each of named, else says why and returns 1.
int expect_refused(int rank, symcoll_status_t st, const std::string &opening,
                   std::initializer_list<const char *> named) {
    const std::string why = symcoll_last_error();
    bool says = why.rfind(opening, 0) == 0;
    for (const char *text : named)
        says = says && why.find(text) != std::string::npos;
    if (!says)
        std::fprintf(stderr, "PE %d: init said: %s\n", rank, why.c_str());
    return expect_status(rank, st, SYMCOLL_ERROR_UNSUPPORTED, "init") | !says |
           expect_share_steps(rank, 0);
}

#ifdef SYMCOLL_HAVE_UCX
// What init asked of the transport in this process.
struct TransportCalls {
    bool open_absent_library = false; // creation opens a library that does not exist
    int creates = 0, destroys = 0;
    std::vector<bool> connect_to;
    uint64_t timeout_ms = 0;
    symcoll_status_t created = SYMCOLL_SUCCESS;
    symcoll_ucx_t *transport = nullptr, *destroyed = nullptr;
    int abort = -1;
} calls;
#endif

} // namespace

extern "C" {
cudaError_t __wrap_cudaGetDeviceCount(int *count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t __wrap_cudaSetDevice(int) {
    return cudaSuccess;
}
symcoll_status_t __wrap_symcoll_gpu_share_agree(void) {
    share_steps++;
    return symcoll_set_error(SYMCOLL_ERROR_CUDA, "%s", kStopped);
}

#ifdef SYMCOLL_HAVE_UCX
symcoll_status_t __real_symcoll_ucx_create(symcoll_bootstrap_t *boot, const bool *connect_to,
                                           uint64_t timeout_ms, symcoll_ucx_t **out);
symcoll_status_t __real_symcoll_ucx_destroy(symcoll_ucx_t *t, int abort);

// The absent library fails the way creation fails without libucp, every PE alike.
symcoll_status_t __wrap_symcoll_ucx_create(symcoll_bootstrap_t *boot, const bool *connect_to,
                                           uint64_t timeout_ms, symcoll_ucx_t **out) {
    calls.creates++;
    calls.connect_to.assign(connect_to, connect_to + boot->size);
    calls.timeout_ms = timeout_ms;
    if (calls.open_absent_library) {
        symcoll_ucx_lib_t lib;
        *out = nullptr;
        calls.created = symcoll_ucx_lib_open("libucp-absent-for-symcoll-tests.so.0", &lib);
    } else {
        calls.created = __real_symcoll_ucx_create(boot, connect_to, timeout_ms, out);
    }
    calls.transport = *out;
    return calls.created;
}
symcoll_status_t __wrap_symcoll_ucx_destroy(symcoll_ucx_t *t, int abort) {
    calls.destroys++;
    calls.destroyed = t;
    calls.abort = abort;
    return __real_symcoll_ucx_destroy(t, abort);
}
#endif
}

namespace {

// No launch path in the environment but the one each PE sets.
class InitNodes : public ::testing::Test {
  protected:
    ScopedEnv env_{"SYMCOLL_BOOTSTRAP",
                   "SYMCOLL_UNIQUEID",
                   "SYMCOLL_LOCAL_RANK",
                   "SYMCOLL_LOCAL_SIZE",
                   "SYMCOLL_LAUNCHER_FD",
                   "PMIX_RANK",
                   "PMIX_NAMESPACE",
                   "RANK",
                   "WORLD_SIZE",
                   "MASTER_ADDR",
                   "CUDA_DEVICE_MAX_CONNECTIONS"};
};

// Whether init created a transport in this process (never, in a build without UCX).
int expect_no_transport(int rank) {
    int rc = expect_ucx_loaded(rank, false);
#ifdef SYMCOLL_HAVE_UCX
    if (calls.creates) {
        std::fprintf(stderr, "PE %d: init created a transport\n", rank);
        rc = 1;
    }
#endif
    return rc;
}

TEST_F(InitNodes, OnOneNodeInitNeverLoadsUcx) {
    std::string socket = fresh_name();
    std::vector<int> codes = run_job(2, [&](int rank) {
        int rc = expect_status(rank, init_on_node(socket, rank, {0, 0}), SYMCOLL_ERROR_CUDA, "init",
                               kStopped);
        return rc | expect_share_steps(rank, 1) | expect_no_transport(rank);
    });
    EXPECT_EQ(codes, std::vector<int>(2, 0));
}

#ifdef SYMCOLL_HAVE_UCX
// PEs 0 and 1 on node 0, PE 2 on node 1: each PE connects to the PEs of the other node. The
// transport comes up (init passes to the SM share), and init's failure there aborts it. PE 0
// has one GPU queue (CUDA_DEVICE_MAX_CONNECTIONS=1, as some training frameworks set): the
// proxy's CUDA work has a context and queues of its own, so nothing refuses it.
TEST_F(InitNodes, AcrossNodesInitCreatesTheTransportToTheOtherNodesPes) {
    const std::vector<int> nodes = {0, 0, 1};
    std::string socket = fresh_name();
    std::vector<int> codes = run_job(3, [&](int rank) {
        if (rank == 0)
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
        int rc = expect_status(rank, init_on_node(socket, rank, nodes), SYMCOLL_ERROR_CUDA, "init",
                               kStopped);
        rc |= expect_share_steps(rank, 1) | expect_ucx_loaded(rank, true);
        std::vector<bool> others;
        for (int node : nodes)
            others.push_back(node != nodes[rank]);
        if (calls.creates != 1 || calls.connect_to != others ||
            calls.timeout_ms != std::strtoull(kTimeoutMs, nullptr, 10) ||
            calls.created != SYMCOLL_SUCCESS) {
            std::fprintf(stderr,
                         "PE %d: %d creations, the last to %zu PEs (PE 0: %d), timeout %llu ms, "
                         "%s\n",
                         rank, calls.creates, calls.connect_to.size(),
                         calls.connect_to.empty() ? -1 : (int)calls.connect_to[0],
                         (unsigned long long)calls.timeout_ms,
                         symcoll_status_string(calls.created));
            rc = 1;
        }
        if (calls.destroys != 1 || calls.destroyed != calls.transport || calls.abort != 1) {
            std::fprintf(stderr, "PE %d: %d destructions, of %s, abort %d\n", rank, calls.destroys,
                         calls.destroyed == calls.transport ? "the transport" : "another",
                         calls.abort);
            rc = 1;
        }
        return rc;
    });
    EXPECT_EQ(codes, std::vector<int>(3, 0));
}

// Without libucp, init fails before any GPU work, its message saying why UCX was needed and
// what to install.
TEST_F(InitNodes, AcrossNodesWithoutLibucpInitSaysWhyUcxAndWhatToInstall) {
    calls.open_absent_library = true;
    std::string socket = fresh_name();
    std::vector<int> codes = run_job(2, [&](int rank) {
        int rc = expect_refused(rank, init_on_node(socket, rank, {0, 1}),
                                "symcoll_init: PEs on 2 nodes need the UCX transport: UCX "
                                "transport: cannot open libucp-absent-for-symcoll-tests.so.0",
                                {"apt-get install libucx0"});
        if (calls.creates != 1 || calls.destroys != 0) {
            std::fprintf(stderr, "PE %d: %d creations, %d destructions\n", rank, calls.creates,
                         calls.destroys);
            rc = 1;
        }
        return rc;
    });
    calls.open_absent_library = false;
    EXPECT_EQ(codes, std::vector<int>(2, 0));
}
#else
TEST_F(InitNodes, AcrossNodesWithoutUcxInTheBuildInitSaysHowToRebuild) {
    std::string socket = fresh_name();
    std::vector<int> codes = run_job(2, [&](int rank) {
        return expect_refused(rank, init_on_node(socket, rank, {0, 1}),
                              "symcoll_init: PEs on 2 nodes need the UCX transport, but this "
                              "symcoll was built without the UCX headers",
                              {"apt-get install libucx-dev", "UCX_ROOT"}) |
               expect_ucx_loaded(rank, false);
    });
    EXPECT_EQ(codes, std::vector<int>(2, 0));
}
#endif

} // namespace
