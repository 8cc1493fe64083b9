// The bad-input matrix: every public function with each kind of wrong argument (NULL, not
// symmetric, out of range, overflowing count, bad root/type/op/team/stream, init twice), as one
// table run twice on the CPU: against the faked runtime of fake_runtime.h, and with symcoll not
// initialized (the state before init and after finalize alike). Every row must return its
// status with a one-line message naming the function, the argument and its value; write
// nothing (heap, local memory and team state unchanged); and leave WORLD usable.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "fake_runtime.h"
#include "symcoll_halo.h"

namespace {

using fake_runtime::kAllocBytes;
using fake_runtime::kOtherTeam;

constexpr symcoll_status_t INVALID = SYMCOLL_ERROR_INVALID_ARGUMENT;
constexpr symcoll_status_t NOT_INITIALIZED = SYMCOLL_ERROR_NOT_INITIALIZED;

// The addresses a row may use, taken from the faked runtime.
struct Buffers {
    char *a, *b;   // two live symmetric allocations of kAllocBytes
    char *gap;     // inside the heap, not allocated
    char *outside; // this PE's memory outside the heap
    uint64_t *sig; // a symmetric signal word
};

struct Row {
    const char *fn;
    std::function<symcoll_status_t(const Buffers &)> call;
    symcoll_status_t status;               // initialized
    std::vector<std::string> needles;      // the message names these
    symcoll_status_t uninitialized_status; // not initialized: NOT_INITIALIZED unless said
};

// Allocators and symcoll_ptr report failure as NULL.
symcoll_status_t null_means(symcoll_status_t status, const void *p) {
    return p ? SYMCOLL_SUCCESS : status;
}

const cudaStream_t kStream = 0;

// symcoll_halo_create on team with the default descriptor, changed by edit.
symcoll_status_t halo_create_with(symcoll_team_t team, void (*edit)(symcoll_halo_desc_t &)) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    edit(d);
    symcoll_halo_t h;
    return symcoll_halo_create(team, &d, &h);
}

