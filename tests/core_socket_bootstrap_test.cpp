// The socket bootstrap and the program-provided (callbacks) bootstrap in a fake job of forked
// processes on the CPU: every exchange gives every PE every PE's bytes, PEs out of step are
// named, and a PE that fails or stops calling fails the others instead of hanging them.
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "bootstrap/bootstrap.h"
#include "forked_job.h"
#include "internal.h"

namespace {

// Allgathers of several sizes (0 and odd among them) and barriers; every byte checked.
int exchange_everything(symcoll_bootstrap_t *b) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
        std::vector<unsigned char> mine(bytes + 1), all(bytes * b->size + 1, 0xee);
        for (size_t i = 0; i < bytes; i++)
            mine[i] = (unsigned char)(b->rank * 31 + i * 7);
        if (expect_status(b->rank, b->allgather(b, mine.data(), all.data(), bytes), SYMCOLL_SUCCESS,
                          "allgather"))
            return 1;
        for (int pe = 0; pe < b->size; pe++)
            for (size_t i = 0; i < bytes; i++)
                if (all[pe * bytes + i] != (unsigned char)(pe * 31 + i * 7)) {
                    std::fprintf(stderr, "PE %d: byte %zu of PE %d wrong\n", b->rank, i, pe);
                    return 1;
                }
        if (expect_status(b->rank, b->barrier(b), SYMCOLL_SUCCESS, "barrier"))
            return 1;
    }
    return 0;
}

symcoll_status_t create(const std::string &name, int rank, int size, uint64_t timeout_ms,
                        symcoll_bootstrap_t **b) {
    return symcoll_bootstrap_socket_create(name.c_str(), rank, size, timeout_ms, b);
}

TEST(SocketBootstrap, EveryPeGetsEveryPesBytes) {
    for (int n : {1, 2, 5}) {
        std::string name = fresh_name();
        std::vector<int> codes = run_job(n, [&](int rank) {
            symcoll_bootstrap_t *b = nullptr;
            if (expect_status(rank, create(name, rank, n, 20000, &b), SYMCOLL_SUCCESS, "create"))
                return 1;
            int rc = exchange_everything(b);
            b->destroy(b, 0);
            return rc;
        });
        EXPECT_EQ(codes, std::vector<int>(n, 0)) << n << " PEs";
    }
}

TEST(SocketBootstrap, PesOutOfStepAreNamed) {
    std::string name = fresh_name();
    std::vector<int> codes = run_job(3, [&](int rank) {
        symcoll_bootstrap_t *b = nullptr;
        if (expect_status(rank, create(name, rank, 3, 20000, &b), SYMCOLL_SUCCESS, "create"))
            return 1;
        uint64_t mine[2] = {1, 2}, all[6];
        size_t bytes = rank == 2 ? 16 : 8;
        symcoll_status_t st = b->allgather(b, mine, all, bytes);
        int rc = expect_status(rank, st, SYMCOLL_ERROR_BOOTSTRAP, "mismatched allgather");
        if (rank == 0 && !std::strstr(symcoll_last_error(), "PE 2"))
            rc = 1;
        if (!rc)
            rc = expect_status(rank, b->barrier(b), SYMCOLL_ERROR_BOOTSTRAP, "barrier after it");
        b->destroy(b, 1);
        return rc;
    });
    EXPECT_EQ(codes, std::vector<int>(3, 0));
}

TEST(SocketBootstrap, APeThatEndsFailsTheOthersAtOnce) {
    for (int gone : {0, 2}) {
        std::string name = fresh_name();
        std::vector<int> codes = run_job(3, [&](int rank) {
            symcoll_bootstrap_t *b = nullptr;
            if (expect_status(rank, create(name, rank, 3, 60000, &b), SYMCOLL_SUCCESS, "create"))
                return 1;
            if (rank == gone)
                _exit(0); // without destroy: the kernel closes its connections
            uint64_t started = (uint64_t)time(nullptr);
            int rc = expect_status(rank, b->barrier(b), SYMCOLL_ERROR_BOOTSTRAP, "barrier",
                                   "connection closed");
            if ((uint64_t)time(nullptr) - started > 10)
                rc = 1; // long before the 60 s timeout
            b->destroy(b, 1);
            return rc;
        });
        EXPECT_EQ(codes, std::vector<int>(3, 0)) << "PE " << gone << " ended";
    }
}

TEST(SocketBootstrap, APeThatStopsCallingTimesOut) {
    std::string name = fresh_name();
    std::vector<int> codes = run_job(2, [&](int rank) {
        symcoll_bootstrap_t *b = nullptr;
        if (expect_status(rank, create(name, rank, 2, 500, &b), SYMCOLL_SUCCESS, "create"))
            return 1;
        if (rank == 1) {
            sleep(3);
            b->destroy(b, 1);
            return 0;
        }
        int rc = expect_status(rank, b->barrier(b), SYMCOLL_ERROR_TIMEOUT, "barrier",
                               "SYMCOLL_INIT_TIMEOUT_MS");
        b->destroy(b, 1);
        return rc;
    });
    EXPECT_EQ(codes, std::vector<int>(2, 0));
}

