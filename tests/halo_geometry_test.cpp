// Halo plan geometry on the CPU: description checks with the message naming the field, the PE
// grid choice, neighbours with and without wrap-around, the face checks between PEs, and the
// box every direction moves; and the collective steps of a plan's creation that fails, against
// the faked runtime of fake_runtime.h.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "fake_runtime.h"
#include "halo_geometry.h"
#include "halo_plan.h"
#include "halo_team_records.h"

namespace {

const char kFn[] = "symcoll_halo_create";

symcoll_halo_desc_t desc2d(size_t nx, size_t ny, int w) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 2;
    d.interior[0] = nx;
    d.interior[1] = ny;
    d.width[0] = d.width[1] = w;
    return d;
}

// Normalizing must fail with INVALID_ARGUMENT and a message that contains `what`.
void expect_rejected(const symcoll_halo_desc_t &d, int team_size, const std::string &what) {
    symcoll_halo_desc_t out;
    EXPECT_EQ(symcoll_halo_normalize(kFn, team_size, &d, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string msg = symcoll_last_error();
    EXPECT_NE(msg.find(kFn), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << "want '" << what << "' in: " << msg;
}

TEST(HaloDesc, BadFieldsAreNamed) {
    symcoll_halo_desc_t out;
    EXPECT_EQ(symcoll_halo_normalize(kFn, 2, nullptr, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
    symcoll_halo_desc_t d = desc2d(8, 8, 1);
    d.version = 7;
    expect_rejected(d, 2, "version 7");
    d = desc2d(8, 8, 1);
    d.ndims = 4;
    expect_rejected(d, 2, "ndims 4");
    d = desc2d(8, 8, 1);
    d.type = (symcoll_datatype_t)42;
    expect_rejected(d, 2, "type 42");
    d = desc2d(8, 8, 1);
    d.corners = 2;
    expect_rejected(d, 2, "corners 2");
    d = desc2d(8, 8, 1);
    d.periodic[1] = 5;
    expect_rejected(d, 2, "periodic[1] 5");
    d = desc2d(8, 8, 1);
    d.width[0] = -1;
    expect_rejected(d, 2, "width[0] -1");
    d = desc2d(8, 0, 1);
    expect_rejected(d, 2, "interior[1] 0");
    d = desc2d(8, 8, 1);
    d.pe_grid[0] = 3;
    expect_rejected(d, 2, "pe_grid {3, 0, 1}");
    d = desc2d(8, 8, 1);
    d.pe_grid[0] = -2;
    expect_rejected(d, 2, "pe_grid[0] -2");
    d = desc2d(8, 8, 1);
    d.pitch[0] = 9; // a row with halos holds 10
    expect_rejected(d, 2, "pitch[0] 9");
    d = desc2d(8, 8, 1);
    d.ndims = 3;
    d.interior[2] = 4;
    d.pitch[1] = 99; // a plane with halos holds 100
    expect_rejected(d, 2, "pitch[1] 99");
    // PE grids whose product wraps an int: to 0 (a division by zero), and to 4 (accepted).
    d = desc2d(8, 8, 1);
    d.pe_grid[0] = d.pe_grid[1] = 65536;
    expect_rejected(d, 4, "pe_grid {65536, 65536, 1}");
    d.pe_grid[0] = 5;
    d.pe_grid[1] = 858993460;
    expect_rejected(d, 4, "pe_grid {5, 858993460, 1}");
}

// Layouts past INT64_MAX bytes, whose sizes and offsets would wrap.
TEST(HaloDesc, HugeLayoutsAreRejected) {
    symcoll_halo_desc_t d = desc2d(8, 8, 1);
    d.pitch[0] = SIZE_MAX;
    expect_rejected(d, 1, "pitch[0] " + std::to_string(SIZE_MAX));
    d.pitch[0] = (size_t)1 << 59; // 10 rows fit in elements, not in bytes
    expect_rejected(d, 1, "pitch[1] " + std::to_string((size_t)5 << 60));
    d = desc2d((size_t)1 << 31, (size_t)1 << 31, 0);
    d.ndims = 3;
    d.interior[2] = (size_t)1 << 31;
    expect_rejected(d, 1, "pitch[1] " + std::to_string((size_t)1 << 62));
    d.pitch[1] = SIZE_MAX;
    d.interior[2] = 1;
    expect_rejected(d, 1, "pitch[1] " + std::to_string(SIZE_MAX));
}

TEST(HaloDesc, NormalizedLayout) {
    symcoll_halo_desc_t d = desc2d(8, 6, 2), n;
    d.interior[2] = 77; // ignored beyond ndims
    d.width[2] = 5;
    d.pitch[1] = 3;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 4, &d, &n), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(n.pe_grid[0] * n.pe_grid[1], 4);
    EXPECT_EQ(n.pe_grid[2], 1);
    EXPECT_EQ(n.interior[2], 1u);
    EXPECT_EQ(n.width[2], 0);
    EXPECT_EQ(n.pitch[0], 12u);
    EXPECT_EQ(n.pitch[1], 12u * 10u);
    EXPECT_EQ(symcoll_halo_span(&n), 12u * 10u * 4u);
    d.pitch[0] = 16;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 4, &d, &n), SYMCOLL_SUCCESS);
    EXPECT_EQ(n.pitch[0], 16u);
    EXPECT_EQ(symcoll_halo_span(&n), (16u * 9u + 12u) * 4u);
}

TEST(HaloGrid, ChosenLikeMpiDimsCreate) {
    struct Case {
        int n, ndims, in[3], want[3];
    } cases[] = {
        {1, 1, {0, 0, 0}, {1, 1, 1}},  {6, 2, {0, 0, 0}, {3, 2, 1}}, {8, 3, {0, 0, 0}, {2, 2, 2}},
        {12, 3, {0, 0, 0}, {3, 2, 2}}, {4, 2, {1, 0, 0}, {1, 4, 1}}, {16, 3, {0, 2, 0}, {4, 2, 2}},
        {7, 2, {0, 0, 0}, {7, 1, 1}},  {2, 3, {0, 0, 0}, {2, 1, 1}}, {24, 3, {0, 0, 0}, {4, 3, 2}},
        {5, 2, {5, 1, 0}, {5, 1, 1}},
    };
    for (const Case &c : cases) {
        int grid[3] = {c.in[0], c.in[1], c.in[2]};
        if (c.ndims < 3)
            grid[2] = 1;
        if (c.ndims < 2)
            grid[1] = 1;
        ASSERT_TRUE(symcoll_halo_dims_create(c.n, c.ndims, grid)) << c.n;
        for (int i = 0; i < c.ndims; i++)
            EXPECT_EQ(grid[i], c.want[i]) << "n " << c.n << " dim " << i;
    }
    int bad[3] = {3, 0, 0};
    EXPECT_FALSE(symcoll_halo_dims_create(4, 2, bad));
    int full[3] = {2, 2, 0};
    EXPECT_FALSE(symcoll_halo_dims_create(8, 2, full));
    int wraps_to_zero[3] = {65536, 65536, 1};
    EXPECT_FALSE(symcoll_halo_dims_create(4, 2, wraps_to_zero));
    int wraps_to_four[3] = {5, 858993460, 1};
    EXPECT_FALSE(symcoll_halo_dims_create(4, 2, wraps_to_four));
}

int dir(int dx, int dy, int dz) {
    return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}

TEST(HaloGrid, NeighboursWrapOnlyWhenPeriodic) {
    symcoll_halo_desc_t d = desc2d(8, 8, 1), n;
    d.pe_grid[0] = 3;
    d.pe_grid[1] = 2;
    d.periodic[1] = 1;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 6, &d, &n), SYMCOLL_SUCCESS);
    int c[3];
    symcoll_halo_coords(&n, 4, c); // x fastest: PE 4 is (1, 1)
    EXPECT_EQ(c[0], 1);
    EXPECT_EQ(c[1], 1);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 0, dir(-1, 0, 0)), -1);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 0, dir(1, 0, 0)), 1);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 0, dir(0, -1, 0)), 3);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 4, dir(0, 1, 0)), 1);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 4, dir(1, 1, 0)), 2);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 5, dir(1, 1, 0)), -1);
    // One PE along a periodic dimension: the neighbour is the PE itself.
    d = desc2d(8, 8, 1);
    d.periodic[0] = 1;
    d.pe_grid[0] = 1;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 2, &d, &n), SYMCOLL_SUCCESS);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 1, dir(1, 0, 0)), 1);
    EXPECT_EQ(symcoll_halo_neighbor_of(&n, 1, dir(-1, 0, 0)), 1);
}

