// reduce on every team x datatype x op x size class x in-place x algorithm, past L2 for a
// subset, and real-valued float sums within a stated bound.
#include <cmath>
#include <cstring>
#include <limits>
#include "coll_reduction_testing.h"

using namespace coll_testing;

namespace {

using Reduce = ReductionTest<SYMCOLL_COLL_REDUCE>;

TEST_F(Reduce, EveryTeamTypeOpSizeInPlaceAndAlgorithm) {
    SEED_TRACE();
    run_every_team_type_op_size_in_place_and_algorithm();
}

TEST_F(Reduce, LargerThanL2) {
    SEED_TRACE();
    const TestTeam world = test_teams()[0];
    struct {
        symcoll_datatype_t type;
        symcoll_op_t op;
    } pairs[] = {{SYMCOLL_FLOAT32, SYMCOLL_SUM},
                 {SYMCOLL_INT8, SYMCOLL_XOR},
                 {SYMCOLL_BFLOAT16, SYMCOLL_MAX}};
    for (auto p : pairs)
        for (bool in_place : {false, true})
            for (const char *algo : algorithms(SYMCOLL_COLL_REDUCE)) {
                uint64_t seed = next_case_seed();
                if (!algo)
                    continue; // the table picks two_shot here; it runs forced anyway
                SizeClass size = larger_than_l2(symcoll_datatype_size(p.type), 1);
                run_case(make_case(world, p.type, p.op, size, in_place, algo), arena, stream, seed);
            }
}

// Floating-point min and max: a NaN on any one PE gives NaN, -0 orders below +0, and every PE
// holds the same bits, on every algorithm. Element p holds the NaN of PE p alone; element n
// holds -0 on PE 0 and +0 elsewhere, element n + 1 the opposite; element n + 2 is finite.
TEST_F(Reduce, MinMaxPropagateNanAndOrderZerosOnEveryPe) {
    SEED_TRACE();
    const int n = symcoll_n_pes(), me = symcoll_my_pe();
    const size_t count = (size_t)n + 3;
    for (symcoll_datatype_t type :
         {SYMCOLL_FLOAT16, SYMCOLL_BFLOAT16, SYMCOLL_FLOAT32, SYMCOLL_FLOAT64})
        for (symcoll_op_t op : {SYMCOLL_MIN, SYMCOLL_MAX})
            for (const char *algo : algorithms(SYMCOLL_COLL_REDUCE))
                with_type(type, [&](auto tag) {
                    using T = decltype(tag);
                    using R = Acc<T>;
                    using A = typename R::type;
                    const A nan = std::numeric_limits<A>::quiet_NaN();
                    std::vector<T> mine(count), got(count), all(count * n);
                    for (int p = 0; p < n; p++)
                        mine[p] = R::narrow(p == me ? nan : (A)(me + 1));
                    mine[n] = R::narrow(me == 0 ? (A)-0.0 : (A)0.0);
                    mine[n + 1] = R::narrow(me == 0 ? (A)0.0 : (A)-0.0);
                    mine[n + 2] = R::narrow((A)(me % 2 ? -(me + 1) : me + 1)); // value(me) below
                    Case c;
                    c.type = type;
                    c.op = op;
                    c.count = count;
                    c.algo = algo;
                    const size_t bytes = count * sizeof(T);
                    CUDA_OK(cudaMemset(arena.dst_at(0), 0x5a, bytes));
                    CUDA_OK(
                        cudaMemcpy(arena.src_at(0), mine.data(), bytes, cudaMemcpyHostToDevice));
                    SYM_OK(enqueue(c, arena.dst_at(0), arena.src_at(0), stream));
                    // Every PE's result beside every other's, to compare their bits.
                    Case gather;
                    gather.coll = SYMCOLL_COLL_FCOLLECT;
                    gather.type = SYMCOLL_UINT8;
                    gather.count = bytes;
                    SYM_OK(enqueue(gather, arena.src_at(kArenaBytes / 2), arena.dst_at(0), stream));
                    CUDA_OK(cudaStreamSynchronize(stream));
                    CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), bytes, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(all.data(), arena.src_at(kArenaBytes / 2), bytes * n,
                                       cudaMemcpyDeviceToHost));
                    bool min = op == SYMCOLL_MIN;
                    auto value = [](int p) { return p % 2 ? -(p + 1) : p + 1; };
                    int finite = value(0);
                    for (int p = 1; p < n; p++)
                        finite = min ? std::min(finite, value(p)) : std::max(finite, value(p));
                    std::string what = c.describe();
                    for (int p = 0; p < n; p++)
                        EXPECT_TRUE(std::isnan((double)R::widen(got[p])))
                            << what << ": the NaN of PE " << p << " vanished";
                    // -0 on PE 0 alone, then everywhere but PE 0: min is -0 if any input is,
                    // max only if every input is.
                    for (int z : {0, 1}) {
                        bool any_negative = z == 0 || n > 1, all_negative = z == 0 && n == 1;
                        bool negative = min ? any_negative : all_negative;
                        A v = R::widen(got[n + z]);
                        EXPECT_TRUE(v == 0 && (bool)std::signbit(v) == negative)
                            << what << ": element " << n + z << " is " << (double)v << ", expected "
                            << (negative ? "-0" : "+0");
                    }
                    EXPECT_EQ((double)R::widen(got[n + 2]), (double)finite) << what;
                    for (int p = 0; p < n; p++)
                        EXPECT_EQ(std::memcmp(&all[p * count], got.data(), bytes), 0)
                            << what << ": PE " << p << "'s result has other bits than this PE's";
                    SYM_OK(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, stream));
                    CUDA_OK(cudaStreamSynchronize(stream));
                });
}

