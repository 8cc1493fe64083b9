// alltoallv against a CPU reference. Every PE draws the same matrix of counts from the case
// seed (random with zeros, a PE that sends nothing, a PE that receives nothing, all zero), and
// its own data; dst is poisoned first, and the bytes past what it receives must stay poisoned.
// Every algorithm and several element sizes, past L2, a graph replayed with new counts, the
// overflow (nothing written past any capacity, every PE told), and every test team.
#include <algorithm>
#include <string>
#include "coll_testing.h"
#include "ll_epochs.h"

using namespace coll_testing;

namespace {

// Bytes past each PE's received data that must keep the poison.
constexpr size_t kTail = 256;

struct Matrix {
    int n;
    std::vector<size_t> c; // c[i * n + j]: elements from PE i to PE j
    size_t at(int i, int j) const {
        return c[(size_t)i * n + j];
    }
    size_t row(int i) const {
        size_t s = 0;
        for (int j = 0; j < n; j++)
            s += at(i, j);
        return s;
    }
    size_t column(int j) const {
        size_t s = 0;
        for (int i = 0; i < n; i++)
            s += at(i, j);
        return s;
    }
    // The most any PE receives: a dst_capacity that fits every PE (it is the same on all).
    size_t widest_column() const {
        size_t most = 0;
        for (int j = 0; j < n; j++)
            most = std::max(most, column(j));
        return most;
    }
};

enum Pattern { RANDOM, ONE_SENDS_NOTHING, ONE_RECEIVES_NOTHING, ALL_ZERO };
const Pattern kPatterns[] = {RANDOM, ONE_SENDS_NOTHING, ONE_RECEIVES_NOTHING, ALL_ZERO};

// The same on every PE: counts up to max_count, a quarter of them zero.
Matrix random_matrix(int n, uint64_t seed, size_t max_count, Pattern pattern) {
    Matrix m{n, std::vector<size_t>((size_t)n * n)};
    int chosen = (int)(mix(seed, 7) % (uint64_t)n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t r = mix(seed, (uint64_t)(i * n + j) + 100);
            size_t count = r % 4 == 0 ? 0 : (size_t)(r >> 8) % (max_count + 1);
            if (pattern == ALL_ZERO || (pattern == ONE_SENDS_NOTHING && i == chosen) ||
                (pattern == ONE_RECEIVES_NOTHING && j == chosen))
                count = 0;
            m.c[(size_t)i * n + j] = count;
        }
    return m;
}

// recv_counts, recv_offsets and send_counts of this PE, in device memory: n of each, one after
// the other, n the team's size (room for WORLD's).
struct Counts {
    int n;
    DeviceBuffer buf;
    explicit Counts(int pes) : n(pes), buf(3 * (size_t)pes * sizeof(size_t)) {}
    size_t *send() const {
        return buf.as<size_t>();
    }
    size_t *recv() const {
        return buf.as<size_t>() + n;
    }
    size_t *offsets() const {
        return buf.as<size_t>() + 2 * n;
    }
};

class Alltoallv : public ::testing::Test {
  protected:
    Arena arena{kArenaBytes};
    Stream stream;
    Counts counts{symcoll_n_pes()};
    // The team of the calls, its size and this PE's rank in it (-1 outside it).
    symcoll_team_t team = SYMCOLL_TEAM_WORLD;
    int n = symcoll_n_pes(), me = symcoll_my_pe();

    void on(const TestTeam &t) {
        team = t.handle;
        n = counts.n = t.size;
        me = symcoll_team_my_pe(t.handle);
    }

    // Writes this PE's data and row of counts, poisons dst and the outputs.
    void stage(const Matrix &m, size_t elem, uint64_t seed, size_t capacity) {
        std::vector<uint8_t> mine = random_bytes(m.row(me) * elem, seed, me);
        CUDA_OK(cudaMemcpy(arena.src_at(0), mine.data(), mine.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(arena.dst_at(0), kPoison, capacity * elem + kTail));
        std::vector<size_t> row(m.c.begin() + (size_t)me * n, m.c.begin() + (size_t)(me + 1) * n);
        CUDA_OK(cudaMemcpy(counts.send(), row.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(counts.recv(), 0xff, 2 * n * sizeof(size_t)));
    }

    // Checks dst and the poison after what arrived.
    void verify_data(const Matrix &m, size_t elem, uint64_t seed, size_t capacity, bool moved,
                     const std::string &what) {
        std::vector<uint8_t> want;
        for (int i = 0; i < n; i++) {
            std::vector<uint8_t> theirs = random_bytes(m.row(i) * elem, seed, i);
            size_t first = 0;
            for (int k = 0; k < me; k++)
                first += m.at(i, k);
            want.insert(want.end(), theirs.begin() + first * elem,
                        theirs.begin() + (first + m.at(i, me)) * elem);
        }
        std::vector<uint8_t> got(capacity * elem + kTail);
        CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), got.size(), cudaMemcpyDeviceToHost));
        size_t arrived = moved ? want.size() : 0;
        if (moved)
            EXPECT_EQ(first_mismatch(got.data(), want.data(), arrived), -1) << what;
        EXPECT_EQ(first_unpoisoned(got.data() + arrived, got.size() - arrived), -1)
            << what << ": written past the " << arrived << " bytes received";
    }

