// Fuzz target over configuration and argument checking. Each input is read as a stream of
// choices: SYMCOLL_* assignments for symcoll_env_load, an init attr for symcoll_init's checks,
// or a public call with arguments picked from the faked runtime of fake_runtime.h (only where
// no GPU is present: with one, a call that passes every check would really run). It aborts
// when a call crashes, returns a status it may not, leaves a message that does not name the
// variable or function on one line, writes anything after a rejected call, or leaves WORLD
// unusable. Built for libFuzzer with clang; fuzz_random_driver.cpp feeds it otherwise.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "env.h"
#include "fake_runtime.h"
#include "tuning.h"

namespace {

class Input {
  public:
    Input(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
    bool empty() const {
        return p_ == end_;
    }
    uint8_t byte() {
        return p_ < end_ ? *p_++ : 0;
    }
    uint64_t u64() {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | byte();
        return v;
    }
    // A small integer around the interesting range, sometimes any 32-bit value.
    int small_int() {
        uint8_t b = byte();
        return b < 240 ? (int)b - 8 : (int)(uint32_t)u64();
    }
    std::string text() {
        size_t n = byte() % 48;
        if (n == 47)
            n = 300; // longer than any message shows
        std::string s;
        for (size_t i = 0; i < n && !empty(); i++)
            if (char c = (char)byte())
                s += c;
        return s;
    }

  private:
    const uint8_t *p_, *end_;
};

void require(bool ok, const char *what, const std::string &detail = symcoll_last_error()) {
    if (ok)
        return;
    std::fprintf(stderr, "fuzz_config: %s: %s\n", what, detail.c_str());
    std::abort();
}

bool message_names(const char *prefix) {
    std::string why = symcoll_last_error();
    return why.rfind(prefix, 0) == 0 && why.find('\n') == std::string::npos;
}

const char *const kVariables[] = {
#define SYMCOLL_ENV(name, kind, field, def, help) "SYMCOLL_" #name,
#include "env.def"
#undef SYMCOLL_ENV
};

bool algo_known(symcoll_collective_t c, const char *name) {
    if (!*name)
        return true;
    for (const char *const *n = symcoll_collective_algorithms(c); *n; n++)
        if (!std::strcmp(*n, name))
            return true;
    return false;
}

void fuzz_environment(Input &in) {
    for (const char *v : kVariables)
        unsetenv(v);
    for (int i = 0, n = in.byte() % 5; i < n; i++) {
        const char *name = kVariables[in.byte() % (sizeof kVariables / sizeof *kVariables)];
        setenv(name, in.text().c_str(), 1);
    }
    symcoll_status_t st = symcoll_env_load();
    if (st != SYMCOLL_SUCCESS) {
        require(st == SYMCOLL_ERROR_INVALID_ARGUMENT, "env load status");
        require(message_names("environment: SYMCOLL_"), "env message");
        return;
    }
    const symcoll_env_t *e = symcoll_env();
    require(e->symmetric_size > 0, "heap size");
    require(e->timeout_ms >= 0 && e->timeout_ms <= INT_MAX, "timeout");
    require(e->init_timeout_ms >= 1 && e->init_timeout_ms <= INT_MAX, "init timeout");
    require(e->debug >= 0 && e->debug <= 4 && (e->info == 0 || e->info == 1), "debug or info");
    require(e->bootstrap_port >= 0 && e->bootstrap_port <= 65535, "port");
    require(e->rank >= -1 && e->rank < SYMCOLL_MAX_PES && e->size <= SYMCOLL_MAX_PES, "PE range");
    require(e->rank < e->size || e->rank == -1, "rank below size");
    require(e->local_rank < e->local_size || e->local_rank == -1 || e->local_size == -1,
            "local rank below local size");
    require(std::strlen(e->uniqueid) == 0 || std::strlen(e->uniqueid) == 256, "unique id");
    require(algo_known(SYMCOLL_COLL_BROADCAST, e->algo_broadcast) &&
                algo_known(SYMCOLL_COLL_REDUCE, e->algo_reduce) &&
                algo_known(SYMCOLL_COLL_FCOLLECT, e->algo_fcollect) &&
                algo_known(SYMCOLL_COLL_ALLTOALL, e->algo_alltoall),
            "algorithm names");
}

void fuzz_attr(Input &in) {
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    if (in.byte() % 8 == 0)
        attr.version = (uint32_t)in.u64();
    if (in.byte() % 2)
        attr.heap_size = in.byte() % 2 ? in.u64() : in.byte();
    attr.device = in.byte() % 2 ? in.small_int() : -1;
    attr.bootstrap = (symcoll_bootstrap_kind_t)(in.byte() % 7 - 1);
    if (in.byte() % 2)
        attr.uniqueid.internal[in.byte() % sizeof attr.uniqueid.internal] = (char)in.byte();
    if (in.byte() % 2) {
        attr.rank = in.small_int();
        attr.size = in.small_int();
    }
    static int comm_stand_in;
    attr.nccl_comm = in.byte() % 2 ? &comm_stand_in : nullptr;
    symcoll_status_t st = symcoll_init_check_attr(&attr);
    if (st != SYMCOLL_SUCCESS) {
        require(st == SYMCOLL_ERROR_INVALID_ARGUMENT, "attr status");
        require(message_names("symcoll_init: attr."), "attr message");
        return;
    }
    require(attr.version == SYMCOLL_INIT_ATTR_VERSION && attr.device >= -1, "accepted attr");
    if (attr.bootstrap == SYMCOLL_BOOTSTRAP_UNIQUEID)
        require(attr.size >= 1 && attr.size <= SYMCOLL_MAX_PES && attr.rank >= 0 &&
                    attr.rank < attr.size,
                "accepted rank and size");
    if (attr.bootstrap == SYMCOLL_BOOTSTRAP_NCCL_COMM)
        require(attr.nccl_comm != nullptr, "accepted communicator");
}

// The faked runtime, its memory poisoned once; every rejected call must leave it as it is.
struct Calls {
    fake_runtime::Runtime rt;
    std::vector<char> heap_before;
    symcoll_team_state_t teams_before[SYMCOLL_MAX_TEAMS];

