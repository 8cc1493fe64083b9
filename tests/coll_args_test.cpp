// Argument checks of broadcast, reduce, fcollect, alltoall and reduce_scatter, on the CPU against
// the faked runtime of fake_runtime.h. Calls that pass every check are stopped by a team without a
// P2P path (UNSUPPORTED) or have count 0 (SUCCESS, nothing enqueued), so nothing launches.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "fake_runtime.h"

namespace {

using fake_runtime::kAllocBytes;
using fake_runtime::kHeapBytes;
using fake_runtime::kOtherTeam;

enum Coll { BROADCAST, REDUCE, FCOLLECT, ALLTOALL, REDUCE_SCATTER };
const Coll kColls[] = {BROADCAST, REDUCE, FCOLLECT, ALLTOALL, REDUCE_SCATTER};
const char *const kNames[] = {"symcoll_broadcast_on_stream", "symcoll_reduce_on_stream",
                              "symcoll_fcollect_on_stream", "symcoll_alltoall_on_stream",
                              "symcoll_reduce_scatter_on_stream"};

struct Args {
    symcoll_team_t team = SYMCOLL_TEAM_WORLD;
    void *dst;
    const void *src;
    size_t count = 16;
    symcoll_datatype_t type = SYMCOLL_INT32;
    symcoll_op_t op = SYMCOLL_SUM;
    int root = 0;
    cudaStream_t stream = 0;
};

symcoll_status_t call(Coll c, const Args &a) {
    switch (c) {
    case BROADCAST:
        return symcoll_broadcast_on_stream(a.team, a.dst, a.src, a.count, a.type, a.root, a.stream);
    case REDUCE:
        return symcoll_reduce_on_stream(a.team, a.dst, a.src, a.count, a.type, a.op, a.stream);
    case FCOLLECT:
        return symcoll_fcollect_on_stream(a.team, a.dst, a.src, a.count, a.type, a.stream);
    case ALLTOALL:
        return symcoll_alltoall_on_stream(a.team, a.dst, a.src, a.count, a.type, a.stream);
    case REDUCE_SCATTER:
        return symcoll_reduce_scatter_on_stream(a.team, a.dst, a.src, a.count, a.type, a.op,
                                                a.stream);
    }
    return SYMCOLL_ERROR_INTERNAL;
}

class CollArgs : public ::testing::Test {
  protected:
    fake_runtime::Runtime rt;
    char *a = rt.a, *b = rt.b;
    symcoll_timeout_record_t &record = rt.records[SYMCOLL_TEAM_WORLD];

    Args valid() const {
        Args args;
        args.dst = a;
        args.src = b;
        return args;
    }
    // The call fails with status and a message that names the function and every fragment.
    void expect_error(Coll c, const Args &args, symcoll_status_t status,
                      std::initializer_list<const char *> fragments) {
        SCOPED_TRACE(kNames[c]);
        EXPECT_EQ(call(c, args), status) << symcoll_last_error();
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find(kNames[c]), std::string::npos) << why;
        for (const char *f : fragments)
            EXPECT_NE(why.find(f), std::string::npos) << "\"" << f << "\" missing in: " << why;
    }
};

TEST_F(CollArgs, ValidCallsPassEveryCheck) {
    for (Coll c : kColls)
        expect_error(c, valid(), SYMCOLL_ERROR_UNSUPPORTED, {"no P2P"});
}

TEST_F(CollArgs, CountZeroEnqueuesNothing) {
    Args args = valid();
    args.count = 0;
    for (Coll c : kColls)
        EXPECT_EQ(call(c, args), SYMCOLL_SUCCESS) << kNames[c] << ": " << symcoll_last_error();
}

TEST_F(CollArgs, NotInitialized) {
    symcoll_g.initialized = false;
    for (Coll c : kColls)
        expect_error(c, valid(), SYMCOLL_ERROR_NOT_INITIALIZED, {"not initialized"});
}

TEST_F(CollArgs, InvalidTeams) {
    for (Coll c : kColls)
        for (symcoll_team_t team :
             {SYMCOLL_TEAM_INVALID, (symcoll_team_t)17, (symcoll_team_t)SYMCOLL_MAX_TEAMS}) {
            Args args = valid();
            args.team = team;
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                         {("team " + std::to_string(team)).c_str()});
        }
}

TEST_F(CollArgs, TeamWithoutThisPe) {
    Args args = valid();
    args.team = kOtherTeam;
    for (Coll c : kColls)
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"not a member", "team 5"});
}

TEST_F(CollArgs, BrokenTeam) {
    record.expired = 1;
    record.collective = SYMCOLL_COLL_REDUCE;
    record.missing_pe = 1;
    for (Coll c : kColls)
        expect_error(c, valid(), SYMCOLL_ERROR_TIMEOUT, {"broken", "PE 1"});
}

TEST_F(CollArgs, BadDatatype) {
    for (Coll c : kColls)
        for (int type : {-1, (int)SYMCOLL_NUM_DATATYPES}) {
            Args args = valid();
            args.type = (symcoll_datatype_t)type;
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                         {("type " + std::to_string(type)).c_str()});
        }
}

TEST_F(CollArgs, BadOp) {
    for (Coll c : {REDUCE, REDUCE_SCATTER}) {
        Args args = valid();
        args.op = (symcoll_op_t)SYMCOLL_NUM_OPS;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"op 7"});
        args.op = (symcoll_op_t)-2;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"op -2"});
    }
}

