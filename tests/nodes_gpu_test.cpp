// Simulated nodes on one host (symcoll-run --nodes 2, 2 or 4 PEs): each PE maps the PEs of its own
// node only, NODE is its node, and a collective on NODE stays in the node (nodes_coll_test runs
// the collectives across nodes). RMA to a PE of the other node goes through the UCX proxy: puts,
// gets and put-with-signal of every size class from and into memory that is not symmetric, at
// unaligned offsets, eager and replayed from a graph, checked against each PE's random data with
// everything around them poisoned; the WORLD barrier across nodes orders them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rma_testing.h"

using namespace rma_testing;

namespace {

int n_pes() {
    return symcoll_n_pes();
}
// Two nodes of n_pes() / 2 PEs each: ranks [0, n/2) and [n/2, n).
int node_of(int pe) {
    return pe / (n_pes() / 2);
}
// The PE of the other node with this PE's rank in its node.
int partner_of(int pe) {
    return (pe + n_pes() / 2) % n_pes();
}

// Sizes of every class through the proxy's 1 MiB staging slots: one byte, odd, one slot plus
// one byte, several slots, past L2.
std::vector<size_t> remote_sizes() {
    return {1, 7, 4093, (1u << 20) + 1, (3u << 20) + 5, (64u << 20) + 3};
}
constexpr size_t kOffset = 3; // every transfer starts at an odd address
constexpr size_t kGuard = 64; // poisoned bytes after every transfer

class Nodes : public ::testing::Test {
  protected:
    void SetUp() override {
        // Registered under symcoll-run --nodes 2 with 2 or 4 PEs: anything else is a broken
        // launch.
        ASSERT_TRUE(n_pes() == 2 || n_pes() == 4) << n_pes() << " PEs";
        ASSERT_NE(std::getenv("SYMCOLL_NODE_ID"), nullptr);
    }
    int me = symcoll_my_pe();
    int partner = partner_of(symcoll_my_pe());
};

// dst[0, n) poisoned, then (host) the bytes at got: the partner's data for seed at kOffset and
// the poison around it.
void expect_delivered(const uint8_t *got, size_t bytes, uint64_t seed, int from) {
    std::vector<uint8_t> want = random_bytes(bytes, seed, from);
    EXPECT_EQ(first_unpoisoned(got, kOffset), -1) << "before the data, " << bytes << " bytes";
    EXPECT_EQ(first_mismatch(got + kOffset, want.data(), bytes), -1) << bytes << " bytes";
    EXPECT_EQ(first_unpoisoned(got + kOffset + bytes, kGuard), -1)
        << "after the data, " << bytes << " bytes";
}

TEST_F(Nodes, NodeTeamIsThisPesNode) {
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_NODE), n_pes() / 2);
    EXPECT_EQ(symcoll_team_my_pe(SYMCOLL_TEAM_NODE), me % (n_pes() / 2));
    EXPECT_EQ(std::atoi(std::getenv("SYMCOLL_NODE_ID")), node_of(me));
}

TEST_F(Nodes, OnlyThePesOfThisNodeAreMapped) {
    SymBuffer buf(4096);
    for (int pe = 0; pe < n_pes(); pe++) {
        void *p = symcoll_ptr(buf.ptr, pe);
        if (node_of(pe) == node_of(me))
            EXPECT_NE(p, nullptr) << "PE " << pe << ": " << symcoll_last_error();
        else
            EXPECT_EQ(p, nullptr) << "PE " << pe << " is on another node";
    }
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    for (int pe = 0; pe < n_pes(); pe++)
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
    int per_node = n_pes() / 2, first = per_node * node_of(me);
    int32_t sum = 0;
    for (int pe = first; pe < first + per_node; pe++)
        sum += pe + 1;
    EXPECT_EQ(got, (std::vector<int32_t>{sum, 10 * sum}));
}