std::vector<Row> rows() {
    const size_t huge = SIZE_MAX / 2;
    return {
        {"symcoll_init",
         [](auto &) { return symcoll_init(nullptr); },
         INVALID,
         {"already initialized"},
         SYMCOLL_SUCCESS},
        {"symcoll_get_uniqueid",
         [](auto &) { return symcoll_get_uniqueid(nullptr); },
         INVALID,
         {"id is NULL"},
         INVALID},
        {"symcoll_malloc",
         [=](auto &) { return null_means(SYMCOLL_ERROR_OUT_OF_MEMORY, symcoll_malloc(huge)); },
         SYMCOLL_ERROR_OUT_OF_MEMORY,
         {std::to_string(huge), "SYMCOLL_SYMMETRIC_SIZE"}},
        {"symcoll_calloc",
         [](auto &) { return null_means(INVALID, symcoll_calloc(SIZE_MAX, 16)); },
         INVALID,
         {"overflows"},
         INVALID},
        {"symcoll_free",
         [](auto &b) { return symcoll_free_checked(b.gap); },
         INVALID,
         {"not the start of a live symmetric allocation"}},
        {"symcoll_free",
         [](auto &b) { return symcoll_free_checked(b.a + 16); },
         INVALID,
         {"not the start of a live symmetric allocation"}},
        {"symcoll_ptr",
         [](auto &) { return null_means(INVALID, symcoll_ptr(nullptr, 0)); },
         INVALID,
         {"sym_addr is NULL"}},
        {"symcoll_ptr",
         [](auto &m) { return null_means(INVALID, symcoll_ptr(m.outside, 0)); },
         INVALID,
         {"sym_addr", "not inside a live symmetric allocation"}},
        {"symcoll_ptr",
         [](auto &m) { return null_means(INVALID, symcoll_ptr(m.a, 2)); },
         INVALID,
         {"pe 2 out of range"}},
        {"symcoll_ptr",
         [](auto &m) { return null_means(INVALID, symcoll_ptr(m.a, -1)); },
         INVALID,
         {"pe -1 out of range"}},

        {"symcoll_put_on_stream",
         [](auto &m) { return symcoll_put_on_stream(nullptr, m.outside, 8, 1, kStream); },
         INVALID,
         {"dst is NULL"}},
        {"symcoll_put_on_stream",
         [](auto &m) { return symcoll_put_on_stream(m.gap, m.outside, 8, 1, kStream); },
         INVALID,
         {"dst", "not inside"}},
        {"symcoll_put_on_stream",
         [](auto &m) { return symcoll_put_on_stream(m.a, m.outside, SIZE_MAX, 1, kStream); },
         INVALID,
         {"dst", std::to_string(SIZE_MAX), "runs past the end"}},
        {"symcoll_put_on_stream",
         [](auto &m) { return symcoll_put_on_stream(m.a, m.outside, 8, 2, kStream); },
         INVALID,
         {"pe 2"}},
        {"symcoll_get_on_stream",
         [](auto &m) { return symcoll_get_on_stream(m.outside, nullptr, 8, 1, kStream); },
         INVALID,
         {"src is NULL"}},
        {"symcoll_get_on_stream",
         [](auto &m) { return symcoll_get_on_stream(m.outside, m.a, 8, -3, kStream); },
         INVALID,
         {"pe -3"}},
        {"symcoll_put_signal_on_stream",
         [](auto &m) {
             return symcoll_put_signal_on_stream(m.a, m.outside, 8, (uint64_t *)(m.b + 4), 1,
                                                 SYMCOLL_SIGNAL_SET, 1, kStream);
         },
         INVALID,
         {"sig", "not 8-byte aligned"}},
        {"symcoll_put_signal_on_stream",
         [](auto &m) {
             return symcoll_put_signal_on_stream(m.a, m.outside, 8, m.sig, 1,
                                                 (symcoll_signal_op_t)9, 1, kStream);
         },
         INVALID,
         {"op 9"}},
        {"symcoll_signal_wait_until_on_stream",
         [](auto &m) {
             return symcoll_signal_wait_until_on_stream(m.sig, (symcoll_cmp_t)9, 0, kStream);
         },
         INVALID,
         {"cmp 9"}},
        {"symcoll_signal_wait_until_on_stream",
         [](auto &) {
             return symcoll_signal_wait_until_on_stream(nullptr, SYMCOLL_CMP_EQ, 0, kStream);
         },
         INVALID,
         {"sig is NULL"}},

        {"symcoll_barrier_on_stream",
         [](auto &) { return symcoll_barrier_on_stream(99, kStream); },
         INVALID,
         {"team 99"}},
        {"symcoll_barrier_on_stream",
         [](auto &) { return symcoll_barrier_on_stream(kOtherTeam, kStream); },
         INVALID,
         {"not a member of team 5"}},
        {"symcoll_broadcast_on_stream",
         [](auto &m) {
             return symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4, SYMCOLL_INT32, 2,
                                                kStream);
         },
         INVALID,
         {"root 2 out of range"}},
        {"symcoll_broadcast_on_stream",
         [](auto &m) {
             return symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4,
                                                (symcoll_datatype_t)10, 0, kStream);
         },
         INVALID,
         {"type 10"}},
        {"symcoll_broadcast_on_stream",
         [](auto &m) {
             return symcoll_broadcast_on_stream(SYMCOLL_TEAM_INVALID, m.a, m.b, 4, SYMCOLL_INT32, 0,
                                                kStream);
         },
         INVALID,
         {"team -1"}},
        {"symcoll_reduce_on_stream",
         [](auto &m) {
             return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4, SYMCOLL_FLOAT32,
                                             (symcoll_op_t)7, kStream);
         },
         INVALID,
         {"op 7"}},
        {"symcoll_reduce_on_stream",
         [](auto &m) {
             return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4, SYMCOLL_FLOAT32,
                                             SYMCOLL_XOR, kStream);
         },
         INVALID,
         {"xor", "float32"}},
        {"symcoll_reduce_on_stream",
         [](auto &m) {
             return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b + 2, 4, SYMCOLL_FLOAT32,
                                             SYMCOLL_SUM, kStream);
         },
         INVALID,
         {"src", "is not aligned to its 4-byte elements"}},
        {"symcoll_reduce_on_stream",
         [=](auto &m) {
             return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, huge, SYMCOLL_INT64,
                                             SYMCOLL_SUM, kStream);
         },
         INVALID,
         {"count", std::to_string(huge), "overflows"}},
        {"symcoll_reduce_on_stream",
         [](auto &m) {
             return symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.outside, m.b, 4, SYMCOLL_INT32,
                                             SYMCOLL_SUM, kStream);
         },
         INVALID,
         {"dst", "not inside"}},
        {"symcoll_fcollect_on_stream",
         [](auto &m) {
             return symcoll_fcollect_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.a, 4, SYMCOLL_INT32,
                                               kStream);
         },
         INVALID,
         {"overlaps"}},
        {"symcoll_fcollect_on_stream",
         [](auto &m) {
             return symcoll_fcollect_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, kAllocBytes,
                                               SYMCOLL_INT32, kStream);
         },
         INVALID,
         {"dst", "past the end"}},
        {"symcoll_alltoall_on_stream",
         [](auto &m) {
             return symcoll_alltoall_on_stream(SYMCOLL_TEAM_WORLD, m.a, nullptr, 4, SYMCOLL_INT32,
                                               kStream);
         },
         INVALID,
         {"src is NULL"}},
        {"symcoll_alltoall_on_stream",
         [](auto &m) {
             return symcoll_alltoall_on_stream(64, m.a, m.b, 4, SYMCOLL_INT32, kStream);
         },
         INVALID,
         {"team 64"}},

        {"symcoll_reduce_scatter_on_stream",
         [](auto &m) {
             return symcoll_reduce_scatter_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4,
                                                     SYMCOLL_FLOAT32, SYMCOLL_AND, kStream);
         },
         INVALID,
         {"and", "float32"}},
        {"symcoll_reduce_scatter_on_stream",
         [](auto &m) {
             return symcoll_reduce_scatter_on_stream(SYMCOLL_TEAM_WORLD, m.a + 1, m.b, 4,
                                                     SYMCOLL_INT32, SYMCOLL_SUM, kStream);
         },
         INVALID,
         {"dst", "is not aligned to its 4-byte elements"}},
        {"symcoll_reduce_scatter_on_stream",
         [](auto &m) {
             return symcoll_reduce_scatter_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, kAllocBytes / 4,
                                                     SYMCOLL_INT32, SYMCOLL_SUM, kStream);
         },
         INVALID,
         {"src", "past the end"}},

        {"symcoll_team_split_strided",
         [](auto &) {
             symcoll_team_t t;
             return symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 3, &t);
         },
         INVALID,
         {"start 0, stride 1, size 3 do not fit parent team 0 of 2 PEs"}},
        {"symcoll_team_split_strided",
         [](auto &) {
             symcoll_team_t t;
             return symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, -1, 1, 1, &t);
         },
         INVALID,
         {"start -1"}},
        {"symcoll_team_split_strided",
         [](auto &) {
             symcoll_team_t t;
             return symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 0, 2, &t);
         },
         INVALID,
         {"stride 0"}},
        {"symcoll_team_split_strided",
         [](auto &) { return symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, nullptr); },
         INVALID,
         {"new_team is NULL"}},
        {"symcoll_team_split_strided",
         [](auto &) {
             symcoll_team_t t;
             return symcoll_team_split_strided(42, 0, 1, 1, &t);
         },
         INVALID,
         {"no PE is a member of parent team 42"}},
        {"symcoll_team_destroy",
         [](auto &) { return symcoll_team_destroy(SYMCOLL_TEAM_WORLD); },
         INVALID,
         {"team 0 is built in"}},
        {"symcoll_team_destroy",
         [](auto &) { return symcoll_team_destroy(99); },
         INVALID,
         {"team 99"}},
        {"symcoll_team_status",
         [](auto &) { return symcoll_team_status(-7); },
         INVALID,
         {"team -7"}},
        {"symcoll_team_status",
         [](auto &) { return symcoll_team_status(kOtherTeam); },
         INVALID,
         {"not a member of team 5"}},
        {"symcoll_halo_create",
         [](auto &) {
             symcoll_halo_t h;
             return symcoll_halo_create(SYMCOLL_TEAM_WORLD, nullptr, &h);
         },
         INVALID,
         {"d is NULL"}},
        {"symcoll_halo_create",
         [](auto &) {
             symcoll_halo_desc_t d;
             symcoll_halo_desc_default(&d);
             return symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, nullptr);
         },
         INVALID,
         {"h is NULL"}},
        {"symcoll_halo_create",
         [](auto &) { return halo_create_with(SYMCOLL_TEAM_WORLD, [](auto &d) { d.ndims = 4; }); },
         INVALID,
         {"d->ndims 4"}},
        {"symcoll_halo_create",
         [](auto &) {
             return halo_create_with(SYMCOLL_TEAM_WORLD, [](auto &d) { d.version = 0; });
         },
         INVALID,
         {"d->version 0"}},
        {"symcoll_halo_create",
         [](auto &) { return halo_create_with(99, [](auto &) {}); },
         INVALID,
         {"team 99"}},
        {"symcoll_halo_exchange_on_stream",
         [](auto &m) { return symcoll_halo_exchange_on_stream(nullptr, m.a, kStream); },
         INVALID,
         {"h is NULL"}},
        {"symcoll_halo_exchange_many_on_stream",
         [](auto &m) {
             void *fields[] = {m.a};
             return symcoll_halo_exchange_many_on_stream(nullptr, fields, 1, kStream);
         },
         INVALID,
         {"h is NULL"}},
        {"symcoll_halo_grid",
         [](auto &) {
             int grid[3], coords[3];
             return symcoll_halo_grid(nullptr, grid, coords);
         },
         INVALID,
         {"h is NULL"},
         INVALID},
        {"symcoll_topology_text",
         [](auto &) { return symcoll_topology_text(nullptr, 16) ? SYMCOLL_SUCCESS : INVALID; },
         INVALID,
         {"buf is NULL and len is 16"}},
        {"symcoll_device_handle",
         [](auto &) {
             return symcoll_device_handle(77).team_size == 0 ? INVALID : SYMCOLL_SUCCESS;
         },
         INVALID,
         {"team 77"}},
        {"symcoll_tuning_override",
         [](auto &) { return symcoll_tuning_override(SYMCOLL_COLL_BARRIER, "flags", 0, 0); },
         INVALID,
         {"collective 1 (barrier)"},
         INVALID},
        {"symcoll_tuning_override",
         [](auto &) { return symcoll_tuning_override(SYMCOLL_COLL_REDUCE, "three_shot", 0, 0); },
         INVALID,
         {"algorithm \"three_shot\"", "reduce"},
         INVALID},
        {"symcoll_tuning_override",
         [](auto &) { return symcoll_tuning_override(SYMCOLL_COLL_FCOLLECT, "ll", 32, 0); },
         INVALID,
         {"blocks 32", "fcollect ll"},
         INVALID},
        {"symcoll_tuning_override",
         [](auto &) { return symcoll_tuning_override(SYMCOLL_COLL_ALLTOALL, "push", 0, 48); },
         INVALID,
         {"threads 48", "alltoall push"},
         INVALID},
        {"symcoll_tuning_override",
         [](auto &) { return symcoll_tuning_override(SYMCOLL_COLL_BROADCAST, nullptr, 8, 0); },
         INVALID,
         {"blocks 8", "without an algorithm"},
         INVALID},
    };
}

