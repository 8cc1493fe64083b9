// tuning/: table lookups on synthetic topologies of 2, 4 and 8 PEs, the cost model where no
// row fits, grid sizes, forcing an algorithm and a grid, unknown names.
#include <cstdint>
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "tuning.h"
#include "tuning_table.h"

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * KiB;

// The team class of PEs 0..n-1 when every pair is joined by `cell` ("NV18", "PIX", "-").
topo_class_t uniform_class(int n, const char *cell) {
    std::string text = std::to_string(n) + "\n";
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            text += std::string(i == j ? "X" : cell) + " ";
        text += "\n";
    }
    symcoll_topology_t topo;
    char err[256] = "";
    EXPECT_EQ(symcoll_topology_parse(text.c_str(), &topo, err, sizeof err), 0) << err;
    return symcoll_topology_team_class(&topo, 0, 1, n);
}

symcoll_choice_t select(symcoll_collective_t c, size_t bytes, int n, topo_class_t topo,
                        const char *forced = nullptr, int sm_count = 132) {
    symcoll_tuning_query_t q = {c, bytes, 4, n, topo, sm_count, forced};
    symcoll_choice_t out;
    symcoll_status_t st = symcoll_tuning_select(&q, &out);
    EXPECT_EQ(st, SYMCOLL_SUCCESS) << out.why;
    return out;
}

bool starts_with(const char *s, const char *prefix) {
    return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

const symcoll_collective_t kData[] = {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_REDUCE,
                                      SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL};

TEST(Tuning, AlgorithmListsMatchTheIndices) {
    const char *const *b = symcoll_collective_algorithms(SYMCOLL_COLL_BROADCAST);
    EXPECT_STREQ(b[SYMCOLL_BROADCAST_LL], "ll");
    EXPECT_STREQ(b[SYMCOLL_BROADCAST_PULL], "pull");
    EXPECT_STREQ(b[SYMCOLL_BROADCAST_PUSH], "push");
    EXPECT_STREQ(b[SYMCOLL_BROADCAST_CE], "ce");
    EXPECT_EQ(b[4], nullptr);
    const char *const *r = symcoll_collective_algorithms(SYMCOLL_COLL_REDUCE);
    EXPECT_STREQ(r[SYMCOLL_REDUCE_LL], "ll");
    EXPECT_STREQ(r[SYMCOLL_REDUCE_ONE_SHOT], "one_shot");
    EXPECT_STREQ(r[SYMCOLL_REDUCE_TWO_SHOT], "two_shot");
    EXPECT_EQ(r[3], nullptr);
    for (symcoll_collective_t c : {SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL}) {
        const char *const *a = symcoll_collective_algorithms(c);
        EXPECT_STREQ(a[SYMCOLL_FCOLLECT_LL], "ll");
        EXPECT_STREQ(a[SYMCOLL_FCOLLECT_PUSH], "push");
        EXPECT_STREQ(a[SYMCOLL_ALLTOALL_PULL], "pull");
        EXPECT_EQ(a[3], nullptr);
    }
    EXPECT_STREQ(symcoll_collective_algorithms(SYMCOLL_COLL_BARRIER)[SYMCOLL_BARRIER_FLAGS],
                 "flags");
    EXPECT_EQ(symcoll_collective_algorithms(SYMCOLL_COLL_SIGNAL_WAIT)[0], nullptr);
    EXPECT_EQ(symcoll_collective_algorithms((symcoll_collective_t)99)[0], nullptr);
}

TEST(Tuning, CollectiveNames) {
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_BARRIER), "barrier");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_BROADCAST), "broadcast");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_REDUCE), "reduce");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_FCOLLECT), "fcollect");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_ALLTOALL), "alltoall");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_SIGNAL_WAIT), "signal_wait");
    EXPECT_STREQ(symcoll_collective_name(SYMCOLL_COLL_DEVICE_API), "device_api");
    EXPECT_STREQ(symcoll_collective_name((symcoll_collective_t)-3), "none");
}