    // Checks dst, the poison after what arrived, recv_counts and recv_offsets.
    void verify(const Matrix &m, size_t elem, uint64_t seed, size_t capacity, bool moved,
                const std::string &what) {
        verify_data(m, elem, seed, capacity, moved, what);
        std::vector<size_t> recv(2 * n);
        CUDA_OK(cudaMemcpy(recv.data(), counts.recv(), recv.size() * sizeof(size_t),
                           cudaMemcpyDeviceToHost));
        size_t offset = 0;
        for (int i = 0; i < n; i++) {
            EXPECT_EQ(recv[i], m.at(i, me)) << what << ": recv_counts[" << i << "]";
            EXPECT_EQ(recv[n + i], offset) << what << ": recv_offsets[" << i << "]";
            offset += m.at(i, me);
        }
    }

    // One call on the staged buffers with algo forced (nullptr: tuning's choice), waited for.
    void call_with(const char *algo, size_t capacity, symcoll_datatype_t type) {
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        SYM_OK(symcoll_alltoallv_on_stream(team, arena.dst_at(0), capacity, arena.src_at(0),
                                           counts.send(), counts.recv(), counts.offsets(), type,
                                           stream));
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaStreamSynchronize(stream));
    }

    // One call on the team with algo (nullptr: tuning's choice); capacity is the most any PE
    // receives plus slack, on every PE. PEs outside the team take part in the barriers alone.
    void run(const Matrix &m, symcoll_datatype_t type, const char *algo, uint64_t seed) {
        const bool member = me >= 0;
        size_t elem = symcoll_datatype_size(type), capacity = m.widest_column() + 3;
        if (member)
            stage(m, elem, seed, capacity);
        barrier_and_wait();
        if (member) {
            call_with(algo, capacity, type);
            verify(m, elem, seed, capacity, true,
                   std::string(symcoll_datatype_name(type)) + " " + (algo ? algo : "tuned") + " " +
                       std::to_string(m.row(me)) + " elements out of team rank " +
                       std::to_string(me) + " of " + std::to_string(n));
        }
        // Every PE has read its inputs before any PE writes the next ones.
        barrier_and_wait();
    }
};

TEST_F(Alltoallv, EveryAlgorithmTypeAndPattern) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV))
        for (symcoll_datatype_t type :
             {SYMCOLL_INT8, SYMCOLL_FLOAT16, SYMCOLL_FLOAT32, SYMCOLL_FLOAT64})
            for (Pattern pattern : kPatterns)
                for (size_t max_count : {(size_t)1, (size_t)7, (size_t)1000, (size_t)50001}) {
                    uint64_t seed = next_case_seed();
                    run(random_matrix(n, seed, max_count, pattern), type, algo, seed);
                }
}

// Every test team: WORLD, NODE, a split copy of WORLD, the even PEs and the last PE alone; on
// two nodes of two PEs the copy holds whole nodes and the even PEs are one PE of each node.
// Counts, recv_counts and recv_offsets are indexed by team rank.
TEST_F(Alltoallv, EveryTeam) {
    SEED_TRACE();
    for (const TestTeam &t : test_teams())
        for (Pattern pattern : {RANDOM, ONE_RECEIVES_NOTHING})
            for (size_t max_count : {(size_t)7, (size_t)50001}) {
                uint64_t seed = next_case_seed();
                on(t);
                run(random_matrix(n, seed, max_count, pattern), SYMCOLL_FLOAT32, nullptr, seed);
            }
}

TEST_F(Alltoallv, LargerThanL2) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        // Up to 48 MiB out of each PE, the flows of up to 60 MiB / n into each.
        run(random_matrix(n, seed, (48u << 20) / 4 / n, RANDOM), SYMCOLL_FLOAT32, algo, seed);
    }
}

// Captured once; every replay moves the counts and data written before it.
TEST_F(Alltoallv, GraphReplayedWithNewCounts) {
    SEED_TRACE();
    const size_t capacity = 20000 * (size_t)n + 3;
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        SYM_OK(symcoll_alltoallv_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0), capacity,
                                           arena.src_at(0), counts.send(), counts.recv(),
                                           counts.offsets(), SYMCOLL_INT32, stream));
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 4; replay++) {
            uint64_t seed = next_case_seed();
            Matrix m = random_matrix(n, seed, replay % 2 ? 20000 : 5, kPatterns[replay]);
            stage(m, 4, seed, capacity);
            barrier_and_wait();
            CUDA_OK(cudaGraphLaunch(exec, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            verify(m, 4, seed, capacity, true,
                   std::string(algo ? algo : "tuned") + " replay " + std::to_string(replay));
            barrier_and_wait();
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
}

// PE `short_pe` is sent one element more than the capacity: no PE moves data, every PE writes
// its counts, and every PE's next call on the team reports the overflow once.
TEST_F(Alltoallv, OverflowMovesNothingAndEveryPeReportsIt) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        Matrix m = random_matrix(n, seed, 3000, RANDOM);
        const int short_pe = n - 1;
        const size_t capacity = m.widest_column();
        m.c[short_pe] += capacity - m.column(short_pe) + 1; // from PE 0
        const size_t sent = m.column(short_pe);
        stage(m, 4, seed, capacity);
        barrier_and_wait();
        call_with(algo, capacity, SYMCOLL_FLOAT32);
        verify(m, 4, seed, capacity, false, std::string("overflow ") + (algo ? algo : "tuned"));
        EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        std::string pe = "PE " + std::to_string(short_pe) + " was sent " + std::to_string(sent) +
                         " elements for a dst_capacity of " + std::to_string(capacity);
        EXPECT_NE(why.find(pe), std::string::npos) << why;
        EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_SUCCESS) << symcoll_last_error();
        barrier_and_wait();
    }
}