TEST(HaloGrid, DirectionsFollowCornersAndWidths) {
    symcoll_halo_desc_t d = desc2d(8, 8, 1), n;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 1, &d, &n), SYMCOLL_SUCCESS);
    EXPECT_TRUE(symcoll_halo_dir_used(&n, dir(1, 0, 0)));
    EXPECT_FALSE(symcoll_halo_dir_used(&n, dir(1, 1, 0)));
    EXPECT_FALSE(symcoll_halo_dir_used(&n, dir(0, 0, 1))); // beyond ndims: width 0
    n.corners = 1;
    EXPECT_TRUE(symcoll_halo_dir_used(&n, dir(1, 1, 0)));
    n.width[0] = 0;
    EXPECT_FALSE(symcoll_halo_dir_used(&n, dir(1, 1, 0)));
    EXPECT_FALSE(symcoll_halo_dir_used(&n, dir(-1, 0, 0)));
    EXPECT_TRUE(symcoll_halo_dir_used(&n, dir(0, -1, 0)));
}

// Two PEs split along x: their y extents must match, and the error names dimension and PEs.
TEST(HaloTeam, FaceMismatchNamesDimensionAndPes) {
    std::vector<symcoll_halo_desc_t> all(2);
    for (int pe = 0; pe < 2; pe++) {
        symcoll_halo_desc_t d = desc2d(8 + pe, pe == 1 ? 7 : 6, 1);
        d.pe_grid[0] = 2;
        d.pe_grid[1] = 1;
        ASSERT_EQ(symcoll_halo_normalize(kFn, 2, &d, &all[pe]), SYMCOLL_SUCCESS);
    }
    EXPECT_EQ(symcoll_halo_check_team(kFn, 2, all.data()), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string msg = symcoll_last_error();
    EXPECT_NE(msg.find("dimension 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PE 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PE 1"), std::string::npos) << msg;
    all[1].interior[1] = 6; // x extents may differ along the split
    EXPECT_EQ(symcoll_halo_check_team(kFn, 2, all.data()), SYMCOLL_SUCCESS) << symcoll_last_error();
    all[1].width[1] = 2;
    EXPECT_EQ(symcoll_halo_check_team(kFn, 2, all.data()), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("width[1]"), std::string::npos);
    all[1].width[1] = 1;
    all[0].width[0] = all[1].width[0] = 3;
    all[1].interior[0] = 2;
    EXPECT_EQ(symcoll_halo_check_team(kFn, 2, all.data()), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("exceeds PE 1's interior"), std::string::npos)
        << symcoll_last_error();
}

// The records of 4 WORLD PEs: PEs 0 and 2 are members 0 and 1 of the team {0, 2} (start 0,
// stride 2), each with its own interior; PEs 1 and 3 are outside it.
std::vector<symcoll_halo_record_t> team_0_2() {
    std::vector<symcoll_halo_record_t> all(4);
    for (int pe = 0; pe < 4; pe++) {
        symcoll_halo_record_t &r = all[pe];
        std::memset(&r, 0, sizeof r);
        r.team_pe = pe % 2 == 0 ? pe / 2 : -1;
        r.team_size = pe % 2 == 0 ? 2 : 0;
        r.team_stride = pe % 2 == 0 ? 2 : 0;
        r.ll_bytes = 4096;
        r.desc = desc2d(8 + pe, 6, 1);
    }
    return all;
}

symcoll_status_t team_descs(const std::vector<symcoll_halo_record_t> &all, int *size,
                            std::vector<symcoll_halo_desc_t> *descs) {
    symcoll_halo_desc_t *out = nullptr;
    symcoll_status_t st = symcoll_halo_team_descs(kFn, all.data(), (int)all.size(), size, &out);
    if (out)
        descs->assign(out, out + *size);
    std::free(out);
    return st;
}

void expect_team_rejected(const std::vector<symcoll_halo_record_t> &all,
                          const std::vector<std::string> &needles) {
    int size = -1;
    std::vector<symcoll_halo_desc_t> descs;
    EXPECT_EQ(team_descs(all, &size, &descs), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    for (const std::string &needle : needles)
        EXPECT_NE(why.find(needle), std::string::npos) << "\"" << needle << "\" in: " << why;
    EXPECT_EQ(size, -1);
}

TEST(HaloTeam, MembersGiveTheirDescriptionsByTeamPe) {
    int size = 0;
    std::vector<symcoll_halo_desc_t> descs;
    ASSERT_EQ(team_descs(team_0_2(), &size, &descs), SYMCOLL_SUCCESS) << symcoll_last_error();
    ASSERT_EQ(size, 2);
    EXPECT_EQ(descs[0].interior[0], 8u);
    EXPECT_EQ(descs[1].interior[0], 10u) << "member 1 is PE 2";
}

// Teams of the same size that put the PEs elsewhere: each PE's own view is consistent, so
// only the records side by side show it.
TEST(HaloTeam, DifferentTeamsNameBothPes) {
    std::vector<symcoll_halo_record_t> all = team_0_2();
    all[2].team_pe = -1; // PE 2 passed a team it is not in ...
    all[3].team_pe = 1;  // ... and PE 3 the team {1, 3} as its member 1
    all[3].team_size = 2;
    all[3].team_start = 1;
    all[3].team_stride = 2;
    expect_team_rejected(all, {"different teams", "PE 0 is member 0 of a team of 2 PEs from PE 0",
                               "PE 3 is member 1 of a team of 2 PEs from PE 1 with stride 2"});
    all[3].team_start = 0; // {0, 2} again, but PE 3 says it is member 1, which is PE 2
    expect_team_rejected(all, {"different teams", "PE 3 is member 1"});
    all = team_0_2();
    all[2].team_size = 3;
    expect_team_rejected(all, {"different teams", "team of 3 PEs"});
    all = team_0_2();
    all[2].team_pe = 2; // beyond its own team's size
    expect_team_rejected(all, {"different teams", "PE 2 is member 2 of a team of 2"});
}

TEST(HaloTeam, AMemberOutsideItsTeamIsNamed) {
    std::vector<symcoll_halo_record_t> all = team_0_2();
    all[2].team_pe = -1;
    expect_team_rejected(all, {"1 PEs joined as members of a team of 2", "member 1 (PE 2)"});
    for (symcoll_halo_record_t &r : all)
        r.team_pe = -1;
    expect_team_rejected(all, {"no PE is a member"});
}

TEST(HaloTeam, LlBytesMustAgree) {
    std::vector<symcoll_halo_record_t> all = team_0_2();
    all[3].ll_bytes = 8192; // outside the team too: the slots of every plan are sized alike
    expect_team_rejected(all, {"SYMCOLL_HALO_LL_BYTES", "PE 0 has 4096, PE 3 has 8192"});
}

// A 2D float field 10 x 6 interior, width 2, pitch 16: the box sent up in y and its place in
// a neighbour whose interior is 10 x 9.
TEST(HaloMessage, BoxesOffsetsAndUnits) {
    symcoll_halo_desc_t d = desc2d(10, 6, 2), me, nb;
    d.pitch[0] = 16;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 1, &d, &me), SYMCOLL_SUCCESS);
    d.interior[1] = 9;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 1, &d, &nb), SYMCOLL_SUCCESS);
    symcoll_halo_msg_t m;
    ASSERT_TRUE(symcoll_halo_message(&me, &nb, dir(0, 1, 0), &m));
    EXPECT_EQ(m.src_offset, (6 * 16 + 2) * 4); // rows 6, 7 (the last two interior rows)
    EXPECT_EQ(m.dst_offset, (0 * 16 + 2) * 4); // into the neighbour's rows 0, 1
    EXPECT_EQ(m.row_bytes, 40u);
    EXPECT_EQ(m.rows, 2u);
    EXPECT_EQ(m.planes, 1u);
    EXPECT_EQ(m.src_pitch[0], 64);
    EXPECT_EQ(m.unit, 8); // offsets 392 and 8: 8-byte aligned
    ASSERT_TRUE(symcoll_halo_message(&me, &nb, dir(0, -1, 0), &m));
    EXPECT_EQ(m.src_offset, (2 * 16 + 2) * 4);
    EXPECT_EQ(m.dst_offset, ((2 + 9) * 16 + 2) * 4); // past the neighbour's 9 interior rows
    ASSERT_TRUE(symcoll_halo_message(&me, &nb, dir(-1, 0, 0), &m)); // a column face
    EXPECT_EQ(m.row_bytes, 8u);
    EXPECT_EQ(m.rows, 6u);
    EXPECT_EQ(m.src_offset, (2 * 16 + 2) * 4);
    EXPECT_EQ(m.dst_offset, (2 * 16 + 12) * 4);
    EXPECT_EQ(m.unit, 8);
    ASSERT_TRUE(symcoll_halo_message(&me, &nb, dir(1, 1, 0), &m)); // a corner
    EXPECT_EQ(m.row_bytes, 8u);
    EXPECT_EQ(m.rows, 2u);
    EXPECT_EQ(m.src_offset, (6 * 16 + 10) * 4);
    EXPECT_EQ(m.dst_offset, 0);
}

