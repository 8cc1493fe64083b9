// Halo exchanges against the expected cells on every PE count (1, 2, 4): 1D/2D/3D, periodic
// or not, widths 1-3, element sizes 1/2/4/8, odd and unequal extents, padded pitches, faces
// only and with corners; the same field every call, alternating fields, several fields in
// one call, and a captured graph replayed; small faces as LL lines, larger ones stored into
// the neighbours' halos. Each round writes new interior values, so a halo
// written too early (without its credit) or too late shows up as a mismatch.
#include "halo_testing.h"

namespace {

using namespace halo_testing;

enum Mode { kSame, kAlternate, kMany, kGraph };
const char *const kModeNames[] = {"same field", "alternating fields", "exchange_many", "graph"};

// One round: new interiors, the exchange, the check; rounds without host synchronization.
void round_of(Case &k, Mode mode, int r) {
    int f = mode == kAlternate || mode == kGraph ? r % 2 : 0;
    if (mode == kMany)
        return exchange_both(k);
    fill(k, f);
    SYM_OK(symcoll_halo_exchange_on_stream(k.plan, k.fields[f], k.stream));
    check(k, f);
    next_round<<<1, 1, 0, k.stream>>>(k.round);
    CUDA_OK(cudaGetLastError());
}

// Runs mode on the case, then checks the device counters and field 0 on the CPU.
void run_mode(Case &k, Mode mode) {
    SCOPED_TRACE(kModeNames[mode]);
    reset_counters(k);
    const int rounds = 6;
    if (mode == kGraph) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(k.stream, cudaStreamCaptureModeThreadLocal));
        for (int r = 0; r < 2; r++)
            round_of(k, mode, r);
        CUDA_OK(cudaStreamEndCapture(k.stream, &graph));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < rounds / 2; replay++)
            CUDA_OK(cudaGraphLaunch(exec, k.stream));
        CUDA_OK(cudaStreamSynchronize(k.stream));
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    } else {
        for (int r = 0; r < rounds; r++)
            round_of(k, mode, r);
    }
    // Field 0 was last written in the last round (same, many) or the one before.
    expect_all_good(k, mode == kAlternate || mode == kGraph ? 2 : 1);
}

void run_config(const Config &c) {
    SCOPED_TRACE(c.name());
    Case k;
    setup(k, c);
    if (!::testing::Test::HasFatalFailure())
        for (Mode m : {kSame, kAlternate, kMany, kGraph})
            run_mode(k, m);
    teardown(k);
}

TEST(HaloExchange, EveryShape) {
    const int pairs[][2] = {{1, 4}, {2, 8}, {3, 1}, {1, 2}, {2, 1}, {3, 8}}; // width, elem
    for (int ndims = 1; ndims <= 3; ndims++)
        for (int periodic = 0; periodic <= 1; periodic++)
            for (int corners = 0; corners <= (ndims > 1); corners++)
                for (int split = 0; split <= (ndims > 1); split++)
                    for (const auto &p : pairs) {
                        Config c{
                            ndims,
                            periodic,
                            corners,
                            split,
                            p[0],
                            p[1],
                            split,
                            {ndims == 1 ? 37u : ndims == 2 ? 13u : 9u, ndims == 2 ? 7u : 6u, 5u}};
                        run_config(c);
                    }
}

// Faces of several blocks per direction (16-byte accesses on the aligned PEs): LL faces of
// several blocks (up to 64 KiB), and faces beyond that stored straight into the neighbours'
// halos, contiguous, strided by planes, and as narrow columns, next to LL edges and corners.
TEST(HaloExchange, LargeFaces) {
    run_config(Config{2, 1, 1, 0, 2, 8, 0, {3000, 9, 1}});
    run_config(Config{3, 1, 0, 1, 1, 4, 0, {128, 96, 4}});
    run_config(Config{3, 0, 1, 0, 2, 2, 1, {66, 40, 12}});
    run_config(Config{2, 1, 0, 1, 1, 8, 0, {9000, 5, 1}});
    run_config(Config{3, 1, 1, 1, 1, 4, 1, {200, 120, 3}});
    run_config(Config{2, 0, 0, 0, 1, 4, 0, {8, 20000, 1}});
}

// An LL line carries the low 32 bits of its exchange number, and a line that no later
// exchange rewrites stays in the slot. Exchanges 1-3 send two fields; then exchanges of one
// field only, until exchange 2^32 + 2 of two fields must not take the second field's lines of
// exchange 2 as its own (nor 2^32 + 3 those of 3). The counts jump twice, as 2^31 exchanges
// would move them: to below 2^31, crossed by exchanges of one field (the slots are rewritten
// there), then to below 2^32. PE 0 starts the last exchanges late, so that the others read
// their slots first. Each round writes new values, so a stale line shows up as a mismatch.
TEST(HaloExchange, LlLinesCrossTheir32BitWrap) {
    const uint64_t half = (uint64_t)1 << 31;
    Case k;
    setup(k, Config{1, 1, 0, 0, 2, 4, 0, {37, 1, 1}}); // every neighbour another PE, or itself
    if (!::testing::Test::HasFatalFailure()) {
        reset_counters(k);
        for (int r = 0; r < 3; r++)
            exchange_both(k);
        jump_exchanges(k, half - 3);
        for (int r = 0; r < 6; r++)
            round_of(k, kSame, r);
        jump_exchanges(k, 2 * half - 3);
        for (int r = 0; r < 4; r++)
            round_of(k, kSame, r);
        for (int r = 0; r < 4; r++)
            exchange_both(k, true);
        expect_all_good(k, 1);
    }
    teardown(k);
}