class ArgsMatrix : public ::testing::Test {
  protected:
    fake_runtime::Runtime rt;
    Buffers m{rt.a, rt.b, rt.memory.data() + fake_runtime::kHeapBytes / 2, rt.outside,
              (uint64_t *)(rt.b + 64)};

    // Every PE reachable, so that the RMA checks after reachability run.
    void SetUp() override {
        symcoll_g.reachable = rt.heap.reachable = 3;
    }

    void expect_message(const Row &r, const std::vector<std::string> &needles) {
        std::string why = symcoll_last_error();
        EXPECT_EQ(why.rfind(std::string(r.fn) + ": ", 0), 0u) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        for (const std::string &needle : needles)
            EXPECT_NE(why.find(needle), std::string::npos) << "\"" << needle << "\" in: " << why;
    }
    // WORLD still passes every check: a valid reduce stops only at the missing P2P path.
    void expect_world_usable() {
        EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_SUCCESS) << symcoll_last_error();
        EXPECT_EQ(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, m.a, m.b, 4, SYMCOLL_INT32,
                                           SYMCOLL_SUM, kStream),
                  SYMCOLL_ERROR_UNSUPPORTED)
            << symcoll_last_error();
    }
};

TEST_F(ArgsMatrix, EveryRowFailsCleanlyWritesNothingAndLeavesTheTeamUsable) {
    for (size_t i = 0; i < rt.memory.size(); i++)
        rt.memory[i] = (char)(i * 131 + 7);
    std::memset(rt.outside, 0x5a, sizeof rt.outside);
    const std::vector<char> heap_before = rt.memory;
    const std::vector<char> outside_before(rt.outside, rt.outside + sizeof rt.outside);
    symcoll_state_t state_before = symcoll_g;
    for (const Row &r : rows()) {
        SCOPED_TRACE(std::string(r.fn) + ": " + r.needles.front());
        symcoll_clear_error();
        EXPECT_EQ(r.call(m), r.status) << symcoll_last_error();
        expect_message(r, r.needles);
        EXPECT_TRUE(rt.memory == heap_before) << "the heap was written";
        EXPECT_EQ(std::memcmp(rt.outside, outside_before.data(), sizeof rt.outside), 0);
        EXPECT_EQ(std::memcmp(symcoll_g.teams, state_before.teams, sizeof symcoll_g.teams), 0)
            << "team state changed";
        EXPECT_EQ(rt.heap.allocator.n_live, 2u) << "an allocation was left behind";
        expect_world_usable();
    }
}