// Faces of 4 GiB and more, among them one of 2^64 bytes whose size wraps to 0. Normalizing
// rejects fields this large, so the descriptions are written by hand.
TEST(HaloMessage, FacesOf4GiBAreRefused) {
    symcoll_halo_desc_t d = desc2d(8, 8, 1), n;
    ASSERT_EQ(symcoll_halo_normalize(kFn, 1, &d, &n), SYMCOLL_SUCCESS);
    n.interior[1] = n.interior[2] = (size_t)1 << 31; // float: the x face is 4 * 2^31 * 2^31 bytes
    n.pitch[0] = 10;
    n.pitch[1] = 10 * (((size_t)1 << 31) + 2);
    symcoll_halo_msg_t m;
    EXPECT_FALSE(symcoll_halo_message(&n, &n, dir(1, 0, 0), &m));
    n.interior[1] = (size_t)1 << 30;
    n.interior[2] = 1; // 4 * 2^30 bytes: 4 GiB
    EXPECT_FALSE(symcoll_halo_message(&n, &n, dir(1, 0, 0), &m));
    n.interior[1] = ((size_t)1 << 30) - 1; // just under 4 GiB
    EXPECT_TRUE(symcoll_halo_message(&n, &n, dir(1, 0, 0), &m));
    EXPECT_EQ(m.row_bytes * m.rows, 4u * (((size_t)1 << 30) - 1));
}

