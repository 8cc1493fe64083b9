// Helpers of the halo GPU tests: a test layout (interiors that differ along split dimensions,
// optional padded pitches), cell values any PE can compute from global coordinates, the
// expected content of every cell after an exchange (halo cells from the neighbours, cells no
// neighbour fills still poisoned), and kernels that fill the interior and count mismatches.
#ifndef SYMCOLL_HALO_TESTING_H
#define SYMCOLL_HALO_TESTING_H

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "rma_testing.h"
#include "stream_delay.cuh"
#include "symcoll.h"

namespace halo_testing {

const uint8_t kPoison = 0xA5;

struct Config {
    int ndims, periodic, corners;
    int split_slowest; // 0: the library chooses the PE grid; 1: all PEs along the slowest dim
    int width;         // width of dimension 0; the others cycle through 1..3
    int elem;          // element bytes: 1, 2, 4 or 8
    int pad;           // pitches larger than dense
    size_t base[3];    // interior of the PE at coordinates 0; + coordinate along each dim
    std::string name() const {
        return std::to_string(ndims) + "D periodic " + std::to_string(periodic) + " corners " +
               std::to_string(corners) + (split_slowest ? " split slowest" : " split auto") +
               " width " + std::to_string(width) + " elem " + std::to_string(elem) +
               (pad ? " padded" : "") + " base " + std::to_string(base[0]) + "x" +
               std::to_string(base[1]) + "x" + std::to_string(base[2]);
    }
};

inline symcoll_datatype_t type_of(int elem) {
    return elem == 1   ? SYMCOLL_UINT8
           : elem == 2 ? SYMCOLL_FLOAT16
           : elem == 4 ? SYMCOLL_FLOAT32
                       : SYMCOLL_FLOAT64;
}

// Geometry of one PE's field, as kernels see it.
struct Geo {
    int ndims, corners, elem;
    int width[3], periodic[3];
    int64_t n[3], off[3], total[3]; // interior, its global offset, the global extent
    int64_t pitch[2];
    __host__ __device__ int64_t cells() const {
        return (n[0] + 2 * width[0]) * (n[1] + 2 * width[1]) * (n[2] + 2 * width[2]);
    }
};

// The PE grid the library picks when asked to choose (MPI_Dims_create) for the team sizes the
// tests run on; other sizes use an explicit grid.
inline void test_grid(const Config &c, int n_pes, int grid[3]) {
    grid[0] = grid[1] = grid[2] = 1;
    if (c.split_slowest) {
        grid[c.ndims - 1] = n_pes;
        return;
    }
    int left = n_pes, dim = 0;
    while (left > 1 && left % 2 == 0) { // powers of two: balanced, non-increasing
        grid[dim] *= 2;
        left /= 2;
        dim = (dim + 1) % c.ndims;
    }
    grid[0] *= left;
}

inline Geo geo_of(const Config &c, const int grid[3], const int coords[3]) {
    Geo g;
    std::memset(&g, 0, sizeof g);
    g.ndims = c.ndims;
    g.corners = c.corners;
    g.elem = c.elem;
    for (int i = 0; i < 3; i++) {
        bool used = i < c.ndims;
        g.width[i] = used ? (i == 0 ? c.width : (c.width + i - 1) % 3 + 1) : 0;
        g.periodic[i] = used ? c.periodic : 0;
        int64_t b = used ? (int64_t)c.base[i] : 1;
        g.n[i] = used ? b + coords[i] : 1;
        g.off[i] = used ? b * coords[i] + (int64_t)coords[i] * (coords[i] - 1) / 2 : 0;
        g.total[i] = used ? b * grid[i] + (int64_t)grid[i] * (grid[i] - 1) / 2 : 1;
    }
    int64_t row = g.n[0] + 2 * g.width[0], rows = g.n[1] + 2 * g.width[1];
    g.pitch[0] = c.ndims > 1 && c.pad ? row + 3 : row;
    g.pitch[1] = c.ndims > 2 && c.pad ? g.pitch[0] * rows + 5 : g.pitch[0] * rows;
    return g;
}

inline symcoll_halo_desc_t desc_of(const Config &c, const Geo &g, const int grid[3]) {
    symcoll_halo_desc_t d;
    symcoll_halo_desc_default(&d);
    d.ndims = c.ndims;
    d.type = type_of(c.elem);
    d.corners = c.corners;
    for (int i = 0; i < c.ndims; i++) {
        d.pe_grid[i] = c.split_slowest ? grid[i] : 0;
        d.periodic[i] = c.periodic;
        d.interior[i] = (size_t)g.n[i];
        d.width[i] = g.width[i];
    }
    if (c.pad) {
        d.pitch[0] = (size_t)g.pitch[0];
        d.pitch[1] = (size_t)g.pitch[1];
    }
    return d;
}

inline size_t span_of(const Geo &g) {
    int64_t last = (g.n[0] + 2 * g.width[0] - 1) + (g.n[1] + 2 * g.width[1] - 1) * g.pitch[0] +
                   (g.n[2] + 2 * g.width[2] - 1) * g.pitch[1];
    return (size_t)(last + 1) * g.elem;
}

// The largest field of any PE of the grid: the size of every PE's allocation.
inline size_t alloc_bytes(const Config &c, const int grid[3]) {
    int last[3] = {grid[0] - 1, grid[1] - 1, grid[2] - 1};
    return span_of(geo_of(c, grid, last));
}

__host__ __device__ inline uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__host__ __device__ inline uint64_t cell_value(uint64_t seed, uint32_t round, int field,
                                               const int64_t gc[3]) {
    return mix64(seed ^
                 mix64(((uint64_t)round << 8 | (uint64_t)field) ^
                       mix64((uint64_t)gc[0] ^ (uint64_t)gc[1] << 21 ^ (uint64_t)gc[2] << 42)));
}

// Field coordinates of cell i (x fastest) and its byte offset.
__host__ __device__ inline int64_t cell_at(const Geo &g, int64_t i, int64_t c[3]) {
    int64_t ex = g.n[0] + 2 * g.width[0], ey = g.n[1] + 2 * g.width[1];
    c[0] = i % ex;
    c[1] = i / ex % ey;
    c[2] = i / (ex * ey);
    return (c[0] + c[1] * g.pitch[0] + c[2] * g.pitch[1]) * g.elem;
}

// Whether the cell at field coordinates c holds data after an exchange, and its global
// coordinates: interior cells; halo cells outside the interior along one dimension (or any
// number with corners) that a neighbour or the wrap-around fills.
__host__ __device__ inline bool expected_global(const Geo &g, const int64_t c[3], int64_t gc[3],
                                                bool *interior) {
    int outside = 0;
    for (int i = 0; i < 3; i++) {
        int64_t local = c[i] - g.width[i];
        gc[i] = g.off[i] + local;
        if (local >= 0 && local < g.n[i])
            continue;
        outside++;
        if (gc[i] < 0 || gc[i] >= g.total[i]) {
            if (!g.periodic[i])
                return false;
            gc[i] = (gc[i] + g.total[i]) % g.total[i];
        }
    }
    *interior = outside == 0;
    return outside <= 1 || g.corners;
}

// Cell i of the field: its byte offset, whether it is an interior cell, and the bytes it must
// hold after an exchange (its value, or the poison where nothing fills it).
__host__ __device__ inline int64_t expected_cell(const Geo &g, int64_t i, uint64_t seed,
                                                 uint32_t round, int field_id, bool *interior,
                                                 uint8_t want[8]) {
    int64_t c[3], gc[3];
    int64_t at = cell_at(g, i, c);
    *interior = false;
    bool filled = expected_global(g, c, gc, interior);
    uint64_t v = filled ? cell_value(seed, round, field_id, gc) : 0;
    for (int b = 0; b < g.elem; b++)
        want[b] = filled ? (uint8_t)(v >> (8 * b)) : kPoison;
    return at;
}

__host__ __device__ inline bool cell_matches(const uint8_t *cell, const uint8_t *want, int elem) {
    for (int b = 0; b < elem; b++)
        if (cell[b] != want[b])
            return false;
    return true;
}

// Mismatching cells of field (round and field id as written), counted into *errors; the first
// bad cell index goes to *first_bad.
static __global__ void check_cells(Geo g, const uint8_t *field, const uint32_t *round, int field_id,
                                   uint64_t seed, unsigned long long *errors,
                                   unsigned long long *first_bad) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < g.cells();
         i += (int64_t)gridDim.x * blockDim.x) {
        bool interior;
        uint8_t want[8];
        int64_t at = expected_cell(g, i, seed, *round, field_id, &interior, want);
        if (!cell_matches(field + at, want, g.elem)) {
            atomicAdd(errors, 1ull);
            atomicMin(first_bad, (unsigned long long)i);
        }
    }
}

