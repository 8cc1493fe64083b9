// Nodes (src/nodes.c): which PEs share this PE's node, from every PE's identity, and this
// PE's rank and count in it; which PEs are on other nodes, and how many nodes there are;
// SYMCOLL_NODE_ID splits one host's identity.
#include <gtest/gtest.h>

#include <vector>

#include "nodes.h"

namespace {

struct Grouping {
    std::vector<int> same;
    int local_rank, local_size;
};

Grouping group(const std::vector<unsigned long long> &ids, int me) {
    Grouping g{std::vector<int>(ids.size()), -1, -1};
    symcoll_nodes_group(ids.data(), (int)ids.size(), me, g.same.data(), &g.local_rank,
                        &g.local_size);
    return g;
}

TEST(Nodes, NodeIdSplitsAHostAndMinusOneKeepsIt) {
    const unsigned long long host = 0x1234567890abcdefull;
    EXPECT_EQ(symcoll_node_identity(host, -1), host);
    EXPECT_NE(symcoll_node_identity(host, 0), host);
    EXPECT_NE(symcoll_node_identity(host, 0), symcoll_node_identity(host, 1));
    EXPECT_EQ(symcoll_node_identity(host, 3), symcoll_node_identity(host, 3));
    EXPECT_NE(symcoll_node_identity(host, 1), symcoll_node_identity(host + 1, 1));
    EXPECT_NE(symcoll_node_identity(host, 256), symcoll_node_identity(host, 1));
}

TEST(Nodes, ContiguousBlocksGiveEachPeItsRankInItsNode) {
    const std::vector<unsigned long long> ids = {7, 7, 7, 9, 9};
    Grouping first = group(ids, 1);
    EXPECT_EQ(first.same, (std::vector<int>{1, 1, 1, 0, 0}));
    EXPECT_EQ(first.local_rank, 1);
    EXPECT_EQ(first.local_size, 3);
    Grouping last = group(ids, 4);
    EXPECT_EQ(last.same, (std::vector<int>{0, 0, 0, 1, 1}));
    EXPECT_EQ(last.local_rank, 1);
    EXPECT_EQ(last.local_size, 2);
}

// Interleaved nodes: the PEs still know who shares their node (what they map), but NODE, which
// needs contiguous ranks, is the PE alone.
TEST(Nodes, InterleavedNodesLeaveNodeThePeAlone) {
    const std::vector<unsigned long long> ids = {7, 9, 7, 9};
    Grouping g = group(ids, 2);
    EXPECT_EQ(g.same, (std::vector<int>{1, 0, 1, 0}));
    EXPECT_EQ(g.local_rank, 0);
    EXPECT_EQ(g.local_size, 1);
}

// The PEs of other nodes, interleaved or not, and how many nodes there are: three here, the
// first two sharing an identity with PEs after them.
TEST(Nodes, OthersAreThePesOfOtherNodes) {
    const std::vector<unsigned long long> ids = {7, 9, 7, 11, 9};
    bool other[5];
    EXPECT_EQ(symcoll_nodes_others(ids.data(), 5, 1, other), 3);
    EXPECT_EQ(std::vector<bool>(other, other + 5), (std::vector<bool>{1, 0, 1, 1, 0}));
    EXPECT_EQ(symcoll_nodes_others(ids.data(), 5, 3, other), 3);
    EXPECT_EQ(std::vector<bool>(other, other + 5), (std::vector<bool>{1, 1, 1, 0, 1}));
}

TEST(Nodes, OnOneNodeNoPeIsOther) {
    const std::vector<unsigned long long> ids = {5, 5, 5};
    bool other[3] = {true, true, true};
    EXPECT_EQ(symcoll_nodes_others(ids.data(), 3, 2, other), 1);
    EXPECT_EQ(std::vector<bool>(other, other + 3), (std::vector<bool>{0, 0, 0}));
}

TEST(Nodes, OnePeIsItsOwnNode) {
    Grouping g = group({42}, 0);
    EXPECT_EQ(g.same, (std::vector<int>{1}));
    EXPECT_EQ(g.local_rank, 0);
    EXPECT_EQ(g.local_size, 1);
}

} // namespace