TEST_F(ArgsMatrix, BeforeInitAndAfterFinalizeEveryRowSaysNotInitialized) {
    symcoll_g.initialized = false;
    symcoll_g.my_pe = symcoll_g.n_pes = -1;
    for (const Row &r : rows()) {
        if (r.uninitialized_status == SYMCOLL_SUCCESS)
            continue; // init itself
        SCOPED_TRACE(std::string(r.fn) + ": " + r.needles.front());
        EXPECT_EQ(r.call(m), r.uninitialized_status) << symcoll_last_error();
        if (r.uninitialized_status == NOT_INITIALIZED)
            expect_message(r, {"not initialized"});
    }
    EXPECT_EQ(symcoll_my_pe(), -1);
    EXPECT_EQ(symcoll_n_pes(), -1);
    EXPECT_EQ(symcoll_finalize(), NOT_INITIALIZED);
}

// The faked WORLD has no P2P path: the barrier's flag stores would go to unmapped peer heaps,
// so it refuses like the data collectives, naming the team.
TEST_F(ArgsMatrix, BarrierOfATeamWithoutP2pIsUnsupported) {
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, kStream), SYMCOLL_ERROR_UNSUPPORTED);
    std::string why = symcoll_last_error();
    EXPECT_EQ(why.rfind("symcoll_barrier_on_stream: team 0 has members whose GPUs cannot reach", 0),
              0u)
        << why;
}