TEST(Tuning, EveryRowIsUsableAndEveryTableSizeIsCovered) {
    for (size_t i = 0; i < symcoll_tuning_n_rows; i++) {
        const symcoll_tuning_row_t &r = symcoll_tuning_rows[i];
        SCOPED_TRACE("row " + std::to_string(i));
        const char *const *names = symcoll_collective_algorithms(r.collective);
        bool known = false;
        for (int a = 0; names[a]; a++)
            known = known || !std::strcmp(names[a], r.algo);
        EXPECT_TRUE(known) << r.algo;
        EXPECT_GE(r.blocks, 1);
        EXPECT_LE(r.blocks, SYMCOLL_MAX_BLOCKS);
        EXPECT_GE(r.threads, 32);
        EXPECT_LE(r.threads, SYMCOLL_TUNING_MAX_THREADS);
        EXPECT_EQ(r.threads % 32, 0);
        // Each (collective, topology, team bucket) ends with a row for every size.
        bool closed = false;
        for (size_t j = i; j < symcoll_tuning_n_rows && !closed; j++) {
            const symcoll_tuning_row_t &s = symcoll_tuning_rows[j];
            closed = s.collective == r.collective && s.topo == r.topo &&
                     s.max_team_size == r.max_team_size && s.max_bytes == SIZE_MAX;
        }
        EXPECT_TRUE(closed);
    }
}

TEST(Tuning, NvlinkTableForTwoPes) {
    topo_class_t nv = uniform_class(2, "NV18");
    ASSERT_EQ(nv, TOPO_NVLINK);
    for (symcoll_collective_t c : kData) {
        SCOPED_TRACE(symcoll_collective_name(c));
        symcoll_choice_t small = select(c, 8, 2, nv);
        EXPECT_STREQ(small.name, "ll");
        EXPECT_EQ(small.algo, 0);
        EXPECT_TRUE(starts_with(small.why, "built-in table row")) << small.why;
        size_t ll_max = c == SYMCOLL_COLL_BROADCAST ? 256 * KiB
                        : c == SYMCOLL_COLL_REDUCE  ? 128 * KiB
                                                    : 512 * KiB;
        EXPECT_STREQ(select(c, ll_max, 2, nv).name, "ll");
        EXPECT_STRNE(select(c, ll_max + 8, 2, nv).name, "ll");
    }
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 4 * MiB, 2, nv).name, "push");
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 16 * MiB, 2, nv).name, "pull");
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 16 * MiB + 4, 2, nv).name, "ce");
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 128 * MiB, 4, nv).name, "pull");
    EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 128 * KiB + 4, 2, nv).name, "two_shot");
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 2 * MiB, 2, nv).blocks, 32);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 16 * MiB, 2, nv).threads, 256);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 128 * MiB, 2, nv).threads, 512);
    EXPECT_EQ(select(SYMCOLL_COLL_BROADCAST, 2 * MiB, 2, nv).threads, 128);
    EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 128 * KiB, 4, nv).name, "one_shot");
    for (symcoll_collective_t c : {SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL}) {
        EXPECT_STREQ(select(c, 128 * MiB, 2, nv).name, "push");
        EXPECT_STREQ(select(c, 128 * MiB, 4, nv).name, "push");
    }
}

TEST(Tuning, NvlinkTableForFourAndEightPes) {
    for (int n : {4, 8}) {
        SCOPED_TRACE(std::to_string(n) + " PEs");
        topo_class_t nv = uniform_class(n, "NV18");
        EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 16 * KiB, n, nv).name, "ll");
        EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 16 * KiB + 4, n, nv).name, "one_shot");
        EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 256 * KiB, n, nv).name, "one_shot");
        EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 2 * MiB, n, nv).name, "two_shot");
        EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 4 * KiB, n, nv).name, "ll");
        EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 4 * MiB, n, nv).name, "pull");
        EXPECT_STREQ(select(SYMCOLL_COLL_ALLTOALL, 32 * KiB, n, nv).name, "ll");
        EXPECT_STREQ(select(SYMCOLL_COLL_FCOLLECT, 16 * MiB, n, nv).name, "push");
    }
}