// A PE whose counts run past the end of its src allocation (src is the last 1 KiB of the
// arena, so the counts need not pass any capacity): nothing moves, every PE is told, and no
// load leaves src. The last PE sends the excess to PE 0, ahead of its other segments, whose
// offsets then lie past src as well: under ll the first piece goes before the plan is known.
TEST_F(Alltoallv, CountsPastTheSourceMoveNothing) {
    SEED_TRACE();
    const size_t shift = arena.capacity - 1024, room = (arena.src.bytes - kGuard - shift) / 4;
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        Matrix m = random_matrix(n, seed, 10, RANDOM);
        const int reader = n - 1;
        m.c[(size_t)reader * n] += room + 1;
        const size_t capacity = m.widest_column();
        std::vector<size_t> row(m.c.begin() + (size_t)me * n, m.c.begin() + (size_t)(me + 1) * n);
        CUDA_OK(cudaMemset(arena.dst_at(0), kPoison, capacity * 4 + kTail));
        CUDA_OK(cudaMemcpy(counts.send(), row.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
        barrier_and_wait();
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, algo, 0, 0));
        SYM_OK(symcoll_alltoallv_on_stream(SYMCOLL_TEAM_WORLD, arena.dst_at(0), capacity,
                                           arena.src_at(shift), counts.send(), counts.recv(),
                                           counts.offsets(), SYMCOLL_FLOAT32, stream));
        SYM_OK(symcoll_tuning_override(SYMCOLL_COLL_ALLTOALLV, nullptr, 0, 0));
        CUDA_OK(cudaStreamSynchronize(stream));
        std::vector<uint8_t> got(capacity * 4 + kTail);
        CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), got.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(first_unpoisoned(got.data(), got.size()), -1) << (algo ? algo : "tuned");
        EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("PE " + std::to_string(reader) + "'s send_counts add up to " +
                           std::to_string(m.row(reader))),
                  std::string::npos)
            << why;
        barrier_and_wait();
    }
}

// dst_capacity differs on one PE: every PE is told, nothing moves. (The capacities are small
// and close, so that every PE still launches the same grid.)
TEST_F(Alltoallv, CapacitiesThatDifferMoveNothing) {
    SEED_TRACE();
    for (const char *algo : algorithms(SYMCOLL_COLL_ALLTOALLV)) {
        uint64_t seed = next_case_seed();
        Matrix m = random_matrix(n, seed, 10, RANDOM);
        size_t capacity = m.widest_column() + (me == 0 ? 1 : 2);
        stage(m, 4, seed, capacity);
        barrier_and_wait();
        call_with(algo, capacity, SYMCOLL_FLOAT32);
        // Counts and offsets are written only where the calls agree (one PE).
        verify_data(m, 4, seed, capacity, n == 1, "capacities that differ");
        if (n > 1) {
            EXPECT_EQ(symcoll_team_status(SYMCOLL_TEAM_WORLD), SYMCOLL_ERROR_INVALID_ARGUMENT);
            std::string why = symcoll_last_error();
            EXPECT_NE(why.find("every PE must pass the same"), std::string::npos) << why;
        }
        barrier_and_wait();
    }
}

// Push and pull read the counts of block 0's LL epoch from its buffers after block 0's ack;
// the epochs whose ack rewrites the buffers (every 2^31) must not carry them. Slot 0 starts
// just before 2^31 and 2^32, and a message large enough for several blocks crosses.
TEST_F(Alltoallv, CountsCrossTheEpochsWhereBuffersAreRewritten) {
    SEED_TRACE();
    const uint64_t half = 1ull << 31;
    for (const char *algo : {"push", "pull"})
        for (uint64_t start : {half - 2, 2 * half - 2}) {
            ASSERT_NO_FATAL_FAILURE(jump_ll_epochs(0, start));
            for (int call = 0; call < 3; call++) {
                uint64_t seed = next_case_seed();
                run(random_matrix(n, seed, 200000, RANDOM), SYMCOLL_FLOAT32, algo, seed);
            }
        }
}

} // namespace