TEST_F(ArgsMatrix, QueriesAnswerMinusOneOrANameForBadValues) {
    EXPECT_EQ(symcoll_team_my_pe(99), -1);
    EXPECT_EQ(symcoll_team_my_pe(kOtherTeam), -1);
    EXPECT_EQ(symcoll_team_n_pes(-1), -1);
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_MAX_TEAMS), -1);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, 2, SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, -1, SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_translate_pe(99, 0, SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, 0, kOtherTeam), -1);
    EXPECT_STREQ(symcoll_status_string((symcoll_status_t)-1), "SYMCOLL_ERROR_UNKNOWN");
    EXPECT_STREQ(symcoll_datatype_name((symcoll_datatype_t)99), "invalid");
    EXPECT_EQ(symcoll_datatype_size((symcoll_datatype_t)-5), 0u);
    EXPECT_STREQ(symcoll_op_name((symcoll_op_t)99), "invalid");
    EXPECT_STREQ(symcoll_collective_name((symcoll_collective_t)-3), "none");
    symcoll_init_attr_default(nullptr);
    symcoll_halo_desc_default(nullptr);
    EXPECT_EQ(symcoll_halo_neighbor(nullptr, 0, 1), -1);
    EXPECT_EQ(symcoll_halo_device_handle(nullptr).dirs, 0u);
    EXPECT_EQ(symcoll_halo_destroy(nullptr), SYMCOLL_SUCCESS);
    EXPECT_EQ(symcoll_free_checked(nullptr), SYMCOLL_SUCCESS);
}