TEST(Tuning, PcieAndMixedTopologiesUseThePcieRows) {
    topo_class_t pix = uniform_class(4, "PIX");
    ASSERT_EQ(pix, TOPO_PCIE_P2P);
    EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 16 * KiB, 4, pix).name, "ll");
    symcoll_choice_t big = select(SYMCOLL_COLL_REDUCE, 16 * KiB + 4, 4, pix);
    EXPECT_STREQ(big.name, "two_shot");
    EXPECT_LE(big.blocks, 32);
    // Two NVLink pairs joined by PCIe: the slowest link decides.
    symcoll_topology_t topo;
    char err[256] = "";
    ASSERT_EQ(symcoll_topology_parse("4\nX NV4 PIX PIX\nNV4 X PIX PIX\nPIX PIX X NV4\n"
                                     "PIX PIX NV4 X\n",
                                     &topo, err, sizeof err),
              0)
        << err;
    EXPECT_EQ(symcoll_topology_team_class(&topo, 0, 1, 4), TOPO_PCIE_P2P);
    EXPECT_EQ(symcoll_topology_team_class(&topo, 0, 1, 2), TOPO_NVLINK);
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 32 * KiB, 4, TOPO_PCIE_P2P).name, "pull");
    EXPECT_STREQ(select(SYMCOLL_COLL_BROADCAST, 32 * KiB, 2, TOPO_NVLINK).name, "ll");
}

TEST(Tuning, ModelDecidesWhereNoRowFits) {
    // 16 PEs on NVLink, a team of one, and PCIe beyond 8 PEs have no rows.
    struct {
        int n;
        topo_class_t topo;
    } cases[] = {{16, TOPO_NVLINK}, {1, TOPO_SAME_GPU}, {12, TOPO_PCIE_P2P}};
    for (auto k : cases)
        for (symcoll_collective_t c : kData) {
            SCOPED_TRACE(std::string(symcoll_collective_name(c)) + " " + std::to_string(k.n));
            symcoll_choice_t small = select(c, 8, k.n, k.topo);
            EXPECT_TRUE(starts_with(small.why, "model")) << small.why;
            EXPECT_STREQ(small.name, "ll") << small.why;
            symcoll_choice_t big = select(c, 256 * MiB, k.n, k.topo);
            EXPECT_STRNE(big.name, "ll") << big.why;
            // Once the model leaves LL it does not come back for larger messages.
            bool left_ll = false;
            for (size_t bytes = 8; bytes <= 256 * MiB; bytes *= 2) {
                bool ll = !std::strcmp(select(c, bytes, k.n, k.topo).name, "ll");
                EXPECT_FALSE(left_ll && ll) << bytes;
                left_ll = left_ll || !ll;
            }
        }
    EXPECT_STREQ(select(SYMCOLL_COLL_REDUCE, 256 * MiB, 16, TOPO_NVLINK).name, "two_shot");
}

TEST(Tuning, LlGridFollowsThePayloadPerPeer) {
    topo_class_t nv = TOPO_NVLINK;
    symcoll_choice_t one = select(SYMCOLL_COLL_BROADCAST, 8, 2, nv);
    EXPECT_EQ(one.blocks, 1);
    EXPECT_EQ(one.threads, 32);
    symcoll_choice_t two = select(SYMCOLL_COLL_BROADCAST, 8 * KiB + 1, 2, nv);
    EXPECT_EQ(two.blocks, 2);
    symcoll_choice_t full = select(SYMCOLL_COLL_BROADCAST, 64 * KiB, 2, nv);
    EXPECT_EQ(full.blocks, 8);
    EXPECT_EQ(full.threads, 512);
    // fcollect and alltoall count the whole dst: each peer gets bytes / n.
    EXPECT_EQ(select(SYMCOLL_COLL_FCOLLECT, 64 * KiB, 2, nv).blocks, 4);
    EXPECT_EQ(select(SYMCOLL_COLL_ALLTOALL, 64 * KiB, 8, nv).blocks, 1);
    // Forced LL on a huge message stays within the LL blocks (it loops over rounds).
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 64 * MiB, 2, nv, "ll").blocks, SYMCOLL_LL_BLOCKS);
}

TEST(Tuning, BandwidthGridFollowsBytesAndSmCount) {
    symcoll_choice_t small = select(SYMCOLL_COLL_REDUCE, 1 * MiB, 2, TOPO_NVLINK);
    EXPECT_EQ(small.blocks, 32);
    EXPECT_EQ(small.threads, 512);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 512 * KiB, 2, TOPO_NVLINK).blocks, 16);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 128 * MiB, 2, TOPO_NVLINK).blocks, SYMCOLL_MAX_BLOCKS);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 128 * MiB, 2, TOPO_NVLINK, nullptr, 78).blocks, 78);
    EXPECT_EQ(select(SYMCOLL_COLL_REDUCE, 128 * MiB, 2, TOPO_NVLINK, nullptr, 0).blocks,
              SYMCOLL_MAX_BLOCKS);
    EXPECT_EQ(select(SYMCOLL_COLL_BROADCAST, 1, 2, TOPO_NVLINK, "pull").blocks, 1);
}