// Writes every interior cell of field with its value for *round.
static __global__ void fill_interior(Geo g, uint8_t *field, const uint32_t *round, int field_id,
                                     uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < g.cells();
         i += (int64_t)gridDim.x * blockDim.x) {
        bool interior;
        uint8_t want[8];
        int64_t at = expected_cell(g, i, seed, *round, field_id, &interior, want);
        for (int b = 0; interior && b < g.elem; b++)
            field[at + b] = want[b];
    }
}

static __global__ void next_round(uint32_t *round) {
    *round += 1;
}

// The same check on the CPU, for a field copied back: mismatching cells.
inline int64_t host_mismatches(const Geo &g, const std::vector<uint8_t> &field, uint32_t round,
                               int field_id, uint64_t seed) {
    int64_t bad = 0;
    for (int64_t i = 0; i < g.cells(); i++) {
        bool interior;
        uint8_t want[8];
        int64_t at = expected_cell(g, i, seed, round, field_id, &interior, want);
        bad += !cell_matches(field.data() + at, want, g.elem);
    }
    return bad;
}

struct Case {
    Config config;
    int grid[3], coords[3];
    Geo geo;
    symcoll_halo_t plan = nullptr;
    uint8_t *fields[2] = {nullptr, nullptr};
    size_t bytes = 0;
    uint32_t *round = nullptr;
    unsigned long long *counters = nullptr; // errors, first bad cell
    cudaStream_t stream = nullptr;
    uint64_t seed = 0;
};

