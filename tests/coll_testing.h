// Helpers of the collectives' GPU tests: datatypes, inputs that any PE can compute for any team
// member, CPU references, a symmetric arena whose destination windows are poisoned before each
// run, the teams and algorithms every case runs on, and the runner of one checked case.
#ifndef SYMCOLL_COLL_TESTING_H
#define SYMCOLL_COLL_TESTING_H

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "rma_testing.h"
#include "tuning.h"

namespace coll_testing {

using namespace rma_testing;

const symcoll_datatype_t kTypes[] = {
    SYMCOLL_INT8,   SYMCOLL_UINT8,   SYMCOLL_INT32,    SYMCOLL_UINT32,  SYMCOLL_INT64,
    SYMCOLL_UINT64, SYMCOLL_FLOAT16, SYMCOLL_BFLOAT16, SYMCOLL_FLOAT32, SYMCOLL_FLOAT64};
const symcoll_op_t kOps[] = {SYMCOLL_SUM, SYMCOLL_PROD, SYMCOLL_MIN, SYMCOLL_MAX,
                             SYMCOLL_AND, SYMCOLL_OR,   SYMCOLL_XOR};

inline bool op_defined(symcoll_datatype_t type, symcoll_op_t op) {
    return !symcoll_datatype_is_float(type) || op < SYMCOLL_AND;
}

// Calls f(T()) with the host type T of a datatype.
template <typename F> void with_type(symcoll_datatype_t type, F &&f) {
    switch (type) {
    case SYMCOLL_INT8:
        return f(int8_t());
    case SYMCOLL_UINT8:
        return f(uint8_t());
    case SYMCOLL_INT32:
        return f(int32_t());
    case SYMCOLL_UINT32:
        return f(uint32_t());
    case SYMCOLL_INT64:
        return f(int64_t());
    case SYMCOLL_UINT64:
        return f(uint64_t());
    case SYMCOLL_FLOAT16:
        return f(__half());
    case SYMCOLL_BFLOAT16:
        return f(__nv_bfloat16());
    case SYMCOLL_FLOAT32:
        return f(float());
    default:
        return f(double());
    }
}

// The accumulator of the reference: float32 for the 16-bit floats (as the library promises).
template <typename T> struct Acc {
    using type = T;
    static T widen(T x) {
        return x;
    }
    static T narrow(T x) {
        return x;
    }
};
template <> struct Acc<__half> {
    using type = float;
    static float widen(__half x) {
        return __half2float(x);
    }
    static __half narrow(float x) {
        return __float2half_rn(x);
    }
};
template <> struct Acc<__nv_bfloat16> {
    using type = float;
    static float widen(__nv_bfloat16 x) {
        return __bfloat162float(x);
    }
    static __nv_bfloat16 narrow(float x) {
        return __float2bfloat16_rn(x);
    }
};

// One reduction step of the reference; integers wrap modulo 2^bits.
template <typename A> A apply(symcoll_op_t op, A x, A y) {
    if constexpr (std::is_integral<A>::value) {
        using U = typename std::make_unsigned<A>::type;
        switch (op) {
        case SYMCOLL_SUM:
            return (A)(U)((U)x + (U)y);
        case SYMCOLL_PROD:
            return (A)(U)((U)x * (U)y);
        case SYMCOLL_MIN:
            return std::min(x, y);
        case SYMCOLL_MAX:
            return std::max(x, y);
        case SYMCOLL_AND:
            return x & y;
        case SYMCOLL_OR:
            return x | y;
        default:
            return x ^ y;
        }
    } else {
        // min and max: any NaN gives NaN, and -0 orders below +0 (the header's rule).
        bool min = op == SYMCOLL_MIN;
        switch (op) {
        case SYMCOLL_SUM:
            return x + y;
        case SYMCOLL_PROD:
            return x * y;
        default:
            if (std::isnan(x) || std::isnan(y))
                return std::numeric_limits<A>::quiet_NaN();
            if (x == y)
                return std::signbit(x) == min ? x : y;
            return min ? std::min(x, y) : std::max(x, y);
        }
    }
}

// Element-wise op over the inputs in member order, as the library combines them.
inline std::vector<uint8_t> reduce_reference(symcoll_datatype_t type, symcoll_op_t op,
                                             const std::vector<std::vector<uint8_t>> &in) {
    std::vector<uint8_t> out(in[0].size());
    with_type(type, [&](auto tag) {
        using T = decltype(tag);
        using R = Acc<T>;
        for (size_t i = 0; i < out.size() / sizeof(T); i++) {
            T x;
            std::memcpy(&x, &in[0][i * sizeof(T)], sizeof x);
            typename R::type acc = R::widen(x);
            for (size_t m = 1; m < in.size(); m++) {
                std::memcpy(&x, &in[m][i * sizeof(T)], sizeof x);
                acc = apply(op, acc, R::widen(x));
            }
            T r = R::narrow(acc);
            std::memcpy(&out[i * sizeof(T)], &r, sizeof r);
        }
    });
    return out;
}

// count elements of one team member's input: random bits, except that float reductions get
// small integers (exact in every op and every order: sums in [-8, 8], products of +-1 and +-2,
// min/max in [-100, 100]).
inline std::vector<uint8_t> make_input(symcoll_collective_t coll, symcoll_datatype_t type,
                                       symcoll_op_t op, size_t count, uint64_t seed, int member) {
    size_t size = symcoll_datatype_size(type);
    bool reduces = coll == SYMCOLL_COLL_REDUCE || coll == SYMCOLL_COLL_REDUCE_SCATTER;
    if (!reduces || !symcoll_datatype_is_float(type))
        return random_bytes(count * size, seed, member);
    std::vector<uint8_t> raw = random_bytes(count, seed, member), out(count * size);
    static const int kFactors[] = {-2, -1, 1, 2};
    with_type(type, [&](auto tag) {
        using T = decltype(tag);
        for (size_t i = 0; i < count; i++) {
            int v = op == SYMCOLL_SUM    ? raw[i] % 17 - 8
                    : op == SYMCOLL_PROD ? kFactors[raw[i] % 4]
                                         : raw[i] % 201 - 100;
            T x = Acc<T>::narrow((typename Acc<T>::type)v);
            std::memcpy(&out[i * size], &x, size);
        }
    });
    return out;
}

// One collective call of a test.
struct Case {
    symcoll_collective_t coll = SYMCOLL_COLL_REDUCE;
    symcoll_team_t team = SYMCOLL_TEAM_WORLD;
    symcoll_datatype_t type = SYMCOLL_INT32;
    symcoll_op_t op = SYMCOLL_SUM;
    size_t count = 0; // fcollect, alltoall and reduce_scatter: count per PE
    int root = 0;
    size_t dst_shift = 0, src_shift = 0; // elements past the arena's 256-byte aligned start
    bool in_place = false;      // dst == src (reduce_scatter: dst is block me of src), at dst_shift
    const char *algo = nullptr; // forced algorithm, nullptr for automatic
    const char *scope = nullptr; // the device API's scope (warp, block, grid); nullptr: host call

