// Collectives back to back with no host sync or barrier between them: a random chain of mixed
// collectives and algorithms on one stream, the same alternating between two streams ordered by
// events, and a chain captured into a CUDA graph and replayed 1000 times (SYMCOLL_TEST_REPLAYS
// sets fewer, for runs under compute-sanitizer). Plus the argument checks that need a GPU.
#include <algorithm>
#include <cstdlib>
#include "coll_testing.h"
#include "ll_epochs.h"
#include "stream_delay.cuh"

using namespace coll_testing;

namespace {

constexpr int kBuffers = 9;
constexpr int kSteps = 24;
constexpr int kGraphSteps = 8;

int replays() {
    const char *env = std::getenv("SYMCOLL_TEST_REPLAYS");
    int n = env ? std::atoi(env) : 0;
    return n > 0 ? n : 1000;
}

// One step of a chain: a collective from the current buffer into the next (or in place).
struct Step {
    Case c;
    bool in_place;
};

enum class Algos { Any, LowLatency, Bandwidth };

// kSteps (or `count`) random steps over WORLD on uint32 buffers of `per_pe` elements: every
// collective in turn, random ops, roots, in-place and algorithms of the policy.
std::vector<Step> random_steps(uint64_t seed, int count, size_t per_pe, Algos policy) {
    const symcoll_collective_t order[] = {SYMCOLL_COLL_REDUCE, SYMCOLL_COLL_BROADCAST,
                                          SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL};
    const symcoll_op_t ops[] = {SYMCOLL_SUM, SYMCOLL_XOR, SYMCOLL_MAX};
    int n = symcoll_n_pes();
    std::vector<Step> steps;
    for (int i = 0; i < count; i++) {
        uint64_t r = mix(seed, (uint64_t)i);
        Step s;
        s.c.coll = order[i % 4];
        s.c.type = SYMCOLL_UINT32;
        s.c.op = ops[r % 3];
        s.c.root = (int)((r >> 8) % (uint64_t)n);
        s.c.count = s.c.exchange() ? per_pe / n : per_pe;
        s.in_place = i > 0 && !s.c.exchange() && (r >> 16) % 3 == 0;
        std::vector<const char *> algos = algorithms(s.c.coll);
        if (policy == Algos::LowLatency)
            s.c.algo = "ll";
        else if (policy == Algos::Bandwidth)
            s.c.algo = algos[2 + (r >> 24) % (algos.size() - 2)];
        else
            s.c.algo = algos[(r >> 24) % algos.size()];
        steps.push_back(s);
    }
    return steps;
}

// Every PE's buffers on the host: state[pe][buffer][element].
using State = std::vector<std::vector<std::vector<uint32_t>>>;

// The buffer a step writes, given the one it reads.
int output_of(const Step &s, int in) {
    return s.in_place ? in : (in + 1) % kBuffers;
}

void simulate(State &state, const Step &s, int in, int out) {
    int n = (int)state.size();
    size_t count = state[0][in].size(), block = count / n;
    std::vector<std::vector<uint32_t>> result(n, std::vector<uint32_t>(count));
    for (int pe = 0; pe < n; pe++)
        for (size_t i = 0; i < count; i++) {
            uint32_t v = 0;
            switch (s.c.coll) {
            case SYMCOLL_COLL_REDUCE:
                v = state[0][in][i];
                for (int q = 1; q < n; q++)
                    v = apply(s.c.op, v, state[q][in][i]);
                break;
            case SYMCOLL_COLL_BROADCAST:
                v = state[s.c.root][in][i];
                break;
            case SYMCOLL_COLL_FCOLLECT:
                v = state[i / block][in][i % block];
                break;
            default:
                v = state[i / block][in][pe * block + i % block];
                break;
            }
            result[pe][i] = v;
        }
    for (int pe = 0; pe < n; pe++)
        state[pe][out] = result[pe];
}

__global__ void mix_kernel(uint32_t *x, const uint32_t *feedback, size_t count, uint32_t pe) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = x[i] * 1664525u + feedback[i] + pe + 1;
}

void simulate_mix(State &state, int feedback) {
    for (size_t pe = 0; pe < state.size(); pe++)
        for (size_t i = 0; i < state[pe][0].size(); i++)
            state[pe][0][i] = state[pe][0][i] * 1664525u + state[pe][feedback][i] + pe + 1;
}

class Sequence : public ::testing::Test {
  protected:
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    size_t per_pe = 0;
    SymBuffer *buffers = nullptr;
    State state;