    Calls() {
        symcoll_g.reachable = rt.heap.reachable = 3;
        for (size_t i = 0; i < rt.memory.size(); i++)
            rt.memory[i] = (char)(i * 131 + 7);
        heap_before = rt.memory;
        std::memcpy(teams_before, symcoll_g.teams, sizeof teams_before);
    }
    void *pointer(Input &in) {
        size_t off = (size_t)in.byte() * 8;
        switch (in.byte() % 8) {
        case 0:
            return nullptr;
        case 1:
            return rt.a + off % fake_runtime::kAllocBytes;
        case 2:
            return rt.b + off % fake_runtime::kAllocBytes;
        case 3:
            return rt.memory.data() + fake_runtime::kHeapBytes / 2 + off; // free gap
        case 4:
            return rt.outside + off % sizeof rt.outside;
        case 5:
            return rt.a + fake_runtime::kAllocBytes - in.byte() % 16;
        case 6:
            return reinterpret_cast<void *>(UINTPTR_MAX - in.byte());
        default:
            return rt.a + in.byte() % 8; // misaligned
        }
    }
    size_t count(Input &in) {
        switch (in.byte() % 6) {
        case 0:
            return 0;
        case 1:
            return in.byte();
        case 2:
            return fake_runtime::kAllocBytes / (1 + in.byte() % 8);
        case 3:
            return SIZE_MAX - in.byte();
        case 4:
            return SIZE_MAX / (2 + in.byte());
        default:
            return in.u64();
        }
    }
    symcoll_team_t team(Input &in) {
        uint8_t b = in.byte();
        return b < 128   ? SYMCOLL_TEAM_WORLD
               : b < 200 ? (symcoll_team_t)(b % 8 - 1)
                         : in.small_int();
    }
    // One call; its name, for the message check.
    const char *call(Input &in, symcoll_status_t *st) {
        void *dst = pointer(in), *src = pointer(in);
        size_t n = count(in);
        int pe = in.small_int();
        auto type = (symcoll_datatype_t)in.small_int();
        cudaStream_t stream = in.byte() % 4 ? nullptr : cudaStreamPerThread;
        switch (in.byte() % 11) {
        case 0:
            *st = symcoll_put_on_stream(dst, src, n, pe, stream);
            return "symcoll_put_on_stream";
        case 1:
            *st = symcoll_get_on_stream(dst, src, n, pe, stream);
            return "symcoll_get_on_stream";
        case 2:
            *st = symcoll_put_signal_on_stream(dst, src, n, (uint64_t *)pointer(in), in.u64(),
                                               (symcoll_signal_op_t)in.small_int(), pe, stream);
            return "symcoll_put_signal_on_stream";
        case 3:
            *st = symcoll_signal_wait_until_on_stream(
                (uint64_t *)dst, (symcoll_cmp_t)in.small_int(), in.u64(), stream);
            return "symcoll_signal_wait_until_on_stream";
        case 4:
            *st = symcoll_barrier_on_stream(team(in), stream);
            return "symcoll_barrier_on_stream";
        case 5:
            *st = symcoll_broadcast_on_stream(team(in), dst, src, n, type, pe, stream);
            return "symcoll_broadcast_on_stream";
        case 6:
            *st = symcoll_reduce_on_stream(team(in), dst, src, n, type,
                                           (symcoll_op_t)in.small_int(), stream);
            return "symcoll_reduce_on_stream";
        case 7:
            *st = symcoll_fcollect_on_stream(team(in), dst, src, n, type, stream);
            return "symcoll_fcollect_on_stream";
        case 8:
            *st = symcoll_alltoall_on_stream(team(in), dst, src, n, type, stream);
            return "symcoll_alltoall_on_stream";
        case 9:
            *st = symcoll_ptr(dst, pe) ? SYMCOLL_SUCCESS : SYMCOLL_ERROR_INVALID_ARGUMENT;
            return "symcoll_ptr";
        default: {
            int start = in.small_int(), stride = in.small_int(), size = in.small_int();
            symcoll_team_t parent = team(in), made;
            bool creates_here = parent == SYMCOLL_TEAM_WORLD && size >= 1 && stride >= 1 &&
                                start == 0 && (long long)(size - 1) * stride < 2;
            if (creates_here) // setting a team up on this PE needs a GPU
                return nullptr;
            *st = symcoll_team_split_strided(parent, start, stride, size, &made);
            require(made == SYMCOLL_TEAM_INVALID, "split made a team without this PE");
            return "symcoll_team_split_strided";
        }
        }
    }
    void run(Input &in) {
        symcoll_status_t st = SYMCOLL_SUCCESS;
        symcoll_clear_error();
        const char *fn = call(in, &st);
        if (!fn)
            return;
        bool rejected = st == SYMCOLL_ERROR_INVALID_ARGUMENT || st == SYMCOLL_ERROR_UNSUPPORTED ||
                        st == SYMCOLL_ERROR_OUT_OF_MEMORY;
        // A call that passed every check reaches CUDA (no driver here) or enqueues nothing.
        require(rejected || st == SYMCOLL_SUCCESS || st == SYMCOLL_ERROR_NO_GPU ||
                    st == SYMCOLL_ERROR_CUDA,
                "status", symcoll_status_string(st));
        if (st != SYMCOLL_SUCCESS)
            require(message_names((std::string(fn) + ": ").c_str()), "call message");
        require(rt.memory == heap_before, "a call wrote into the heap", fn);
        require(!std::memcmp(teams_before, symcoll_g.teams, sizeof teams_before),
                "a call changed the teams", fn);
        require(symcoll_team_status(SYMCOLL_TEAM_WORLD) == SYMCOLL_SUCCESS &&
                    symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, rt.a, rt.b, 4, SYMCOLL_INT32,
                                             SYMCOLL_SUM, nullptr) == SYMCOLL_ERROR_UNSUPPORTED,
                "WORLD unusable after", fn);
    }
};

bool gpu_present() {
    static const bool present = [] {
        int devices = 0;
        bool yes = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
        cudaGetLastError();
        return yes;
    }();
    return present;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Input in(data, size);
    switch (in.byte() % 3) {
    case 0:
        fuzz_environment(in);
        break;
    case 1:
        fuzz_attr(in);
        break;
    default:
        if (!gpu_present()) {
            static Calls calls;
            calls.run(in);
        }
    }
    return 0;
}
