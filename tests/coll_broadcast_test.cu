// broadcast on every team x datatype x size class x root x in-place x algorithm, and past L2
// for a subset.
#include "coll_testing.h"

using namespace coll_testing;

namespace {

class Broadcast : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;

    // The first and the last PE of a team of n.
    static std::vector<int> roots(int n) {
        return n > 1 ? std::vector<int>{0, n - 1} : std::vector<int>{0};
    }
    void run(const TestTeam &team, symcoll_datatype_t type, SizeClass size, int root, bool in_place,
             const char *algo, uint64_t seed) {
        Case c;
        c.coll = SYMCOLL_COLL_BROADCAST;
        c.team = team.handle;
        c.type = type;
        c.count = size.count;
        c.root = root;
        c.dst_shift = size.dst_shift;
        c.src_shift = size.src_shift;
        c.in_place = in_place;
        c.algo = algo;
        run_case(c, arena, stream, seed);
    }
};

TEST_F(Broadcast, EveryTeamTypeSizeRootInPlaceAndAlgorithm) {
    SEED_TRACE();
    for (const TestTeam &team : test_teams()) {
        for (symcoll_datatype_t type : kTypes)
            for (SizeClass size : size_classes(symcoll_datatype_size(type), 1))
                for (int root : roots(team.size))
                    for (bool in_place : {false, true})
                        for (const char *algo : algorithms(SYMCOLL_COLL_BROADCAST)) {
                            uint64_t seed = next_case_seed();
                            if (team.handle != SYMCOLL_TEAM_INVALID)
                                run(team, type, size, root, in_place, algo, seed);
                        }
    }
}

TEST_F(Broadcast, LargerThanL2) {
    SEED_TRACE();
    const TestTeam world = test_teams()[0];
    int last = symcoll_n_pes() - 1;
    for (symcoll_datatype_t type : {SYMCOLL_UINT8, SYMCOLL_FLOAT64})
        for (bool in_place : {false, true})
            for (const char *algo : algorithms(SYMCOLL_COLL_BROADCAST)) {
                uint64_t seed = next_case_seed();
                if (algo)
                    run(world, type, larger_than_l2(symcoll_datatype_size(type), 1), last, in_place,
                        algo, seed);
            }
}

} // namespace