    // kBuffers buffers of per_pe uint32, random on every PE (known to every PE).
    void fill(size_t count, SymBuffer &b, uint64_t seed) {
        per_pe = count;
        buffers = &b;
        state.assign(n, std::vector<std::vector<uint32_t>>(kBuffers));
        for (int pe = 0; pe < n; pe++)
            for (int k = 0; k < kBuffers; k++) {
                std::vector<uint8_t> bytes = random_bytes(count * 4, mix(seed, k), pe);
                state[pe][k].resize(count);
                std::memcpy(state[pe][k].data(), bytes.data(), bytes.size());
            }
        for (int k = 0; k < kBuffers; k++)
            CUDA_OK(cudaMemcpy(buffer(k), state[me][k].data(), count * 4, cudaMemcpyHostToDevice));
    }
    uint32_t *buffer(int k) const {
        return buffers->as<uint32_t>() + (size_t)k * per_pe;
    }
    // Enqueues the steps from buffer `in`; returns the buffer the last one writes.
    int enqueue_steps(const std::vector<Step> &steps, int in, cudaStream_t a, cudaStream_t b,
                      cudaEvent_t ordered) {
        for (size_t i = 0; i < steps.size(); i++) {
            cudaStream_t s = i % 2 ? b : a;
            if (a != b) {
                EXPECT_EQ(cudaEventRecord(ordered, i % 2 ? a : b), cudaSuccess);
                EXPECT_EQ(cudaStreamWaitEvent(s, ordered, 0), cudaSuccess);
            }
            int out = output_of(steps[i], in);
            symcoll_status_t st = enqueue(steps[i].c, buffer(out), buffer(in), s);
            EXPECT_EQ(st, SYMCOLL_SUCCESS) << steps[i].c.describe() << ": " << symcoll_last_error();
            in = out;
        }
        return in;
    }
    int simulate_steps(const std::vector<Step> &steps, int in) {
        for (const Step &s : steps) {
            int out = output_of(s, in);
            simulate(state, s, in, out);
            in = out;
        }
        return in;
    }
    void expect_state(const char *what) {
        std::vector<uint32_t> got(per_pe);
        for (int k = 0; k < kBuffers; k++) {
            CUDA_OK(cudaMemcpy(got.data(), buffer(k), per_pe * 4, cudaMemcpyDeviceToHost));
            long bad = first_mismatch((const uint8_t *)got.data(),
                                      (const uint8_t *)state[me][k].data(), per_pe * 4);
            EXPECT_EQ(bad, -1) << what << ", " << per_pe << " uint32 per PE: buffer " << k
                               << " differs at element " << bad / 4;
        }
    }
    void chain(size_t count, bool two_streams) {
        uint64_t seed = next_case_seed();
        SymBuffer b(kBuffers * count * 4);
        Stream a, other;
        cudaEvent_t ordered;
        CUDA_OK(cudaEventCreateWithFlags(&ordered, cudaEventDisableTiming));
        fill(count, b, seed);
        std::vector<Step> steps = random_steps(seed, kSteps, count, Algos::Any);
        int last = enqueue_steps(steps, 0, a, two_streams ? other.s : a.s, ordered);
        EXPECT_EQ(simulate_steps(steps, 0), last);
        CUDA_OK(cudaStreamSynchronize(a));
        CUDA_OK(cudaStreamSynchronize(other));
        CUDA_OK(cudaEventDestroy(ordered));
        expect_state(two_streams ? "two streams" : "one stream");
    }
    void graph(size_t count, Algos policy) {
        uint64_t seed = next_case_seed();
        SymBuffer b(kBuffers * count * 4);
        Stream s;
        fill(count, b, seed);
        std::vector<Step> steps = random_steps(seed, kGraphSteps, count, policy);
        int last = 0; // the buffer the chain ends in: the feedback of the next replay
        for (const Step &step : steps)
            last = output_of(step, last);
        cudaGraph_t g;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        mix_kernel<<<8, 256, 0, s>>>(buffer(0), buffer(last), count, (uint32_t)me);
        EXPECT_EQ(enqueue_steps(steps, 0, s, s, nullptr), last);
        CUDA_OK(cudaStreamEndCapture(s, &g));
        CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
        for (int r = 0, n_replays = replays(); r < n_replays; r++) {
            CUDA_OK(cudaGraphLaunch(exec, s));
            simulate_mix(state, last);
            simulate_steps(steps, 0);
        }
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(g));
        expect_state("graph replays");
    }
};

TEST_F(Sequence, MixedCollectivesBackToBackOnOneStream) {
    SEED_TRACE();
    for (size_t per_pe : {3, 1001, 65537})
        chain(per_pe * n, false);
}

TEST_F(Sequence, MixedCollectivesAlternatingStreamsOrderedByEvents) {
    SEED_TRACE();
    for (size_t per_pe : {3, 1001, 65537})
        chain(per_pe * n, true);
}