inline void reset_counters(Case &k) {
    unsigned long long init[2] = {0, ~0ull};
    CUDA_OK(cudaMemcpy(k.counters, init, sizeof init, cudaMemcpyHostToDevice));
}

// A kernel's first launch loads it (CUDA's lazy loading), and loading waits for the device. Behind
// an exchange across nodes, whose kernels wait for the proxy thread's copies on this GPU, it
// waits until the timeout: the test loads its kernels first, as README "More than one node" asks.
inline void load_kernels() {
    const void *kernels[] = {(const void *)check_cells, (const void *)fill_interior,
                             (const void *)next_round, (const void *)stream_delay_kernel};
    cudaFuncAttributes attributes;
    for (const void *kernel : kernels)
        CUDA_OK(cudaFuncGetAttributes(&attributes, kernel));
}

inline void setup(Case &k, const Config &c) {
    SEED_TRACE();
    load_kernels();
    k.config = c;
    k.seed = rma_testing::mix(rma_testing::run_seed(), std::hash<std::string>{}(c.name()));
    int n = symcoll_n_pes();
    test_grid(c, n, k.grid);
    int me = symcoll_my_pe();
    k.coords[0] = me % k.grid[0];
    k.coords[1] = me / k.grid[0] % k.grid[1];
    k.coords[2] = me / (k.grid[0] * k.grid[1]);
    k.geo = geo_of(c, k.grid, k.coords);
    symcoll_halo_desc_t d = desc_of(c, k.geo, k.grid);
    SYM_OK(symcoll_halo_create(SYMCOLL_TEAM_WORLD, &d, &k.plan));
    int grid[3], coords[3];
    SYM_OK(symcoll_halo_grid(k.plan, grid, coords));
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(grid[i], k.grid[i]) << "dimension " << i;
        ASSERT_EQ(coords[i], k.coords[i]) << "dimension " << i;
    }
    k.bytes = alloc_bytes(c, k.grid);
    for (auto &f : k.fields) {
        f = (uint8_t *)symcoll_malloc(k.bytes);
        ASSERT_NE(f, nullptr) << symcoll_last_error();
        CUDA_OK(cudaMemset(f, kPoison, k.bytes));
    }
    CUDA_OK(cudaMalloc(&k.round, sizeof *k.round));
    CUDA_OK(cudaMemset(k.round, 0, sizeof *k.round));
    CUDA_OK(cudaMalloc(&k.counters, 2 * sizeof *k.counters));
    CUDA_OK(cudaStreamCreateWithFlags(&k.stream, cudaStreamNonBlocking));
    CUDA_OK(cudaDeviceSynchronize());
}