// Uniform values in [-1, 1): the result is within 2 n u_T sum|x_i| of the exact sum, where u_T
// is the unit roundoff of the type (the 16-bit floats accumulate in float32 and round once).
TEST_F(Reduce, RealValuedSumsWithinBound) {
    SEED_TRACE();
    const size_t count = 100003;
    int n = symcoll_n_pes(), me = symcoll_my_pe();
    struct {
        symcoll_datatype_t type;
        double unit_roundoff;
    } types[] = {{SYMCOLL_FLOAT16, std::ldexp(1.0, -11)},
                 {SYMCOLL_BFLOAT16, std::ldexp(1.0, -8)},
                 {SYMCOLL_FLOAT32, std::ldexp(1.0, -24)},
                 {SYMCOLL_FLOAT64, std::ldexp(1.0, -53)}};
    for (auto t : types)
        for (const char *algo : algorithms(SYMCOLL_COLL_REDUCE)) {
            uint64_t seed = next_case_seed();
            with_type(t.type, [&](auto tag) {
                using T = decltype(tag);
                auto input = [&](int pe) {
                    std::vector<uint8_t> raw = random_bytes(count * 8, seed, pe);
                    std::vector<T> v(count);
                    for (size_t i = 0; i < count; i++) {
                        uint64_t r;
                        std::memcpy(&r, &raw[i * 8], 8);
                        double x = (double)(r >> 11) * std::ldexp(1.0, -52) - 1.0;
                        v[i] = Acc<T>::narrow((typename Acc<T>::type)x);
                    }
                    return v;
                };
                std::vector<T> mine = input(me), got(count);
                Case c;
                c.type = t.type;
                c.count = count;
                c.algo = algo;
                CUDA_OK(cudaMemcpy(arena.src_at(0), mine.data(), count * sizeof(T),
                                   cudaMemcpyHostToDevice));
                SYM_OK(enqueue(c, arena.dst_at(0), arena.src_at(0), stream));
                CUDA_OK(cudaStreamSynchronize(stream));
                CUDA_OK(cudaMemcpy(got.data(), arena.dst_at(0), count * sizeof(T),
                                   cudaMemcpyDeviceToHost));
                std::vector<double> exact(count, 0.0), magnitude(count, 0.0);
                for (int pe = 0; pe < n; pe++) {
                    std::vector<T> in = pe == me ? mine : input(pe);
                    for (size_t i = 0; i < count; i++) {
                        double x = (double)Acc<T>::widen(in[i]);
                        exact[i] += x;
                        magnitude[i] += std::fabs(x);
                    }
                }
                size_t bad = 0;
                for (size_t i = 0; i < count; i++) {
                    double g = (double)Acc<T>::widen(got[i]);
                    double bound = 2.0 * n * t.unit_roundoff * magnitude[i];
                    if (!(std::fabs(g - exact[i]) <= bound) && bad++ < 5)
                        ADD_FAILURE() << c.describe() << ": element " << i << " = " << g
                                      << ", exact sum " << exact[i] << ", bound " << bound;
                }
                EXPECT_EQ(bad, 0u) << c.describe();
            });
        }
}

} // namespace
