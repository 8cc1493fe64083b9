// Simulated nodes on one host (symcoll-run --nodes 2 -n 4): each PE maps the PEs of its own node
// only, NODE is its node, collectives run on a node's team and refuse a team across nodes, and
// RMA to a PE of another node is refused: nothing faults, nothing hangs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "rma_testing.h"

using namespace rma_testing;

namespace {

// The simulated node of a WORLD PE under --nodes 2 with 4 PEs: ranks 0-1 and 2-3.
int node_of(int pe) {
    return pe / 2;
}

class Nodes : public ::testing::Test {
  protected:
    void SetUp() override {
        // Registered under symcoll-run --nodes 2 -n 4: anything else is a broken launch.
        ASSERT_EQ(symcoll_n_pes(), 4);
        ASSERT_NE(std::getenv("SYMCOLL_NODE_ID"), nullptr);
    }
    int me = symcoll_my_pe();
};

TEST_F(Nodes, NodeTeamIsThisPesNode) {
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_NODE), 2);
    EXPECT_EQ(symcoll_team_my_pe(SYMCOLL_TEAM_NODE), me % 2);
    EXPECT_EQ(std::atoi(std::getenv("SYMCOLL_NODE_ID")), node_of(me));
}

TEST_F(Nodes, OnlyThePesOfThisNodeAreMapped) {
    SymBuffer buf(4096);
    for (int pe = 0; pe < 4; pe++) {
        void *p = symcoll_ptr(buf.ptr, pe);
        if (node_of(pe) == node_of(me))
            EXPECT_NE(p, nullptr) << "PE " << pe << ": " << symcoll_last_error();
        else
            EXPECT_EQ(p, nullptr) << "PE " << pe << " is on another node";
    }
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    for (int pe = 0; pe < 4; pe++)
        EXPECT_EQ((h.reachable >> pe) & 1, node_of(pe) == node_of(me) ? 1u : 0u) << "PE " << pe;
}

// Every PE of a node adds its rank + 1: the node's sum, never the other node's values.
TEST_F(Nodes, ACollectiveOnTheNodeTeamSumsTheNode) {
    SymBuffer buf(2 * sizeof(int32_t));
    Stream stream;
    std::vector<int32_t> mine = {me + 1, 10 * (me + 1)};
    CUDA_OK(cudaMemcpy(buf.ptr, mine.data(), 8, cudaMemcpyHostToDevice));
    ASSERT_EQ(symcoll_reduce_on_stream(SYMCOLL_TEAM_NODE, buf.ptr, buf.ptr, 2, SYMCOLL_INT32,
                                       SYMCOLL_SUM, stream),
              SYMCOLL_SUCCESS)
        << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<int32_t> got(2);
    CUDA_OK(cudaMemcpy(got.data(), buf.ptr, 8, cudaMemcpyDeviceToHost));
    int first = 2 * node_of(me);
    int32_t sum = (first + 1) + (first + 2);
    EXPECT_EQ(got, (std::vector<int32_t>{sum, 10 * sum}));
}

TEST_F(Nodes, TeamsAcrossNodesAndRmaToAnotherNodeAreRefused) {
    SymBuffer buf(64);
    Stream stream;
    EXPECT_EQ(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, buf.ptr, buf.ptr, 1, SYMCOLL_INT32,
                                       SYMCOLL_SUM, stream),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::strstr(symcoll_last_error(), "other nodes"), nullptr) << symcoll_last_error();
    EXPECT_EQ(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream), SYMCOLL_ERROR_UNSUPPORTED);
    int other = (me + 2) % 4;
    EXPECT_EQ(symcoll_put_on_stream(buf.ptr, buf.ptr, 8, other, stream), SYMCOLL_ERROR_UNSUPPORTED)
        << symcoll_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
}

} // namespace