TEST(Tuning, ForcedNamesWinAtEverySize) {
    for (symcoll_collective_t c : kData) {
        const char *const *names = symcoll_collective_algorithms(c);
        for (int a = 0; names[a]; a++)
            for (size_t bytes : {(size_t)8, 64 * KiB, 128 * MiB}) {
                symcoll_choice_t ch = select(c, bytes, 2, TOPO_NVLINK, names[a]);
                EXPECT_EQ(ch.algo, a);
                EXPECT_STREQ(ch.name, names[a]);
                EXPECT_NE(std::strstr(ch.why, "forced"), nullptr) << ch.why;
                EXPECT_GE(ch.blocks, 1);
            }
    }
    // An empty name means automatic.
    EXPECT_TRUE(
        starts_with(select(SYMCOLL_COLL_REDUCE, 8, 2, TOPO_NVLINK, "").why, "built-in table"));
}

TEST(Tuning, UnknownForcedNameIsAnError) {
    symcoll_tuning_query_t q = {SYMCOLL_COLL_REDUCE, 8, 4, 2, TOPO_NVLINK, 132, "three_shot"};
    symcoll_choice_t out;
    EXPECT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = out.why;
    EXPECT_NE(why.find("SYMCOLL_ALGO_REDUCE"), std::string::npos) << why;
    EXPECT_NE(why.find("three_shot"), std::string::npos) << why;
    EXPECT_NE(why.find("one_shot"), std::string::npos) << why;
    q.collective = SYMCOLL_COLL_BROADCAST;
    q.forced = "one_shot"; // a reduce algorithm, not a broadcast one
    EXPECT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(out.why).find("SYMCOLL_ALGO_BROADCAST"), std::string::npos);
}

TEST(Tuning, CollectivesWithoutAlgorithmsAreRejected) {
    symcoll_tuning_query_t q = {SYMCOLL_COLL_SIGNAL_WAIT, 8, 4, 2, TOPO_NVLINK, 132, nullptr};
    symcoll_choice_t out;
    EXPECT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(out.why).find("signal_wait"), std::string::npos);
}

TEST(Tuning, BarrierIsOneWarp) {
    symcoll_choice_t b = select(SYMCOLL_COLL_BARRIER, 0, 8, TOPO_NVLINK);
    EXPECT_STREQ(b.name, "flags");
    EXPECT_EQ(b.blocks, 1);
    EXPECT_EQ(b.threads, 32);
    EXPECT_EQ(b.source, SYMCOLL_CHOICE_FIXED) << "no choice, so no model";
    EXPECT_STREQ(b.why, "the only algorithm");
    EXPECT_FALSE(symcoll_tuning_has_choice(SYMCOLL_COLL_BARRIER));
    EXPECT_TRUE(symcoll_tuning_has_choice(SYMCOLL_COLL_REDUCE_SCATTER));
}

TEST(Tuning, ChooseDecidesLikeSelectWithoutWhy) {
    for (symcoll_collective_t c : kData)
        for (int n : {1, 2, 8, 16})
            for (topo_class_t topo : {TOPO_SAME_GPU, TOPO_NVLINK, TOPO_PCIE_P2P})
                for (const char *forced : {(const char *)nullptr, "ll"})
                    for (size_t bytes = 1; bytes <= 256 * MiB; bytes *= 8) {
                        symcoll_tuning_query_t q = {c, bytes, 4, n, topo, 132, forced};
                        symcoll_choice_t chosen, selected;
                        ASSERT_EQ(symcoll_tuning_choose(&q, &chosen), SYMCOLL_SUCCESS);
                        ASSERT_EQ(symcoll_tuning_select(&q, &selected), SYMCOLL_SUCCESS);
                        EXPECT_EQ(chosen.algo, selected.algo);
                        EXPECT_STREQ(chosen.name, selected.name);
                        EXPECT_EQ(chosen.blocks, selected.blocks);
                        EXPECT_EQ(chosen.threads, selected.threads);
                        EXPECT_STREQ(chosen.why, "");
                        EXPECT_STRNE(selected.why, "");
                    }
    symcoll_tuning_query_t bad = {SYMCOLL_COLL_FCOLLECT, 8, 4, 2, TOPO_NVLINK, 132, "x"};
    symcoll_choice_t out;
    EXPECT_EQ(symcoll_tuning_choose(&bad, &out), SYMCOLL_ERROR_INVALID_ARGUMENT);
}

