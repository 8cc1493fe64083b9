// How a team lies over the nodes (collectives/nodes_plan.c): whether it spans nodes (a member
// this PE does not reach), and its runs, its PEs of one node, each of which the calls across
// nodes take only as one PE or the whole node; jobs whose nodes are not contiguous in rank are
// refused. The job is faked in symcoll_g: no GPU, no proxy behind the pointer.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "nodes_plan.h"

namespace {

class NodesPlan : public ::testing::Test {
  protected:
    // A job of nodes of the given sizes, contiguous in rank; this PE is WORLD PE 0.
    void job(const std::vector<int> &sizes) {
        std::memset(&symcoll_g, 0, sizeof symcoll_g);
        for (int size : sizes) {
            symcoll_g.node_leaders[symcoll_g.n_nodes++] = symcoll_g.n_pes;
            symcoll_g.n_pes += size;
        }
        symcoll_g.local_size = sizes[0];
        symcoll_g.reachable = (1ull << sizes[0]) - 1;
        symcoll_g.proxy = reinterpret_cast<symcoll_proxy *>(&symcoll_g);
    }
    void TearDown() override {
        std::memset(&symcoll_g, 0, sizeof symcoll_g);
    }

    static symcoll_team_state_t team(int start, int stride, int size) {
        symcoll_team_state_t t = {};
        t.handle = 7;
        t.start = start;
        t.stride = stride;
        t.size = size;
        return t;
    }
    // The team ranks that start its runs, or the error's text.
    static std::string runs(const symcoll_team_state_t &t) {
        int first[SYMCOLL_MAX_PES], n = 0;
        if (symcoll_nodes_runs("test", &t, first, &n) != SYMCOLL_SUCCESS)
            return symcoll_last_error();
        std::string s;
        for (int k = 0; k < n; k++)
            s += (k ? " " : "") + std::to_string(first[k]);
        return s;
    }
};

TEST_F(NodesPlan, TeamsSpanNodesWhereAMemberIsOutOfReach) {
    job({2, 2});
    symcoll_team_state_t world = team(0, 1, 4), mine = team(0, 1, 2), peers = team(0, 2, 2);
    EXPECT_TRUE(symcoll_nodes_spans(&world));
    EXPECT_FALSE(symcoll_nodes_spans(&mine));
    EXPECT_TRUE(symcoll_nodes_spans(&peers));
    symcoll_g.proxy = nullptr; // one node: nothing spans
    EXPECT_FALSE(symcoll_nodes_spans(&world));
}

TEST_F(NodesPlan, RunsAreOnePeOrTheWholeNode) {
    job({2, 2});
    EXPECT_EQ(runs(team(0, 1, 4)), "0 2");
    EXPECT_EQ(runs(team(0, 2, 2)), "0 1");
    EXPECT_EQ(runs(team(1, 2, 2)), "0 1");
    EXPECT_EQ(runs(team(1, 1, 2)), "0 1");
    EXPECT_EQ(runs(team(0, 1, 3)), "0 2"); // the barrier takes it; the data calls do not
}

TEST_F(NodesPlan, APartOfANodeIsRefusedNamingIt) {
    job({4, 4, 4});
    EXPECT_EQ(runs(team(0, 4, 3)), "0 1 2");
    EXPECT_EQ(runs(team(0, 1, 8)), "0 4");
    std::string part = runs(team(0, 1, 6));
    EXPECT_NE(part.find("holds 2 of the 4 PEs of node 1"), std::string::npos) << part;
    part = runs(team(1, 1, 4)); // PEs 1 to 3 of node 0, then PE 4 of node 1
    EXPECT_NE(part.find("holds 3 of the 4 PEs of node 0"), std::string::npos) << part;
    EXPECT_EQ(runs(team(3, 1, 2)), "0 1");
}

TEST_F(NodesPlan, NodesOfDifferentSizesKeepWholeNodeRuns) {
    job({3, 2});
    EXPECT_EQ(runs(team(0, 1, 5)), "0 3");
    EXPECT_EQ(runs(team(2, 1, 2)), "0 1");
}

TEST_F(NodesPlan, NodesNotContiguousInRankAreRefused) {
    job({2, 2});
    symcoll_g.n_nodes = 0;
    EXPECT_NE(runs(team(0, 1, 4)).find("not contiguous in rank"), std::string::npos);
}

} // namespace
