// alltoall on every team x datatype x size class x algorithm (counts per PE, so that the whole dst
// has each class's bytes), and past L2 for a subset.
#include "coll_testing.h"

using namespace coll_testing;

namespace {

class Alltoall : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;

    void run(const TestTeam &team, symcoll_datatype_t type, SizeClass size, const char *algo,
             uint64_t seed) {
        Case c;
        c.coll = SYMCOLL_COLL_ALLTOALL;
        c.team = team.handle;
        c.type = type;
        c.count = size.count;
        c.dst_shift = size.dst_shift;
        c.src_shift = size.src_shift;
        c.algo = algo;
        run_case(c, arena, stream, seed);
    }
};

TEST_F(Alltoall, EveryTeamTypeSizeAndAlgorithm) {
    SEED_TRACE();
    for (const TestTeam &team : test_teams())
        for (symcoll_datatype_t type : kTypes)
            for (SizeClass size : size_classes(symcoll_datatype_size(type), team.size))
                for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALL)) {
                    uint64_t seed = next_case_seed();
                    if (team.handle != SYMCOLL_TEAM_INVALID)
                        run(team, type, size, algo, seed);
                }
}

TEST_F(Alltoall, LargerThanL2) {
    SEED_TRACE();
    const TestTeam world = test_teams()[0];
    for (symcoll_datatype_t type : {SYMCOLL_INT8, SYMCOLL_FLOAT32})
        for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALL)) {
            uint64_t seed = next_case_seed();
            if (algo)
                run(world, type, larger_than_l2(symcoll_datatype_size(type), world.size), algo,
                    seed);
        }
}

} // namespace