    bool exchange() const {
        return coll == SYMCOLL_COLL_FCOLLECT || coll == SYMCOLL_COLL_ALLTOALL;
    }
    bool reduces() const {
        return coll == SYMCOLL_COLL_REDUCE || coll == SYMCOLL_COLL_REDUCE_SCATTER;
    }
    size_t dst_bytes(int n) const {
        return count * symcoll_datatype_size(type) * (exchange() ? n : 1);
    }
    size_t src_bytes(int n) const {
        bool blocks = coll == SYMCOLL_COLL_ALLTOALL || coll == SYMCOLL_COLL_REDUCE_SCATTER;
        return count * symcoll_datatype_size(type) * (blocks ? n : 1);
    }
    std::string describe() const {
        char text[256];
        std::snprintf(text, sizeof text,
                      "%s %s%s%s count %zu root %d dst+%zu src+%zu%s team %d %s %s",
                      symcoll_collective_name(coll), symcoll_datatype_name(type),
                      reduces() ? " " : "", reduces() ? symcoll_op_name(op) : "", count, root,
                      dst_shift, in_place ? dst_shift : src_shift, in_place ? " in place" : "",
                      (int)team, scope ? "scope" : "algo",
                      scope  ? scope
                      : algo ? algo
                             : "auto");
        return text;
    }
};

// Enqueues the case's collective on stream, with its algorithm forced (or automatic).
inline symcoll_status_t enqueue(const Case &c, void *dst, const void *src, cudaStream_t stream) {
    symcoll_status_t st = symcoll_tuning_override(c.coll, c.algo, 0, 0);
    if (st != SYMCOLL_SUCCESS)
        return st;
    switch (c.coll) {
    case SYMCOLL_COLL_BROADCAST:
        st = symcoll_broadcast_on_stream(c.team, dst, src, c.count, c.type, c.root, stream);
        break;
    case SYMCOLL_COLL_REDUCE:
        st = symcoll_reduce_on_stream(c.team, dst, src, c.count, c.type, c.op, stream);
        break;
    case SYMCOLL_COLL_FCOLLECT:
        st = symcoll_fcollect_on_stream(c.team, dst, src, c.count, c.type, stream);
        break;
    case SYMCOLL_COLL_ALLTOALL:
        st = symcoll_alltoall_on_stream(c.team, dst, src, c.count, c.type, stream);
        break;
    case SYMCOLL_COLL_REDUCE_SCATTER:
        st = symcoll_reduce_scatter_on_stream(c.team, dst, src, c.count, c.type, c.op, stream);
        break;
    default:
        ADD_FAILURE() << "no enqueue for collective " << (int)c.coll;
        st = SYMCOLL_ERROR_INVALID_ARGUMENT;
        break;
    }
    symcoll_tuning_override(c.coll, nullptr, 0, 0);
    return st;
}

// What team PE `me` of n holds in dst after the case, given each member's input.
inline std::vector<uint8_t> expected(const Case &c, int n, int me,
                                     const std::function<std::vector<uint8_t>(int)> &input) {
    switch (c.coll) {
    case SYMCOLL_COLL_BROADCAST:
        return input(c.root);
    case SYMCOLL_COLL_REDUCE: {
        std::vector<std::vector<uint8_t>> all;
        for (int m = 0; m < n; m++)
            all.push_back(input(m));
        return reduce_reference(c.type, c.op, all);
    }
    case SYMCOLL_COLL_FCOLLECT: {
        std::vector<uint8_t> out;
        for (int m = 0; m < n; m++) {
            std::vector<uint8_t> in = input(m);
            out.insert(out.end(), in.begin(), in.end());
        }
        return out;
    }
    case SYMCOLL_COLL_ALLTOALL: {
        size_t block = c.dst_bytes(n) / n;
        std::vector<uint8_t> out;
        for (int m = 0; m < n; m++) {
            std::vector<uint8_t> in = input(m);
            out.insert(out.end(), in.begin() + me * block, in.begin() + (me + 1) * block);
        }
        return out;
    }
    case SYMCOLL_COLL_REDUCE_SCATTER: {
        size_t block = c.dst_bytes(n);
        std::vector<std::vector<uint8_t>> all;
        for (int m = 0; m < n; m++) {
            std::vector<uint8_t> in = input(m);
            all.emplace_back(in.begin() + me * block, in.begin() + (me + 1) * block);
        }
        return reduce_reference(c.type, c.op, all);
    }
    default:
        ADD_FAILURE() << "no reference for collective " << (int)c.coll;
        return {};
    }
}

constexpr size_t kGuard = 256; // poisoned bytes checked on both sides of every dst range

// Symmetric src and dst regions for cases of up to `capacity` bytes, shifts included.
struct Arena {
    size_t capacity;
    SymBuffer src, dst;
    explicit Arena(size_t bytes)
        : capacity(bytes), src(bytes + 2 * kGuard), dst(bytes + 2 * kGuard) {}
    char *src_at(size_t shift) const {
        return src.as<char>() + kGuard + shift;
    }
    char *dst_at(size_t shift) const {
        return dst.as<char>() + kGuard + shift;
    }
};

// Stops printing details after this many failed cases (the cases still run, in step with the
// other PEs).
inline bool report_failure() {
    static int failures = 0;
    return ++failures <= 20;
}

inline std::string hex(const uint8_t *p, size_t n) {
    std::string s;
    char byte[4];
    for (size_t i = 0; i < n; i++) {
        std::snprintf(byte, sizeof byte, "%02x", p[n - 1 - i]);
        s += byte;
    }
    return s;
}

// The input of a case for team member m (src bytes).
inline std::vector<uint8_t> case_input(const Case &c, int n, uint64_t seed, int m) {
    size_t size = symcoll_datatype_size(c.type);
    return make_input(c.coll, c.type, c.op, c.src_bytes(n) / size, seed, m);
}

// How a case's collective is enqueued: the host call (enqueue) or a kernel of the test.
typedef symcoll_status_t (*Enqueue)(const Case &c, void *dst, const void *src, cudaStream_t stream);

// Runs one case on this PE, a member of c.team: poisons the dst window, uploads this PE's input,
// enqueues (with enq), waits, then checks the dst payload against the reference, the guards around
// it, and (when not in place) that src is unchanged. Returns whether everything matched.
inline bool run_case(const Case &c, const Arena &arena, cudaStream_t stream, uint64_t seed,
                     Enqueue enq = enqueue) {
    int n = symcoll_team_n_pes(c.team), me = symcoll_team_my_pe(c.team);
    size_t size = symcoll_datatype_size(c.type);
    size_t dst_bytes = c.dst_bytes(n), src_bytes = c.src_bytes(n);
    if (std::max(dst_bytes + c.dst_shift * size, src_bytes + c.src_shift * size) > arena.capacity) {
        ADD_FAILURE() << c.describe() << ": larger than the test arena";
        return false;
    }
    // In place, reduce_scatter's dst is block me of src: the checked range is all of src, of
    // which only block me changes.
    const bool scatter_in_place = c.in_place && c.coll == SYMCOLL_COLL_REDUCE_SCATTER;
    const size_t dst_at = scatter_in_place ? (size_t)me * dst_bytes : 0;
    const size_t checked = scatter_in_place ? src_bytes : dst_bytes;
    char *base = arena.dst_at(c.dst_shift * size);
    char *dst = base + dst_at;
    char *src = c.in_place ? base : arena.src_at(c.src_shift * size);
    std::vector<uint8_t> mine = case_input(c, n, seed, me);
    uint8_t poison = (uint8_t)mix(seed, 0x9015);
    std::vector<uint8_t> window(checked + 2 * kGuard);
    bool ok =
        cudaMemsetAsync(base - kGuard, poison, window.size(), stream) == cudaSuccess &&
        cudaMemcpyAsync(src, mine.data(), src_bytes, cudaMemcpyHostToDevice, stream) == cudaSuccess;
    symcoll_status_t st = enq(c, dst, src, stream);
    ok = ok && cudaStreamSynchronize(stream) == cudaSuccess &&
         cudaMemcpy(window.data(), base - kGuard, window.size(), cudaMemcpyDeviceToHost) ==
             cudaSuccess;
    if (st != SYMCOLL_SUCCESS || !ok) {
        ADD_FAILURE() << c.describe() << ": " << symcoll_status_string(st) << ": "
                      << symcoll_last_error() << " / " << cudaGetErrorString(cudaGetLastError());
        return false;
    }
    std::vector<uint8_t> want =
        expected(c, n, me, [&](int m) { return m == me ? mine : case_input(c, n, seed, m); });
    if (scatter_in_place) {
        std::vector<uint8_t> whole = mine;
        std::copy(want.begin(), want.end(), whole.begin() + dst_at);
        want = whole;
    }
    long bad = first_mismatch(window.data() + kGuard, want.data(), checked);
    long before = -1, after = -1;
    for (size_t i = 0; i < kGuard; i++) {
        if (before < 0 && window[i] != poison)
            before = (long)i;
        if (after < 0 && window[kGuard + checked + i] != poison)
            after = (long)i;
    }
    long src_bad = -1;
    if (!c.in_place && src_bytes) {
        std::vector<uint8_t> now(src_bytes);
        if (cudaMemcpy(now.data(), src, src_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
            src_bad = 0;
        else
            src_bad = first_mismatch(now.data(), mine.data(), src_bytes);
    }
    if (bad < 0 && before < 0 && after < 0 && src_bad < 0)
        return true;
    if (report_failure()) {
        std::string detail;
        if (bad >= 0) {
            size_t e = (size_t)bad / size * size;
            detail += " element " + std::to_string(e / size) + " of " +
                      std::to_string(checked / size) + ": got 0x" +
                      hex(window.data() + kGuard + e, size) + " want 0x" +
                      hex(want.data() + e, size) + ";";
        }
        if (before >= 0)
            detail += " wrote before dst at guard byte " + std::to_string(before) + ";";
        if (after >= 0)
            detail += " wrote past dst at byte " + std::to_string(after) + " after it;";
        if (src_bad >= 0)
            detail += " src changed at byte " + std::to_string(src_bad) + ";";
        ADD_FAILURE() << c.describe() << " (PE " << symcoll_my_pe() << ", team PE " << me << " of "
                      << n << "):" << detail;
    }
    return false;
}

struct TestTeam {
    symcoll_team_t handle; // SYMCOLL_TEAM_INVALID on PEs outside it
    int size;              // known on every PE, member or not
    const char *name;
};

// WORLD, NODE (all PEs: the tests run on one node), a split copy of WORLD, the even PEs, and the
// last PE alone. Created once per process, collectively (every PE runs the same tests in the
// same order).
inline const std::vector<TestTeam> &test_teams() {
    static std::vector<TestTeam> teams = [] {
        int n = symcoll_n_pes();
        std::vector<TestTeam> t = {
            {SYMCOLL_TEAM_WORLD, n, "world"},
            {SYMCOLL_TEAM_NODE, symcoll_team_n_pes(SYMCOLL_TEAM_NODE), "node"}};
        struct {
            int start, stride, size;
            const char *name;
        } splits[] = {{0, 1, n, "split copy of world"},
                      {0, 2, (n + 1) / 2, "even PEs"},
                      {n - 1, 1, 1, "last PE alone"}};
        for (auto s : splits) {
            symcoll_team_t team = SYMCOLL_TEAM_INVALID;
            symcoll_status_t st =
                symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, s.start, s.stride, s.size, &team);
            EXPECT_EQ(st, SYMCOLL_SUCCESS) << s.name << ": " << symcoll_last_error();
            t.push_back({team, s.size, s.name});
        }
        return t;
    }();
    return teams;
}

// nullptr (automatic) and every algorithm of the collective.
inline std::vector<const char *> algorithms(symcoll_collective_t coll) {
    std::vector<const char *> all = {nullptr};
    for (const char *const *a = symcoll_collective_algorithms(coll); *a; a++)
        all.push_back(*a);
    return all;
}

struct SizeClass {
    size_t count, dst_shift, src_shift;
};

// Counts of every size class for an element size (fcollect and alltoall: per PE of n, so that
// the whole dst has the class's bytes): empty, one, odd, shifted by one element (both buffers,
// and dst alone), 64 KiB, 1 MiB plus an odd tail (aligned, and dst shifted alone).
inline std::vector<SizeClass> size_classes(size_t elem, int per_pe) {
    size_t k64 = (64 << 10) / elem / per_pe, m1 = (1 << 20) / elem / per_pe + 3;
    return {{0, 0, 0},    {1, 0, 0},   {7, 0, 0},  {1000, 1, 1},
            {1000, 1, 0}, {k64, 0, 0}, {m1, 0, 0}, {m1, 1, 0}};
}
// Past L2 (50 MB): 64 MiB plus an odd tail, shifted by one element.
inline SizeClass larger_than_l2(size_t elem, int per_pe) {
    return {(64u << 20) / elem / per_pe + 5, 1, 1};
}
// Bytes an arena needs for every class above.
constexpr size_t kArenaBytes = (64u << 20) + 4096;

// A fresh case seed, the same on every PE: every PE draws one for every case, member or not.
inline uint64_t next_case_seed() {
    static uint64_t counter = 0;
    return mix(run_seed(), ++counter);
}

} // namespace coll_testing

#endif