// An LL packet carries the low 32 bits of its epoch, and a packet that no later epoch
// rewrites stays in the buffer. Long messages at block 0's first epochs, up to E, fill its
// buffers of both parities; then only short ones, which rewrite their first packets alone,
// until epoch 2^32 + E - 1, whose long message must not take the packets of epoch E - 1 as
// its own (nor 2^32 + E those of E). The epochs jump twice, as 2^31 rounds would move them:
// to below 2^31, crossed by short messages (the buffers are rewritten there), then block 0
// to below 2^32. PE 0 starts the last calls late, so that the others read their buffers first.
TEST_F(Sequence, LowLatencyEpochsCrossTheir32BitWrap) {
    SEED_TRACE();
    const uint64_t half = (uint64_t)1 << 31;
    // 128 KiB per peer: every LL block, every packet of its buffer.
    const size_t long_count = (size_t)SYMCOLL_LL_BLOCKS * SYMCOLL_LL_SLOT_BYTES / 2 / 4;
    auto run = [&](size_t per_peer, int n_steps, bool late) {
        uint64_t seed = next_case_seed();
        size_t count = per_peer * n;
        SymBuffer b(kBuffers * count * 4);
        Stream s;
        fill(count, b, seed);
        std::vector<Step> steps = random_steps(seed, n_steps, count, Algos::LowLatency);
        int in = 0;
        for (const Step &step : steps) {
            if (late && me == 0)
                CUDA_OK(delay_stream(s, 200 * 1000));
            in = enqueue_steps({step}, in, s, s, nullptr);
        }
        EXPECT_EQ(simulate_steps(steps, 0), in);
        CUDA_OK(cudaStreamSynchronize(s));
        expect_state("LL across an epoch wrap");
    };
    run(long_count, 4, false);
    const uint64_t first_end = ll_epochs()[0]; // E; short messages take one round of block 0
    jump_ll_epochs(0, half - 3);
    run(3, 8, false);
    ASSERT_EQ(ll_epochs()[0], half + 5);
    jump_ll_epochs(half, 2 * half - 3);
    run(3, (int)first_end + 1, false);
    ASSERT_EQ(ll_epochs()[0], 2 * half + first_end - 2);
    run(long_count, 4, true);
    run(1001, 3, true);
}

TEST_F(Sequence, GraphReplayedLowLatency) {
    SEED_TRACE();
    graph(3 * n, Algos::LowLatency);
    graph(1001 * n, Algos::LowLatency);
}

TEST_F(Sequence, GraphReplayedBandwidth) {
    SEED_TRACE();
    graph(3 * n, Algos::Bandwidth);
    graph(1001 * n, Algos::Bandwidth);
}

TEST_F(Sequence, GraphReplayedAutomatic) {
    SEED_TRACE();
    graph(1001 * n, Algos::Any);
}

TEST(CollectiveArgsOnGpu, DeviceMemoryIsNotSymmetric) {
    SymBuffer sym(4096);
    DeviceBuffer plain(4096);
    EXPECT_EQ(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, plain.ptr, sym.ptr, 16, SYMCOLL_INT32,
                                       SYMCOLL_SUM, 0),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("dst"), std::string::npos);
    EXPECT_EQ(symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, sym.ptr, plain.ptr, 16, SYMCOLL_INT32,
                                          0, 0),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("src"), std::string::npos);
}

TEST(CollectiveArgsOnGpu, FreedAndOverrunAllocations) {
    SymBuffer live(4096);
    void *gone = symcoll_malloc(4096);
    ASSERT_NE(gone, nullptr);
    symcoll_free(gone);
    EXPECT_EQ(symcoll_fcollect_on_stream(SYMCOLL_TEAM_WORLD, live.ptr, gone, 4, SYMCOLL_INT8, 0),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(symcoll_alltoall_on_stream(SYMCOLL_TEAM_WORLD, live.as<char>() + 8, live.ptr,
                                         4096 / symcoll_n_pes(), SYMCOLL_INT8, 0),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("past the end"), std::string::npos)
        << symcoll_last_error();
}

TEST(CollectiveArgsOnGpu, StreamOfAnotherDevice) {
    int devices = 0, mine = 0;
    CUDA_OK(cudaGetDeviceCount(&devices));
    CUDA_OK(cudaGetDevice(&mine));
    SymBuffer a(4096), b(4096);
    if (devices < 2)
        GTEST_SKIP() << "this PE sees one GPU";
    cudaStream_t foreign;
    CUDA_OK(cudaSetDevice((mine + 1) % devices));
    CUDA_OK(cudaStreamCreate(&foreign));
    CUDA_OK(cudaSetDevice(mine));
    EXPECT_EQ(symcoll_reduce_on_stream(SYMCOLL_TEAM_WORLD, a.ptr, b.ptr, 16, SYMCOLL_FLOAT32,
                                       SYMCOLL_SUM, foreign),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("stream"), std::string::npos)
        << symcoll_last_error();
    CUDA_OK(cudaStreamDestroy(foreign));
}

} // namespace