// The sizes of this PE's bootstrap exchanges, in order, answered as the faked runtime does.
std::vector<size_t> exchanges;

symcoll_status_t record_exchange(symcoll_bootstrap_t *b, const void *mine, void *all,
                                 size_t bytes) {
    exchanges.push_back(bytes);
    for (int pe = 0; pe < b->size; pe++)
        std::memcpy(static_cast<char *>(all) + pe * bytes, mine, bytes);
    return SYMCOLL_SUCCESS;
}

// PE 1, out of host memory in symcoll_halo_create, joins the agreements on status (reporting
// its failure) and nothing else: any other exchange would wait for it forever.
symcoll_status_t pe1_out_of_memory(symcoll_bootstrap_t *, const void *mine, void *all,
                                   size_t bytes) {
    if (bytes != sizeof(int32_t)) {
        exchanges.push_back(bytes);
        return SYMCOLL_ERROR_TIMEOUT;
    }
    const int32_t failed = SYMCOLL_ERROR_OUT_OF_MEMORY;
    std::memcpy(all, mine, bytes);
    std::memcpy(static_cast<char *>(all) + bytes, &failed, bytes);
    return SYMCOLL_SUCCESS;
}

// symcoll_halo_create of the default description on WORLD of the faked runtime, whose
// exchanges allgather answers.
symcoll_status_t create_with(decltype(symcoll_bootstrap_t::allgather) allgather,
                             symcoll_halo_t *h) {
    fake_runtime::Runtime runtime;
    runtime.boot.allgather = allgather;
    exchanges.clear();
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    return symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, h);
}

