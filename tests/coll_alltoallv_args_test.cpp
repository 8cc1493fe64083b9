// Host argument checks of alltoallv and the MoE dispatch and combine, on the CPU against the
// faked runtime of fake_runtime.h (a 2-PE team without a P2P path: a call that passes every
// check is stopped there with UNSUPPORTED, so nothing launches). Their counts live in device
// memory, so these are all the checks a call can make before its kernel.
#include <cstdint>
#include <string>
#include <gtest/gtest.h>
#include "fake_runtime.h"

namespace {

using fake_runtime::kAllocBytes;
using fake_runtime::kHeapBytes;
using fake_runtime::kOtherTeam;

enum Call { ALLTOALLV, DISPATCH, COMBINE };
const Call kCalls[] = {ALLTOALLV, DISPATCH, COMBINE};
const char *const kNames[] = {"symcoll_alltoallv_on_stream", "symcoll_moe_dispatch_on_stream",
                              "symcoll_moe_combine_on_stream"};

struct Args {
    symcoll_team_t team = SYMCOLL_TEAM_WORLD;
    void *dst;
    size_t capacity = 64; // int32 elements: a quarter of one kAllocBytes allocation
    const void *src;
    const size_t *send_counts;
    size_t *recv_counts;
    size_t *recv_offsets;
    int experts = 1;
    size_t align = 1;
    symcoll_datatype_t type = SYMCOLL_INT32;
};

symcoll_status_t call(Call c, const Args &a) {
    switch (c) {
    case ALLTOALLV:
        return symcoll_alltoallv_on_stream(a.team, a.dst, a.capacity, a.src, a.send_counts,
                                           a.recv_counts, a.recv_offsets, a.type, 0);
    case DISPATCH:
        return symcoll_moe_dispatch_on_stream(a.team, a.dst, a.capacity, a.src, a.send_counts,
                                              a.recv_counts, a.recv_offsets, a.experts, a.align,
                                              a.type, 0);
    case COMBINE:
        return symcoll_moe_combine_on_stream(a.team, a.dst, a.capacity, a.src, a.send_counts,
                                             a.experts, a.align, a.type, 0);
    }
    return SYMCOLL_ERROR_INTERNAL;
}

class AlltoallvArgs : public ::testing::Test {
  protected:
    fake_runtime::Runtime rt;
    size_t counts[3 * SYMCOLL_ALLTOALLV_MAX_SEGMENTS] = {};

    Args valid() {
        Args args;
        args.dst = rt.a;
        args.src = rt.b;
        args.send_counts = counts;
        args.recv_counts = counts + SYMCOLL_ALLTOALLV_MAX_SEGMENTS;
        args.recv_offsets = counts + 2 * SYMCOLL_ALLTOALLV_MAX_SEGMENTS;
        return args;
    }
    // The call fails with status and a message that names the function and every fragment.
    void expect_error(Call c, const Args &args, symcoll_status_t status,
                      std::initializer_list<std::string> fragments) {
        SCOPED_TRACE(kNames[c]);
        EXPECT_EQ(call(c, args), status) << symcoll_last_error();
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find(kNames[c]), std::string::npos) << why;
        for (const std::string &f : fragments)
            EXPECT_NE(why.find(f), std::string::npos) << "\"" << f << "\" missing in: " << why;
    }
};

TEST_F(AlltoallvArgs, ValidCallsPassEveryCheckAtAnyCapacity) {
    for (Call c : kCalls)
        for (size_t capacity : {(size_t)0, (size_t)1, (size_t)64}) {
            Args args = valid();
            args.capacity = capacity; // counts are on the device: even 0 launches
            expect_error(c, args, SYMCOLL_ERROR_UNSUPPORTED, {"no P2P"});
        }
}

TEST_F(AlltoallvArgs, NotInitializedAndBadTeams) {
    for (Call c : kCalls) {
        Args args = valid();
        args.team = SYMCOLL_TEAM_INVALID;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"team -1"});
        args.team = kOtherTeam;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"not a member"});
    }
    symcoll_g.initialized = false;
    for (Call c : kCalls)
        expect_error(c, valid(), SYMCOLL_ERROR_NOT_INITIALIZED, {"not initialized"});
}

TEST_F(AlltoallvArgs, BadDatatype) {
    for (Call c : kCalls) {
        Args args = valid();
        args.type = (symcoll_datatype_t)SYMCOLL_NUM_DATATYPES;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                     {"type " + std::to_string(SYMCOLL_NUM_DATATYPES)});
    }
}

TEST_F(AlltoallvArgs, NullPointersAreNamed) {
    struct Null {
        const char *message;
        void (*clear)(Args &);
        bool combine_takes_it; // a combine has no recv_counts or recv_offsets
    };
    const Null nulls[] = {
        {"send_counts is NULL", [](Args &a) { a.send_counts = nullptr; }, true},
        {"recv_counts is NULL", [](Args &a) { a.recv_counts = nullptr; }, false},
        {"recv_offsets is NULL", [](Args &a) { a.recv_offsets = nullptr; }, false},
        {"dst", [](Args &a) { a.dst = nullptr; }, true},
        {"src", [](Args &a) { a.src = nullptr; }, true},
    };
    for (Call c : kCalls)
        for (const Null &n : nulls) {
            if (c == COMBINE && !n.combine_takes_it)
                continue;
            Args args = valid();
            n.clear(args);
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {n.message});
        }
}

TEST_F(AlltoallvArgs, CountsInsideDstAreRefused) {
    // Peers write dst while this PE's blocks may still read the counts.
    size_t *inside = reinterpret_cast<size_t *>(rt.a) + 3;
    for (Call c : kCalls) {
        Args args = valid();
        args.send_counts = inside;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"send_counts", "overlaps dst"});
    }
    for (Call c : {ALLTOALLV, DISPATCH}) {
        Args args = valid();
        args.recv_offsets = inside;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"recv_offsets", "overlaps dst"});
        args = valid();
        args.capacity = 3; // dst ends before the counts start
        args.recv_counts = inside;
        expect_error(c, args, SYMCOLL_ERROR_UNSUPPORTED, {"no P2P"});
    }
}

TEST_F(AlltoallvArgs, CapacityMustFitTheAllocation) {
    for (Call c : kCalls) {
        Args args = valid();
        args.capacity = kAllocBytes / 4 + 1;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst"});
        args.capacity = SIZE_MAX / 2;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst_capacity", "overflows"});
        args = valid();
        args.dst = rt.memory.data() + kHeapBytes / 2; // inside the heap, not allocated
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "not inside"});
    }
}

TEST_F(AlltoallvArgs, ExpertsAndAlignment) {
    const int most = SYMCOLL_ALLTOALLV_MAX_SEGMENTS / 2; // per PE in a team of 2
    for (Call c : {DISPATCH, COMBINE}) {
        Args args = valid();
        for (int experts : {0, -3, most + 1}) {
            args.experts = experts;
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                         {"n_experts " + std::to_string(experts), std::to_string(most)});
        }
        args.experts = most;
        expect_error(c, args, SYMCOLL_ERROR_UNSUPPORTED, {"no P2P"});
        args = valid();
        args.align = 0;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"major_align 0"});
        args.align = SYMCOLL_MOE_MAX_ALIGN + 1;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                     {"major_align " + std::to_string(SYMCOLL_MOE_MAX_ALIGN + 1)});
        args.align = 4 * args.capacity; // larger than the capacity: only the data needs room
        expect_error(c, args, SYMCOLL_ERROR_UNSUPPORTED, {"no P2P"});
    }
}

} // namespace
