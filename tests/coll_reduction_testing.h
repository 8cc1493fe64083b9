// The cases of reduce and reduce_scatter, which differ only in which part of src each PE's dst
// reduces: every team, type, op, size class, in place and algorithm. Counts per PE are 1 for
// reduce (the whole message) and the team size for reduce_scatter (each PE's block).
#ifndef SYMCOLL_COLL_REDUCTION_TESTING_H
#define SYMCOLL_COLL_REDUCTION_TESTING_H

#include "coll_testing.h"

namespace coll_testing {

template <symcoll_collective_t kColl> class ReductionTest : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;

    Case make_case(const TestTeam &team, symcoll_datatype_t type, symcoll_op_t op, SizeClass size,
                   bool in_place, const char *algo) const {
        Case c;
        c.coll = kColl;
        c.team = team.handle;
        c.type = type;
        c.op = op;
        c.count = size.count;
        c.dst_shift = size.dst_shift;
        c.src_shift = size.src_shift;
        c.in_place = in_place;
        c.algo = algo;
        return c;
    }

    void run_every_team_type_op_size_in_place_and_algorithm() {
        for (const TestTeam &team : test_teams())
            for (symcoll_datatype_t type : kTypes)
                for (symcoll_op_t op : kOps)
                    for (SizeClass size : size_classes(symcoll_datatype_size(type), per_pe(team)))
                        for (bool in_place : {false, true})
                            for (const char *algo : algorithms(kColl)) {
                                uint64_t seed = next_case_seed();
                                if (team.handle == SYMCOLL_TEAM_INVALID || !op_defined(type, op))
                                    continue;
                                run_case(make_case(team, type, op, size, in_place, algo), arena,
                                         stream, seed);
                            }
    }

    static int per_pe(const TestTeam &team) {
        return kColl == SYMCOLL_COLL_REDUCE_SCATTER ? team.size : 1;
    }
};

} // namespace coll_testing

#endif