// symcoll_free is collective: this PE joins the other PEs' free even when waiting for its
// device fails (here, without a GPU, it does), frees the block, then reports the failure.
TEST_F(ArgsMatrix, FreeJoinsTheOtherPesWhenTheDeviceWaitFails) {
    static int exchanges;
    exchanges = 0;
    rt.boot.allgather = [](symcoll_bootstrap_t *b, const void *mine, void *all, size_t bytes) {
        exchanges++;
        for (int pe = 0; pe < b->size; pe++)
            std::memcpy(static_cast<char *>(all) + pe * bytes, mine, bytes);
        return SYMCOLL_SUCCESS;
    };
    symcoll_status_t st = symcoll_free_checked(m.a);
    EXPECT_GE(exchanges, 1) << "left the other PEs waiting in the free";
    EXPECT_EQ(rt.heap.allocator.n_live, 1u) << "the block is still allocated here";
    if (st != SYMCOLL_SUCCESS)
        EXPECT_NE(std::string(symcoll_last_error()).find("waiting for the device"),
                  std::string::npos)
            << symcoll_last_error();
}

// A team of one PE has no second member, so its stride means nothing; it must not be scaled
// into WORLD numbering unchecked. Here this PE is PE 4 of 8, in a parent of PEs {0, 4}
// (stride 4): stride 2^30 times 4 wrapped to 0, which the PEs past the new team's start
// divided by.
TEST_F(ArgsMatrix, SplitOfOnePeTakesAnyStride) {
    symcoll_g.n_pes = rt.boot.size = 8;
    symcoll_g.my_pe = 4;
    const symcoll_team_t parent = 6;
    rt.add_team(parent, 0, 2, 1);
    symcoll_g.teams[parent].stride = 4;
    symcoll_team_t team = 0;
    EXPECT_EQ(symcoll_team_split_strided(parent, 0, 1 << 30, 1, &team), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    EXPECT_EQ(team, SYMCOLL_TEAM_INVALID) << "the new team is PE 0 alone";
}

// A call with a stream handle that is not a stream. Only without a GPU: with a driver, asking
// it about a made-up handle is undefined.
TEST_F(ArgsMatrix, BadStream) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
        GTEST_SKIP() << "a GPU is present";
    cudaGetLastError();
    auto bogus = reinterpret_cast<cudaStream_t>(uintptr_t{0x1234});
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, bogus), INVALID);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("symcoll_barrier_on_stream: stream 0x1234 is not valid"), std::string::npos)
        << why;
    expect_world_usable();
}

} // namespace