// Each PE puts a new token into its partner's word, then the WORLD barrier: after it every PE
// reads its partner's token of this round. Eager, then the same two calls replayed from a graph.
TEST_F(Nodes, TheBarrierAcrossNodesOrdersPuts) {
    SymBuffer word(sizeof(uint64_t));
    DeviceBuffer token(sizeof(uint64_t));
    Stream stream;
    barrier_sync(stream);
    auto round = [&](uint64_t k, cudaGraphExec_t exec) {
        uint64_t mine = 1000 * k + (uint64_t)me;
        CUDA_OK(cudaMemcpy(token.ptr, &mine, sizeof mine, cudaMemcpyHostToDevice));
        if (exec) {
            CUDA_OK(cudaGraphLaunch(exec, stream));
        } else {
            SYM_OK(symcoll_put_on_stream(word.ptr, token.ptr, sizeof mine, partner, stream));
            SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
        }
        CUDA_OK(cudaStreamSynchronize(stream));
        uint64_t got = 0;
        CUDA_OK(cudaMemcpy(&got, word.ptr, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT_EQ(got, 1000 * k + (uint64_t)partner) << "round " << k << (exec ? ", graph" : "");
        barrier_sync(stream); // every PE has read before the next round's put
    };
    for (uint64_t k = 1; k <= 3; k++)
        round(k, nullptr);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    SYM_OK(symcoll_put_on_stream(word.ptr, token.ptr, sizeof(uint64_t), partner, stream));
    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (uint64_t k = 4; k <= 6; k++)
        round(k, exec);
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
}

// One graph of 20 rounds of a put-with-signal (ADD 1 to the partner's count) and a WORLD
// barrier, replayed 4 times: after replay r the count is 20 r. With host functions waiting for
// the proxy, such a graph deadlocked on its first replay (docs/design.md, "Put, get and
// put-with-signal on a stream").
TEST_F(Nodes, AGraphOfManyBarriersReplays) {
    constexpr int kRounds = 20;
    SymBuffer count(sizeof(uint64_t));
    Stream stream;
    CUDA_OK(cudaMemset(count.ptr, 0, sizeof(uint64_t)));
    barrier_sync(stream);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kRounds; i++) {
        SYM_OK(symcoll_put_signal_on_stream(nullptr, nullptr, 0, static_cast<uint64_t *>(count.ptr),
                                            1, SYMCOLL_SIGNAL_ADD, partner, stream));
        SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
    }
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (uint64_t replay = 1; replay <= 4; replay++) {
        CUDA_OK(cudaGraphLaunch(exec, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        uint64_t got = 0;
        CUDA_OK(cudaMemcpy(&got, count.ptr, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT_EQ(got, kRounds * replay) << "replay " << replay;
        barrier_sync(stream); // the partner's next replay adds only after this PE has read
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
}

// A halo plan whose PEs have neighbours on other nodes gives no device handle, on every PE:
// with 4 PEs in a row (not periodic), PEs 0 and 3 have only neighbours of their own node, and
// a handle there would send user kernels toward PEs that cannot answer inside a kernel.
TEST_F(Nodes, AHaloPlanAcrossNodesGivesNoDeviceHandle) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = 1;
    d.interior[0] = 16;
    d.width[0] = 1;
    symcoll_halo_t plan = nullptr;
    SYM_OK(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &plan));
    symcoll_halo_device_t hh;
    EXPECT_EQ(
        symcoll_halo_device_handle_get(plan, SYMCOLL_HALO_DEVICE_HANDLE_VERSION, sizeof hh, &hh),
        SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_NE(std::strstr(symcoll_last_error(), "other nodes"), nullptr) << symcoll_last_error();
    EXPECT_EQ(hh.dirs, 0u);
    SYM_OK(symcoll_halo_destroy(plan));
}

// A put from memory that is not symmetric into the partner's heap at an odd offset, for every
// size; the barrier makes it visible.
TEST_F(Nodes, PutsOfEverySizeReachTheOtherNode) {
    SEED_TRACE();
    const size_t span = kOffset + kLargest + kGuard;
    SymBuffer dst(span);
    DeviceBuffer src(kLargest);
    Stream stream;
    std::vector<uint8_t> got(span);
    for (size_t bytes : remote_sizes()) {
        uint64_t seed = mix(run_seed(), bytes);
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream); // poisoned everywhere before any put
        SYM_OK(symcoll_put_on_stream(dst.as<char>() + kOffset, src.ptr, bytes, partner, stream));
        barrier_sync(stream);
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, kOffset + bytes + kGuard, cudaMemcpyDeviceToHost));
        expect_delivered(got.data(), bytes, seed, partner);
    }
}

// A put on each of 40 fresh streams in turn, each destroyed after it: the streams go round every
// hardware queue of the context (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default), and the put's
// kernel, which waits on its stream until the proxy has staged its source, must not hold back
// the proxy's own copies wherever it runs (they run in a context of their own).
TEST_F(Nodes, PutsFromStreamsOnEveryHardwareQueueReachTheOtherNode) {
    SEED_TRACE();
    constexpr int kStreams = 40;
    constexpr size_t kBytes = 4093;
    const size_t span = kOffset + kBytes + kGuard;
    SymBuffer dst(span);
    DeviceBuffer src(kBytes);
    Stream stream;
    std::vector<uint8_t> got(span);
    for (int i = 0; i < kStreams; i++) {
        SCOPED_TRACE("stream " + std::to_string(i));
        uint64_t seed = mix(run_seed(), (uint64_t)i);
        std::vector<uint8_t> mine = random_bytes(kBytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), kBytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream);
        Stream fresh;
        SYM_OK(symcoll_put_on_stream(dst.as<char>() + kOffset, src.ptr, kBytes, partner, fresh));
        CUDA_OK(cudaStreamSynchronize(fresh));
        barrier_sync(stream);
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, span, cudaMemcpyDeviceToHost));
        expect_delivered(got.data(), kBytes, seed, partner);
    }
}

