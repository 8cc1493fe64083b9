// Halo plan geometry on the CPU: description checks with the message naming the field, the PE
// grid choice, neighbours with and without wrap-around, the face checks between PEs, and the
// box every direction moves; and the collective steps of a plan's creation that fails, against
// the faked runtime of fake_runtime.h.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "fake_runtime.h"
#include "halo_geometry.h"

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

} // namespace