inline void teardown(Case &k) {
    if (k.stream)
        EXPECT_EQ(cudaStreamSynchronize(k.stream), cudaSuccess);
    for (auto f : k.fields)
        symcoll_free(f);
    EXPECT_EQ(symcoll_halo_destroy(k.plan), SYMCOLL_SUCCESS) << symcoll_last_error();
    cudaFree(k.round);
    cudaFree(k.counters);
    if (k.stream)
        cudaStreamDestroy(k.stream);
}

const int kBlocks = 64, kThreads = 256;

inline void fill(Case &k, int f) {
    fill_interior<<<kBlocks, kThreads, 0, k.stream>>>(k.geo, k.fields[f], k.round, f, k.seed);
}
inline void check(Case &k, int f) {
    check_cells<<<kBlocks, kThreads, 0, k.stream>>>(k.geo, k.fields[f], k.round, f, k.seed,
                                                    k.counters, k.counters + 1);
}

// One round of both fields in one exchange: new interiors, the exchange, the checks; the
// round count advances on the stream. Late: PE 0 starts the exchange 200 us late, so that
// the others look into their slots before it writes them.
inline void exchange_both(Case &k, bool late = false) {
    fill(k, 0);
    fill(k, 1);
    if (late && symcoll_my_pe() == 0)
        CUDA_OK(delay_stream(k.stream, 200 * 1000));
    void *both[2] = {k.fields[0], k.fields[1]};
    SYM_OK(symcoll_halo_exchange_many_on_stream(k.plan, both, 2, k.stream));
    check(k, 0);
    check(k, 1);
    next_round<<<1, 1, 0, k.stream>>>(k.round);
    CUDA_OK(cudaGetLastError());
}

// After the rounds: no PE timed out, the device checks found nothing, and field 0, last
// written back rounds before the current round, matches on the CPU.
inline void expect_all_good(Case &k, uint32_t back) {
    CUDA_OK(cudaStreamSynchronize(k.stream));
    SYM_OK(symcoll_team_status(SYMCOLL_TEAM_WORLD));
    unsigned long long counters[2];
    CUDA_OK(cudaMemcpy(counters, k.counters, sizeof counters, cudaMemcpyDeviceToHost));
    EXPECT_EQ(counters[0], 0u) << "mismatching cells; the first bad cell has index " << counters[1];
    uint32_t round = 0;
    CUDA_OK(cudaMemcpy(&round, k.round, sizeof round, cudaMemcpyDeviceToHost));
    std::vector<uint8_t> host(k.bytes);
    CUDA_OK(cudaMemcpy(host.data(), k.fields[0], k.bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host_mismatches(k.geo, host, round - back, 0, k.seed), 0);
}

// Sets this PE's exchange counts of every direction of the plan to `k`, as if k exchanges had
// run, once no PE runs a kernel; back to work once every PE has. Only for plans whose
// messages all travel as LL lines or to this PE itself, which need no neighbour's flag of
// exchange k.
inline void jump_exchanges(Case &k, uint64_t exchanges) {
    using rma_testing::barrier_and_wait;
    symcoll_halo_device_t hh = symcoll_halo_device_handle(k.plan);
    std::vector<uint64_t> counts(SYMCOLL_HALO_DIRS, exchanges);
    CUDA_OK(cudaDeviceSynchronize());
    ASSERT_NO_FATAL_FAILURE(barrier_and_wait());
    CUDA_OK(cudaMemcpy(hh.send_epoch, counts.data(), counts.size() * 8, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(hh.recv_epoch, counts.data(), counts.size() * 8, cudaMemcpyHostToDevice));
    ASSERT_NO_FATAL_FAILURE(barrier_and_wait());
}

} // namespace halo_testing

#endif