TEST(HaloExchange, NeighborsMatchTheGrid) {
    Case k;
    setup(k, Config{2, 1, 0, 0, 1, 4, 0, {8, 8, 1}});
    for (int dim = 0; dim < 3; dim++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int c[3] = {k.coords[0], k.coords[1], k.coords[2]};
            int want = -1;
            if (dim < 2) {
                c[dim] = (c[dim] + dir + k.grid[dim]) % k.grid[dim];
                want = c[0] + k.grid[0] * c[1];
            }
            EXPECT_EQ(symcoll_halo_neighbor(k.plan, dim, dir), want) << dim << " " << dir;
        }
    EXPECT_EQ(symcoll_halo_neighbor(k.plan, 0, 0), -1);
    EXPECT_EQ(symcoll_halo_neighbor(k.plan, 3, 1), -1);
    EXPECT_EQ(symcoll_halo_neighbor(nullptr, 0, 1), -1);
    teardown(k);
}

TEST(HaloExchange, BadCallsAreRejected) {
    Case k;
    setup(k, Config{2, 1, 0, 0, 1, 4, 0, {8, 8, 1}});
    char local[16];
    void *fields[SYMCOLL_HALO_MAX_FIELDS + 1] = {};
    void *same[2] = {k.fields[0], k.fields[0]};
    struct Bad {
        symcoll_status_t status;
        const char *needle;
    } bad[] = {
        {symcoll_halo_exchange_on_stream(nullptr, k.fields[0], k.stream), "h is NULL"},
        {symcoll_halo_exchange_on_stream(k.plan, local, k.stream), "field"},
        {symcoll_halo_exchange_on_stream(k.plan, k.fields[0] + 8, k.stream), "runs past"},
        {symcoll_halo_exchange_many_on_stream(k.plan, fields, 0, k.stream), "n 0"},
        {symcoll_halo_exchange_many_on_stream(k.plan, fields, SYMCOLL_HALO_MAX_FIELDS + 1,
                                              k.stream),
         "SYMCOLL_HALO_MAX_FIELDS"},
        {symcoll_halo_exchange_many_on_stream(k.plan, nullptr, 1, k.stream), "fields is NULL"},
        {symcoll_halo_exchange_many_on_stream(k.plan, fields, 2, k.stream), "fields[0]"},
        {symcoll_halo_exchange_many_on_stream(k.plan, same, 2, k.stream), "overlap"},
    };
    for (const Bad &b : bad) {
        EXPECT_EQ(b.status, SYMCOLL_ERROR_INVALID_ARGUMENT);
    }
    // The messages are checked one call at a time (each call overwrites the last error).
    EXPECT_EQ(symcoll_halo_exchange_on_stream(k.plan, k.fields[0] + 8, k.stream),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("runs past"), std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_halo_exchange_many_on_stream(k.plan, fields, 2, k.stream),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("fields[0]"), std::string::npos)
        << symcoll_last_error();
    teardown(k);
}

// Bad plans fail on every PE, with the reason on the PE that caused it.
TEST(HaloCreate, BadPlansFailEverywhere) {
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 2;
    d.interior[0] = 8;
    d.interior[1] = 8;
    d.width[0] = d.width[1] = 1;
    d.pe_grid[0] = n;
    d.pe_grid[1] = 1;
    symcoll_halo_t h = nullptr;
    // One PE's description is broken: everyone fails.
    symcoll_halo_desc_t broken = d;
    if (me == n - 1)
        broken.corners = 7;
    EXPECT_EQ(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &broken, &h), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(h, nullptr);
    if (me == n - 1)
        EXPECT_NE(std::string(symcoll_last_error()).find("corners 7"), std::string::npos)
            << symcoll_last_error();
    if (n < 2)
        return;
    // Split along x: the y extents of neighbours must match.
    symcoll_halo_desc_t mismatch = d;
    if (me == 1)
        mismatch.interior[1] = 9;
    EXPECT_EQ(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &mismatch, &h),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string msg = symcoll_last_error();
    EXPECT_NE(msg.find("dimension 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PE 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PE 1"), std::string::npos) << msg;
    // PEs that disagree on the width.
    symcoll_halo_desc_t widths = d;
    if (me == 1)
        widths.width[0] = 2;
    EXPECT_EQ(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &widths, &h), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("width[0]"), std::string::npos)
        << symcoll_last_error();
    // A plan of a team of PE 0 alone: the others are outside it, and see its grid.
    symcoll_team_t first = SYMCOLL_TEAM_INVALID;
    ASSERT_EQ(symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, &first), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    symcoll_halo_desc_t alone = d;
    alone.pe_grid[0] = 0;
    ASSERT_EQ(symcoll_halo_create(first, &alone, &h), SYMCOLL_SUCCESS) << symcoll_last_error();
    int grid[3] = {-2, -2, -2}, coords[3] = {-2, -2, -2};
    EXPECT_EQ(symcoll_halo_grid(h, grid, coords), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(grid[0] * 10 + grid[1], 11) << "the team's grid, on every PE";
    EXPECT_EQ(coords[0], me == 0 ? 0 : -1);
    EXPECT_EQ(symcoll_halo_destroy(h), SYMCOLL_SUCCESS) << symcoll_last_error();
    if (first != SYMCOLL_TEAM_INVALID)
        EXPECT_EQ(symcoll_team_destroy(first), SYMCOLL_SUCCESS) << symcoll_last_error();
    // A good plan still works afterwards.
    EXPECT_EQ(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &h), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    EXPECT_EQ(symcoll_halo_destroy(h), SYMCOLL_SUCCESS);
}

} // namespace
