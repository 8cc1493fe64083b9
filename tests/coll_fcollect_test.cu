// fcollect on every team x datatype x size class x algorithm, and past L2 for a subset.
#include "coll_exchange_testing.h"

using namespace coll_testing;

namespace {

using Fcollect = ExchangeTest<SYMCOLL_COLL_FCOLLECT>;

TEST_F(Fcollect, EveryTeamTypeSizeAndAlgorithm) {
    SEED_TRACE();
    run_every_team_type_size_and_algorithm();
}

TEST_F(Fcollect, LargerThanL2) {
    SEED_TRACE();
    run_larger_than_l2();
}

} // namespace