// A get of the partner's symmetric data at an odd offset into memory that is not symmetric.
TEST_F(Nodes, GetsOfEverySizeBringTheOtherNodesData) {
    SEED_TRACE();
    const size_t span = kOffset + kLargest + kGuard;
    SymBuffer src(span);
    DeviceBuffer dst(span);
    Stream stream;
    std::vector<uint8_t> got(span);
    for (size_t bytes : remote_sizes()) {
        uint64_t seed = mix(run_seed(), bytes + 1);
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.as<char>() + kOffset, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream); // every PE's data in place before any get
        SYM_OK(symcoll_get_on_stream(dst.as<char>() + kOffset, src.as<char>() + kOffset, bytes,
                                     partner, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, kOffset + bytes + kGuard, cudaMemcpyDeviceToHost));
        expect_delivered(got.data(), bytes, seed, partner);
        barrier_sync(stream); // every get done before the next size overwrites the source
    }
}

// Put with signal, no barrier: the receiver waits for the signal alone and then finds the data.
// ADD counts the rounds, SET names them. Then a graph replays put-with-signal (SET 1), the wait
// for 1 and the signal's reset, with new data each time.
TEST_F(Nodes, PutWithSignalDeliversTheDataBeforeTheSignal) {
    SEED_TRACE();
    const size_t bytes = (3u << 20) + 5, span = kOffset + bytes + kGuard;
    SymBuffer dst(span), sig(sizeof(uint64_t));
    DeviceBuffer src(bytes);
    Stream stream;
    std::vector<uint8_t> got(span);
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));
    barrier_sync(stream);
    auto round = [&](int k, symcoll_signal_op_t op, cudaGraphExec_t exec) {
        SCOPED_TRACE("round " + std::to_string(k) + (exec ? ", graph" : ""));
        uint64_t seed = mix(run_seed(), 100 + k);
        std::vector<uint8_t> mine = random_bytes(bytes, seed, me);
        CUDA_OK(cudaMemcpy(src.ptr, mine.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dst.ptr, kPoison, span));
        barrier_sync(stream);
        if (exec) {
            CUDA_OK(cudaGraphLaunch(exec, stream));
        } else {
            uint64_t value = op == SYMCOLL_SIGNAL_ADD ? 1 : (uint64_t)k;
            SYM_OK(symcoll_put_signal_on_stream(dst.as<char>() + kOffset, src.ptr, bytes,
                                                sig.as<uint64_t>(), value, op, partner, stream));
            SYM_OK(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), SYMCOLL_CMP_EQ,
                                                       (uint64_t)k, stream));
        }
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaMemcpy(got.data(), dst.ptr, span, cudaMemcpyDeviceToHost));
        expect_delivered(got.data(), bytes, seed, partner);
        barrier_sync(stream); // checked everywhere before the next round's put
    };
    round(1, SYMCOLL_SIGNAL_ADD, nullptr);
    round(2, SYMCOLL_SIGNAL_ADD, nullptr);
    round(3, SYMCOLL_SIGNAL_SET, nullptr);
    CUDA_OK(cudaMemset(sig.ptr, 0, sizeof(uint64_t)));
    barrier_sync(stream);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    SYM_OK(symcoll_put_signal_on_stream(dst.as<char>() + kOffset, src.ptr, bytes,
                                        sig.as<uint64_t>(), 1, SYMCOLL_SIGNAL_SET, partner,
                                        stream));
    SYM_OK(symcoll_signal_wait_until_on_stream(sig.as<uint64_t>(), SYMCOLL_CMP_EQ, 1, stream));
    CUDA_OK(cudaMemsetAsync(sig.ptr, 0, sizeof(uint64_t), stream));
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int k = 4; k <= 6; k++)
        round(k, SYMCOLL_SIGNAL_SET, exec);
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
}

} // namespace