TEST(HaloCreate, NoPeEntersTheRecordExchangeAfterAnotherPeFailed) {
    symcoll_halo_t h;
    EXPECT_EQ(create_with(pe1_out_of_memory, &h), SYMCOLL_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(h, nullptr);
    EXPECT_TRUE(exchanges.empty())
        << "waited for PE 1 in an exchange of " << exchanges[0] << " bytes";
    EXPECT_NE(std::string(symcoll_last_error()).find("PE 1 failed"), std::string::npos)
        << symcoll_last_error();
}

// The faked exchanges hand every PE this PE's record, so the PEs seem to pass different teams:
// a failure after the record exchange that, like running out of memory there, must be agreed
// on, as a PE that failed alone would otherwise leave the others waiting.
TEST(HaloCreate, FailureAfterTheRecordExchangeIsAgreedOn) {
    symcoll_halo_t h;
    EXPECT_EQ(create_with(record_exchange, &h), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("different teams"), std::string::npos)
        << symcoll_last_error();
    ASSERT_EQ(exchanges.size(), 3u) << "status, records, status";
    EXPECT_EQ(exchanges[0], sizeof(int32_t));
    EXPECT_GT(exchanges[1], sizeof(symcoll_halo_desc_t));
    EXPECT_EQ(exchanges[2], sizeof(int32_t));
}

// Two fields of one exchange that overlap: one's halo cells would be the other's interior.
// Against the faked runtime, with a plan of no directions (nothing to launch).
TEST(HaloExchangeArgs, OverlappingFieldsAreRefused) {
    fake_runtime::Runtime runtime;
    symcoll_halo_plan plan{};
    plan.team = SYMCOLL_TEAM_WORLD;
    plan.span = 1024;
    void *overlapping[3] = {runtime.a, runtime.a + 2048, runtime.a + 1000};
    EXPECT_EQ(symcoll_halo_exchange_many_on_stream(&plan, overlapping, 3, nullptr),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("fields[0]"), std::string::npos) << why;
    EXPECT_NE(why.find("fields[2]"), std::string::npos) << why;
    EXPECT_NE(why.find("overlap"), std::string::npos) << why;
    EXPECT_NE(why.find("1024 bytes"), std::string::npos) << why;
    void *same[2] = {runtime.a, runtime.a};
    EXPECT_EQ(symcoll_halo_exchange_many_on_stream(&plan, same, 2, nullptr),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    void *apart[3] = {runtime.a, runtime.a + 2048, runtime.a + 1024};
    EXPECT_EQ(symcoll_halo_exchange_many_on_stream(&plan, apart, 3, nullptr), SYMCOLL_SUCCESS)
        << symcoll_last_error();
}

} // namespace