TEST_F(CollArgs, BitwiseOpsAreForIntegersOnly) {
    for (symcoll_datatype_t type :
         {SYMCOLL_FLOAT16, SYMCOLL_BFLOAT16, SYMCOLL_FLOAT32, SYMCOLL_FLOAT64})
        for (symcoll_op_t op : {SYMCOLL_AND, SYMCOLL_OR, SYMCOLL_XOR}) {
            Args args = valid();
            args.type = type;
            args.op = op;
            for (Coll c : {REDUCE, REDUCE_SCATTER})
                expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                             {symcoll_op_name(op), symcoll_datatype_name(type)});
        }
    for (int type = 0; type < SYMCOLL_NUM_DATATYPES; type++)
        for (int op = 0; op < SYMCOLL_NUM_OPS; op++) {
            bool integer = type < SYMCOLL_FLOAT16;
            if (op >= SYMCOLL_AND && !integer)
                continue;
            Args args = valid();
            args.count = 4;
            args.type = (symcoll_datatype_t)type;
            args.op = (symcoll_op_t)op;
            for (Coll c : {REDUCE, REDUCE_SCATTER})
                EXPECT_EQ(call(c, args), SYMCOLL_ERROR_UNSUPPORTED)
                    << kNames[c] << " " << type << " " << op << ": " << symcoll_last_error();
        }
}

TEST_F(CollArgs, CountOverflow) {
    for (Coll c : kColls) {
        Args args = valid();
        args.count = SIZE_MAX / 2;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"overflows"});
    }
}

TEST_F(CollArgs, NullPointers) {
    for (Coll c : kColls) {
        Args args = valid();
        args.dst = nullptr;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst is NULL"});
        args = valid();
        args.src = nullptr;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"src is NULL"});
        args.count = 0; // checked before count 0 returns
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"src is NULL"});
    }
}

TEST_F(CollArgs, NonSymmetricPointers) {
    int on_stack[64];
    char *free_gap = rt.memory.data() + kHeapBytes / 2; // inside the heap, not allocated
    for (Coll c : kColls)
        for (void *bad : {(void *)on_stack, (void *)free_gap}) {
            Args args = valid();
            args.dst = bad;
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "not inside"});
            args = valid();
            args.src = bad;
            expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"src", "not inside"});
        }
}

TEST_F(CollArgs, RangesPastTheEndOfTheAllocation) {
    for (Coll c : kColls) {
        Args args = valid();
        args.count = kAllocBytes / 4 + 1;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "past the end"});
        args = valid();
        args.dst = a + kAllocBytes - 8; // two int32 left
        args.count = 3;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "past the end"});
    }
    // fcollect's dst, alltoall's src and dst and reduce_scatter's src hold count x team size
    // elements.
    Args args = valid();
    args.count = kAllocBytes / 4 / 2 + 1;
    args.src = b + kAllocBytes / 2;
    expect_error(FCOLLECT, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "past the end"});
    args = valid();
    args.count = kAllocBytes / 4 / 2;
    args.src = b + 4;
    expect_error(ALLTOALL, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"src", "past the end"});
    expect_error(REDUCE_SCATTER, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"src", "past the end"});
    args.src = b;
    EXPECT_EQ(call(REDUCE_SCATTER, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    EXPECT_EQ(call(ALLTOALL, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    args.count = kAllocBytes / 4 / 2;
    args.src = b + kAllocBytes / 2;
    EXPECT_EQ(call(FCOLLECT, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
}

// In place is dst == src for broadcast and reduce, dst == block me of src for reduce_scatter
// (this PE is PE 0 of the faked team of 2).
TEST_F(CollArgs, InPlaceOnlyForBroadcastReduceAndReduceScatter) {
    Args args = valid();
    args.src = a;
    EXPECT_EQ(call(BROADCAST, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    EXPECT_EQ(call(REDUCE, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    EXPECT_EQ(call(REDUCE_SCATTER, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    expect_error(FCOLLECT, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"overlaps"});
    expect_error(ALLTOALL, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"overlaps"});
    args.dst = a + args.count * 4; // block 1 of src, another PE's
    expect_error(REDUCE_SCATTER, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "overlaps"});
}

// dst == src is in place on PE 0 alone; PE 1 refuses it, naming the in-place form.
TEST_F(CollArgs, ReduceScatterDstEqualSrcIsInPlaceOnPeZeroOnly) {
    rt.add_team(SYMCOLL_TEAM_WORLD, 0, 2, 1);
    Args args = valid();
    args.src = a;
    expect_error(REDUCE_SCATTER, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                 {"dst == src", "not in place on PE 1", "src + 1 * count_per_pe"});
}

TEST_F(CollArgs, PartialOverlapIsForbidden) {
    for (Coll c : kColls) {
        Args args = valid();
        args.src = a;
        args.dst = a + 4;
        expect_error(c, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"dst", "overlaps", "src"});
    }
    // fcollect's src may sit right after the team's part of dst, but not inside it.
    Args args = valid();
    args.count = 8;
    args.src = a + 8 * 4 * 2;
    EXPECT_EQ(call(FCOLLECT, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
    args.src = a + 8 * 4 * 2 - 4;
    expect_error(FCOLLECT, args, SYMCOLL_ERROR_INVALID_ARGUMENT, {"overlaps"});
}

TEST_F(CollArgs, RootOutOfRange) {
    for (int root : {-1, 2, 1000}) {
        Args args = valid();
        args.root = root;
        expect_error(BROADCAST, args, SYMCOLL_ERROR_INVALID_ARGUMENT,
                     {("root " + std::to_string(root)).c_str(), "2 PEs"});
    }
    Args args = valid();
    args.root = 1;
    EXPECT_EQ(call(BROADCAST, args), SYMCOLL_ERROR_UNSUPPORTED) << symcoll_last_error();
}

TEST_F(CollArgs, TeamWithoutP2pIsUnsupported) {
    for (Coll c : kColls)
        expect_error(c, valid(), SYMCOLL_ERROR_UNSUPPORTED, {"team 0", "P2P"});
}

} // namespace
