// Every argument check of the host RMA calls, as one table of cases over a described world:
// run on the CPU against a faked runtime (check_rma_args.cpp) and on GPUs against the real
// one (rma_args.cu). A case passes when the call fails with the expected status and a
// message that names the function and the argument's value.
#ifndef SYMCOLL_CHECK_RMA_CASES_H
#define SYMCOLL_CHECK_RMA_CASES_H

#include <cstdint>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "symcoll.h"

namespace check_rma {

struct World {
    char *sym; // a live symmetric allocation of sym_bytes (>= 64), 256-byte aligned
    size_t sym_bytes;
    void *local; // memory of this PE that is not symmetric, >= 64 bytes
    int me, n;   // WORLD numbering
    cudaStream_t stream;
};

inline void expect_error(symcoll_status_t got, symcoll_status_t want,
                         const std::vector<std::string> &needles, const char *what) {
    EXPECT_EQ(got, want) << what << ": " << symcoll_status_string(got);
    std::string message = symcoll_last_error();
    for (const std::string &needle : needles)
        EXPECT_NE(message.find(needle), std::string::npos)
            << what << ": \"" << message << "\" does not mention \"" << needle << "\"";
}

#define CHECK_RMA_CASE(call, status, ...) expect_error((call), (status), {__VA_ARGS__}, #call)

inline void expect_every_rma_check(const World &w) {
    const symcoll_status_t INVALID = SYMCOLL_ERROR_INVALID_ARGUMENT;
    char *sym = w.sym, *local = (char *)w.local;
    uint64_t *sig = (uint64_t *)(sym + w.sym_bytes - 8);
    int peer = (w.me + 1) % w.n;
    void *wraps = (void *)(UINTPTR_MAX - 3);
    std::string bad_pe = "pe " + std::to_string(w.n);
    const char *put = "symcoll_put_on_stream", *get = "symcoll_get_on_stream";
    const char *ps = "symcoll_put_signal_on_stream";
    const char *wait = "symcoll_signal_wait_until_on_stream";

    // put: dst symmetric and inside its allocation, src present, pe in range, no overlap.
    CHECK_RMA_CASE(symcoll_put_on_stream(nullptr, local, 8, peer, w.stream), INVALID, put,
                   "dst is NULL");
    CHECK_RMA_CASE(symcoll_put_on_stream(local, local, 8, peer, w.stream), INVALID, put, "dst",
                   "not inside a live symmetric allocation");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym + w.sym_bytes - 4, local, 8, peer, w.stream), INVALID,
                   put, "dst", "runs past the end");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym, local, SIZE_MAX, peer, w.stream), INVALID, put,
                   "runs past the end");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym, nullptr, 8, peer, w.stream), INVALID, put,
                   "src is NULL");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym, wraps, 8, peer, w.stream), INVALID, put, "src",
                   "wraps");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym, local, 8, -1, w.stream), INVALID, put, "pe -1");
    CHECK_RMA_CASE(symcoll_put_on_stream(sym, local, 8, w.n, w.stream), INVALID, put, bad_pe);
    CHECK_RMA_CASE(symcoll_put_on_stream(sym + 16, sym, 32, w.me, w.stream), INVALID, put,
                   "overlaps");
    CHECK_RMA_CASE(symcoll_put_on_stream(nullptr, nullptr, 0, w.n, w.stream), INVALID, put, bad_pe);

    // get: src symmetric, dst present, pe in range, no overlap.
    CHECK_RMA_CASE(symcoll_get_on_stream(local, nullptr, 8, peer, w.stream), INVALID, get,
                   "src is NULL");
    CHECK_RMA_CASE(symcoll_get_on_stream(local, local, 8, peer, w.stream), INVALID, get, "src",
                   "not inside a live symmetric allocation");
    CHECK_RMA_CASE(symcoll_get_on_stream(local, sym + 8, w.sym_bytes, peer, w.stream), INVALID, get,
                   "src", "runs past the end");
    CHECK_RMA_CASE(symcoll_get_on_stream(nullptr, sym, 8, peer, w.stream), INVALID, get,
                   "dst is NULL");
    CHECK_RMA_CASE(symcoll_get_on_stream(wraps, sym, 8, peer, w.stream), INVALID, get, "dst",
                   "wraps");
    CHECK_RMA_CASE(symcoll_get_on_stream(local, sym, 8, -7, w.stream), INVALID, get, "pe -7");
    CHECK_RMA_CASE(symcoll_get_on_stream(local, sym, 8, w.n, w.stream), INVALID, get, bad_pe);
    CHECK_RMA_CASE(symcoll_get_on_stream(sym, sym + 8, 16, w.me, w.stream), INVALID, get,
                   "overlaps");

    // put_signal: op, then the signal (symmetric, aligned), then the data as for put.
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(sym, local, 8, sig, 1, (symcoll_signal_op_t)2, peer, w.stream),
        INVALID, ps, "op 2");
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(sym, local, 8, nullptr, 1, SYMCOLL_SIGNAL_SET, peer, w.stream),
        INVALID, ps, "sig is NULL");
    CHECK_RMA_CASE(symcoll_put_signal_on_stream(sym, local, 8, (uint64_t *)local, 1,
                                                SYMCOLL_SIGNAL_ADD, peer, w.stream),
                   INVALID, ps, "sig", "not inside a live symmetric allocation");
    CHECK_RMA_CASE(symcoll_put_signal_on_stream(sym, local, 8, (uint64_t *)(sym + 4), 1,
                                                SYMCOLL_SIGNAL_SET, peer, w.stream),
                   INVALID, ps, "sig", "not 8-byte aligned");
    CHECK_RMA_CASE(symcoll_put_signal_on_stream(sym, local, 8, (uint64_t *)(sym + w.sym_bytes - 4),
                                                1, SYMCOLL_SIGNAL_SET, peer, w.stream),
                   INVALID, ps, "sig", "runs past the end");
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(local, local, 8, sig, 1, SYMCOLL_SIGNAL_SET, peer, w.stream),
        INVALID, ps, "dst", "not inside a live symmetric allocation");
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(sym, nullptr, 8, sig, 1, SYMCOLL_SIGNAL_SET, peer, w.stream),
        INVALID, ps, "src is NULL");
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(sym + 8, sym, 16, sig, 1, SYMCOLL_SIGNAL_SET, w.me, w.stream),
        INVALID, ps, "overlaps");
    CHECK_RMA_CASE(symcoll_put_signal_on_stream(sym, local, w.sym_bytes, (uint64_t *)sym, 1,
                                                SYMCOLL_SIGNAL_SET, peer, w.stream),
                   INVALID, ps, "sig", "overlaps");
    CHECK_RMA_CASE(
        symcoll_put_signal_on_stream(sym, local, 8, sig, 1, SYMCOLL_SIGNAL_SET, w.n, w.stream),
        INVALID, ps, bad_pe);

    // signal_wait_until: cmp, then the signal.
    CHECK_RMA_CASE(symcoll_signal_wait_until_on_stream(sig, (symcoll_cmp_t)6, 0, w.stream), INVALID,
                   wait, "cmp 6");
    CHECK_RMA_CASE(symcoll_signal_wait_until_on_stream(sig, (symcoll_cmp_t)-1, 0, w.stream),
                   INVALID, wait, "cmp -1");
    CHECK_RMA_CASE(symcoll_signal_wait_until_on_stream(nullptr, SYMCOLL_CMP_EQ, 0, w.stream),
                   INVALID, wait, "sig is NULL");
    CHECK_RMA_CASE(
        symcoll_signal_wait_until_on_stream((uint64_t *)local, SYMCOLL_CMP_EQ, 0, w.stream),
        INVALID, wait, "sig", "not inside a live symmetric allocation");
    CHECK_RMA_CASE(
        symcoll_signal_wait_until_on_stream((uint64_t *)(sym + 12), SYMCOLL_CMP_GE, 0, w.stream),
        INVALID, wait, "sig", "not 8-byte aligned");
}

#undef CHECK_RMA_CASE

} // namespace check_rma

#endif