TEST(Tuning, ForcedGridActsAsTheRowsGrid) {
    topo_class_t nv = uniform_class(2, "NV18");
    symcoll_tuning_query_t q = {SYMCOLL_COLL_REDUCE, 16 * MiB, 4, 2, nv, 132, "two_shot"};
    symcoll_choice_t out;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 128); // the grid of the built-in two_shot row for 16 MiB
    EXPECT_EQ(out.threads, 256);
    q.bytes = 128 * KiB; // within the first two_shot row (the automatic choice is ll)
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 4);
    EXPECT_EQ(out.threads, 512);
    q.bytes = 16 * MiB;
    q.forced_blocks = 8;
    q.forced_threads = 256;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_STREQ(out.name, "two_shot");
    EXPECT_EQ(out.blocks, 8);
    EXPECT_EQ(out.threads, 256);
    q.bytes = 64 * KiB; // a small message takes fewer blocks than the most
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 2);
    q.forced_blocks = 200; // never more than the GPU's multiprocessors
    q.bytes = 256 * MiB;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 128);
    q.sm_count = 100;
    ASSERT_EQ(symcoll_tuning_select(&q, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 100);
    symcoll_tuning_query_t ll = {SYMCOLL_COLL_FCOLLECT, 256 * KiB, 4, 2, nv, 132, "ll"};
    ll.forced_blocks = 4;
    ll.forced_threads = 128;
    ASSERT_EQ(symcoll_tuning_select(&ll, &out), SYMCOLL_SUCCESS) << out.why;
    EXPECT_EQ(out.blocks, 4);
    EXPECT_EQ(out.threads, 128);
    EXPECT_NE(std::strstr(out.why, "symcoll_tuning_override"), nullptr) << out.why;
}

TEST(Tuning, GridLimitsFollowTheAlgorithmsGrid) {
    int blocks = 0, threads = 0;
    ASSERT_EQ(symcoll_algorithm_grid_limits(SYMCOLL_COLL_BROADCAST, SYMCOLL_BROADCAST_CE, &blocks,
                                            &threads),
              0);
    EXPECT_EQ(blocks, 1);
    EXPECT_EQ(threads, 32);
    ASSERT_EQ(
        symcoll_algorithm_grid_limits(SYMCOLL_COLL_REDUCE, SYMCOLL_REDUCE_LL, &blocks, &threads),
        0);
    EXPECT_EQ(blocks, SYMCOLL_LL_BLOCKS);
    EXPECT_EQ(threads, SYMCOLL_TUNING_MAX_THREADS);
    ASSERT_EQ(symcoll_algorithm_grid_limits(SYMCOLL_COLL_ALLTOALL, SYMCOLL_ALLTOALL_PULL, &blocks,
                                            &threads),
              0);
    EXPECT_EQ(blocks, SYMCOLL_MAX_BLOCKS);
    EXPECT_EQ(threads, SYMCOLL_TUNING_MAX_THREADS);
    EXPECT_EQ(symcoll_algorithm_grid_limits(SYMCOLL_COLL_REDUCE, 3, &blocks, &threads), -1);
    EXPECT_EQ(symcoll_algorithm_grid_limits(SYMCOLL_COLL_REDUCE, -1, &blocks, &threads), -1);
    EXPECT_EQ(symcoll_algorithm_grid_limits(SYMCOLL_COLL_HALO, 0, &blocks, &threads), -1);
}

TEST(Tuning, AlgorithmListForMessages) {
    char list[64];
    symcoll_tuning_algorithm_list(SYMCOLL_COLL_REDUCE, list, sizeof list);
    EXPECT_STREQ(list, "ll, one_shot, two_shot");
    symcoll_tuning_algorithm_list(SYMCOLL_COLL_HALO, list, sizeof list);
    EXPECT_STREQ(list, "");
}

} // namespace