TEST(SocketBootstrap, AMissingPeFailsCreation) {
    std::string name = fresh_name();
    std::vector<int> codes = run_job(2, [&](int rank) {
        symcoll_bootstrap_t *b = nullptr;
        // PE 2 of 3 never starts: PE 0 gives up waiting for it and closes PE 1's connection,
        // unless PE 1's own wait for PE 0's answer gives up first.
        symcoll_status_t st = create(name, rank, 3, 500, &b);
        if (rank == 0)
            return expect_status(rank, st, SYMCOLL_ERROR_TIMEOUT, "create", "2 of 3 PEs connected");
        return st == SYMCOLL_ERROR_BOOTSTRAP || st == SYMCOLL_ERROR_TIMEOUT
                   ? 0
                   : expect_status(rank, st, SYMCOLL_ERROR_BOOTSTRAP, "create");
    });
    EXPECT_EQ(codes, std::vector<int>(2, 0));
}

// The program's callbacks, here carried by a socket bootstrap of the test's own.
int program_allgather(const void *mine, void *all, size_t bytes, void *context) {
    auto *carrier = static_cast<symcoll_bootstrap_t *>(context);
    return carrier->allgather(carrier, mine, all, bytes) == SYMCOLL_SUCCESS ? 0 : 5;
}

int program_barrier(void *context) {
    auto *carrier = static_cast<symcoll_bootstrap_t *>(context);
    return carrier->barrier(carrier) == SYMCOLL_SUCCESS ? 0 : 6;
}

TEST(CallbacksBootstrap, CarriesEveryExchangeThroughTheProgram) {
    std::string name = fresh_name();
    std::vector<int> codes = run_job(3, [&](int rank) {
        symcoll_bootstrap_t *carrier = nullptr, *b = nullptr;
        if (expect_status(rank, create(name, rank, 3, 20000, &carrier), SYMCOLL_SUCCESS, "carrier"))
            return 1;
        symcoll_bootstrap_callbacks_t callbacks = {program_allgather, program_barrier, carrier};
        if (expect_status(rank, symcoll_bootstrap_callbacks_create(&callbacks, rank, 3, &b),
                          SYMCOLL_SUCCESS, "create"))
            return 1;
        int rc = exchange_everything(b);
        b->destroy(b, 0);
        carrier->destroy(carrier, 0);
        return rc;
    });
    EXPECT_EQ(codes, std::vector<int>(3, 0));
}

int failing_allgather(const void *, void *, size_t, void *) {
    return 42;
}

int failing_barrier(void *) {
    return -3;
}

// One PE: its own bytes are everything.
int alone_allgather(const void *mine, void *all, size_t bytes, void *) {
    std::memcpy(all, mine, bytes);
    return 0;
}

// Two PEs whose exchange is wired wrong: both entries come from this PE.
int miswired_allgather(const void *mine, void *all, size_t bytes, void *) {
    std::memcpy(all, mine, bytes);
    std::memcpy(static_cast<char *>(all) + bytes, mine, bytes);
    return 0;
}

std::string message() {
    return symcoll_last_error();
}

TEST(CallbacksBootstrap, ACallbackFailureIsBootstrapNamingTheCallback) {
    symcoll_bootstrap_t *b = nullptr;
    symcoll_bootstrap_callbacks_t failing = {failing_allgather, failing_barrier, nullptr};
    EXPECT_EQ(symcoll_bootstrap_callbacks_create(&failing, 0, 2, &b), SYMCOLL_ERROR_BOOTSTRAP);
    EXPECT_NE(message().find("allgather of 8 bytes returned 42"), std::string::npos) << message();

    symcoll_bootstrap_callbacks_t barrier_fails = {alone_allgather, failing_barrier, nullptr};
    ASSERT_EQ(symcoll_bootstrap_callbacks_create(&barrier_fails, 0, 1, &b), SYMCOLL_SUCCESS)
        << message();
    EXPECT_EQ(b->barrier(b), SYMCOLL_ERROR_BOOTSTRAP);
    EXPECT_NE(message().find("barrier returned -3"), std::string::npos) << message();
    b->destroy(b, 1);
}

// An exchange that does not order the PEs by attr.rank would fill every buffer wrongly.
TEST(CallbacksBootstrap, AnExchangeThatMisordersThePesIsRefused) {
    symcoll_bootstrap_t *b = nullptr;
    symcoll_bootstrap_callbacks_t miswired = {miswired_allgather, failing_barrier, nullptr};
    EXPECT_EQ(symcoll_bootstrap_callbacks_create(&miswired, 0, 2, &b), SYMCOLL_ERROR_BOOTSTRAP);
    EXPECT_NE(message().find("entry 1 of attr.callbacks.allgather came from a PE that says "
                             "attr.rank 0 and attr.size 2"),
              std::string::npos)
        << message();
}

} // namespace
