// The cases of fcollect and alltoall, which differ only in where each block goes: counts are
// per PE, so that the whole dst has each class's bytes, and past L2 runs for a subset.
#ifndef SYMCOLL_COLL_EXCHANGE_TESTING_H
#define SYMCOLL_COLL_EXCHANGE_TESTING_H

#include "coll_testing.h"

namespace coll_testing {

template <symcoll_collective_t kColl> class ExchangeTest : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;

    void run(const TestTeam &team, symcoll_datatype_t type, SizeClass size, const char *algo,
             uint64_t seed) {
        Case c;
        c.coll = kColl;
        c.team = team.handle;
        c.type = type;
        c.count = size.count;
        c.dst_shift = size.dst_shift;
        c.src_shift = size.src_shift;
        c.algo = algo;
        run_case(c, arena, stream, seed);
    }

    void run_every_team_type_size_and_algorithm() {
        for (const TestTeam &team : test_teams())
            for (symcoll_datatype_t type : kTypes)
                for (SizeClass size : size_classes(symcoll_datatype_size(type), team.size))
                    for (const char *algo : algorithms(kColl)) {
                        uint64_t seed = next_case_seed();
                        if (team.handle != SYMCOLL_TEAM_INVALID)
                            run(team, type, size, algo, seed);
                    }
    }

    void run_larger_than_l2() {
        const TestTeam world = test_teams()[0];
        for (symcoll_datatype_t type : {SYMCOLL_INT8, SYMCOLL_FLOAT32})
            for (const char *algo : algorithms(kColl)) {
                uint64_t seed = next_case_seed();
                if (algo)
                    run(world, type, larger_than_l2(symcoll_datatype_size(type), world.size), algo,
                        seed);
            }
    }
};

} // namespace coll_testing

#endif
