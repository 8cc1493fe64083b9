// A PE that dies or stops calling: the survivors see SYMCOLL_ERROR_TIMEOUT within
// SYMCOLL_TIMEOUT_MS plus a margin, later calls fail at once, and symcoll_finalize returns
// within SYMCOLL_INIT_TIMEOUT_MS with a status that names the broken team. Run under
// `symcoll-run --keep-going -n 2 dead_peer MODE`; the last PE is the victim:
//   exit-idle  _exit(0) between collectives      exit-mid  _exit(0) inside a reduce
//   kill-mid   SIGKILL inside a reduce           stall     stops calling, finalizes late
//   rma-exit   _exit(0) while the survivors wait for its put_signal
// Prints "dead-peer PASS" on every survivor that met every limit.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "symcoll.h"

namespace {

constexpr size_t kCount = 16u << 20; // floats: 64 MiB, a bandwidth-path reduce
constexpr double kMarginMs = 2000;   // clock checks, launch and host polling

double now_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

long env_ms(const char *name) {
    const char *v = std::getenv(name);
    return v ? std::atol(v) : 0;
}

bool check(bool ok, const char *what) {
    if (!ok)
        std::printf("PE %d: FAILED: %s (%s)\n", symcoll_my_pe(), what, symcoll_last_error());
    return ok;
}

struct Buffers {
    float *src, *dst;
    uint64_t *signal;
    cudaStream_t stream;
};

symcoll_status_t reduce(const Buffers &b) {
    return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, b.dst, b.src, kCount, SYMCOLL_FLOAT32,
                                    SYMCOLL_SUM, b.stream);
}

// The victim's part: never returns, except in stall mode.
void victim(const std::string &mode, const Buffers &b, long timeout_ms, long init_timeout_ms) {
    if (mode == "exit-mid" || mode == "kill-mid") {
        reduce(b); // and die while it runs
        if (mode == "kill-mid")
            raise(SIGKILL);
        _exit(0);
    }
    if (mode != "stall")
        _exit(0);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(2 * (timeout_ms + init_timeout_ms) + (long)kMarginMs));
    double start = now_ms();
    symcoll_status_t st = symcoll_finalize();
    double took = now_ms() - start;
    std::printf("PE %d (stalled): finalize %.0f ms, %s: %s\n", symcoll_my_pe(), took,
                symcoll_status_string(st), symcoll_last_error());
    bool ok = check(st != SYMCOLL_SUCCESS, "finalize without peers must fail") &&
              check(took <= init_timeout_ms + kMarginMs, "finalize within the init timeout");
    std::exit(ok ? 0 : 1);
}

// Enqueues the operation the victim abandons and waits for the stream.
symcoll_status_t abandoned_call(const std::string &mode, const Buffers &b) {
    symcoll_status_t st =
        mode == "rma-exit"
            ? symcoll_signal_wait_until_on_stream(b.signal, SYMCOLL_CMP_GE, 1, b.stream)
            : reduce(b);
    if (st != SYMCOLL_SUCCESS)
        return st;
    cudaStreamSynchronize(b.stream);
    return symcoll_team_status(SYMCOLL_TEAM_WORLD);
}

bool survivor(const std::string &mode, const Buffers &b, long timeout_ms, long init_timeout_ms) {
    double start = now_ms();
    symcoll_status_t st = SYMCOLL_SUCCESS;
    // exit-mid and kill-mid: the victim may have finished the reduce it entered, so the
    // survivor's next call is the one left waiting.
    for (int call = 0; call < 3 && st == SYMCOLL_SUCCESS; call++)
        st = abandoned_call(mode, b);
    double detected = now_ms() - start;
    std::printf("PE %d: detection %.0f ms (SYMCOLL_TIMEOUT_MS %ld): %s: %s\n", symcoll_my_pe(),
                detected, timeout_ms, symcoll_status_string(st), symcoll_last_error());
    bool ok = check(st == SYMCOLL_ERROR_TIMEOUT, "the abandoned call reports TIMEOUT") &&
              check(std::strstr(symcoll_last_error(), "PE 1") != nullptr,
                    "the record names the missing PE") &&
              check(detected <= 2 * timeout_ms + kMarginMs, "detection within the timeout");
    double again = now_ms();
    st = reduce(b);
    again = now_ms() - again;
    std::printf("PE %d: next call %.3f ms: %s\n", symcoll_my_pe(), again,
                symcoll_status_string(st));
    ok = check(st == SYMCOLL_ERROR_TIMEOUT && again < 50, "later calls fail at once") && ok;
    double fin = now_ms();
    st = symcoll_finalize();
    fin = now_ms() - fin;
    std::printf("PE %d: finalize %.0f ms (SYMCOLL_INIT_TIMEOUT_MS %ld): %s: %s\n", symcoll_my_pe(),
                fin, init_timeout_ms, symcoll_status_string(st), symcoll_last_error());
    ok = check(st == SYMCOLL_ERROR_TIMEOUT, "finalize reports the broken team") &&
         check(fin <= init_timeout_ms + kMarginMs, "finalize within the init timeout") && ok;
    return ok;
}

} // namespace

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "exit-idle" && mode != "exit-mid" && mode != "kill-mid" && mode != "stall" &&
        mode != "rma-exit") {
        std::fprintf(stderr, "usage: dead_peer exit-idle|exit-mid|kill-mid|stall|rma-exit\n");
        return 2;
    }
    symcoll_status_t st = symcoll_init(nullptr);
    if (st == SYMCOLL_ERROR_NO_GPU) {
        std::printf("[  SKIPPED ] no GPU: %s\n", symcoll_last_error());
        return 77;
    }
    if (!check(st == SYMCOLL_SUCCESS, "symcoll_init"))
        return 1;
    long timeout_ms = env_ms("SYMCOLL_TIMEOUT_MS"),
         init_timeout_ms = env_ms("SYMCOLL_INIT_TIMEOUT_MS");
    if (!check(symcoll_n_pes() == 2 && timeout_ms > 0 && init_timeout_ms > 0,
               "2 PEs with SYMCOLL_TIMEOUT_MS and SYMCOLL_INIT_TIMEOUT_MS set"))
        return 1;
    Buffers b;
    b.src = static_cast<float *>(symcoll_calloc(kCount, sizeof(float)));
    b.dst = static_cast<float *>(symcoll_calloc(kCount, sizeof(float)));
    b.signal = static_cast<uint64_t *>(symcoll_calloc(1, sizeof(uint64_t)));
    if (!check(b.src && b.dst && b.signal, "symcoll_calloc") ||
        !check(cudaStreamCreate(&b.stream) == cudaSuccess, "cudaStreamCreate"))
        return 1;
    // Healthy first: one reduce completes everywhere.
    if (!check(reduce(b) == SYMCOLL_SUCCESS && cudaStreamSynchronize(b.stream) == cudaSuccess &&
                   symcoll_team_status(SYMCOLL_TEAM_WORLD) == SYMCOLL_SUCCESS,
               "a reduce before the failure") ||
        !check(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, b.stream) == SYMCOLL_SUCCESS &&
                   cudaStreamSynchronize(b.stream) == cudaSuccess,
               "a barrier before the failure"))
        return 1;
    if (symcoll_my_pe() == symcoll_n_pes() - 1)
        victim(mode, b, timeout_ms, init_timeout_ms);
    bool ok = survivor(mode, b, timeout_ms, init_timeout_ms);
    std::printf("PE %d: dead-peer %s (%s)\n", symcoll_my_pe(), ok ? "PASS" : "FAIL", mode.c_str());
    return ok ? 0 : 1;
}
