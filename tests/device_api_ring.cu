// A user kernel (built without -rdc) that runs many iterations of a stencil over a ring of
// PEs: each iteration sends its first and last rows to the neighbours' halo buffers with
// put_signal, waits on its own signals, and updates its rows. The result must equal a CPU
// run of the same stencil over the whole ring.
#include "symcoll_device.cuh"
#include "rma_testing.h"

#if defined(__CUDACC_RDC__)
#error "the device API must work without relocatable device code"
#endif

using namespace rma_testing;

namespace {

constexpr int kRows = 12, kCols = 1031, kIterations = 2000, kThreads = 256;

// Exact (wrapping) integer update, so GPU and CPU agree bit for bit.
__host__ __device__ uint32_t stencil(uint32_t up, uint32_t down, uint32_t self, uint32_t east,
                                     int iteration) {
    return up * 3u + down * 5u + (self ^ (self >> 7)) + east + (uint32_t)iteration;
}

struct Halos {
    uint32_t *top, *bottom;         // symmetric [2][kCols]: rows from the PE above / below
    uint64_t *top_sig, *bottom_sig; // symmetric: iterations delivered into top / bottom
};

// Sends rows with the whole block, or with warp 0 (first row) and warp 1 (last row).
__global__ void ring_kernel(symcoll_device_t h, Halos halos, uint32_t *cur, uint32_t *next,
                            bool warp_scope, int *ok) {
    int up = (h.my_pe + h.n_pes - 1) % h.n_pes, down = (h.my_pe + 1) % h.n_pes;
    __shared__ int arrived;
    for (int it = 0; it < kIterations; it++) {
        size_t parity = (size_t)(it & 1) * kCols;
        const uint32_t *first = cur, *last = cur + (size_t)(kRows - 1) * kCols;
        size_t row_bytes = kCols * sizeof(uint32_t);
        if (warp_scope) {
            if (threadIdx.x / 32 == 0)
                symcoll_dev_put_signal_warp(h, halos.bottom + parity, first, row_bytes,
                                            halos.bottom_sig, it + 1, SYMCOLL_SIGNAL_SET, up);
            else if (threadIdx.x / 32 == 1)
                symcoll_dev_put_signal_warp(h, halos.top + parity, last, row_bytes, halos.top_sig,
                                            it + 1, SYMCOLL_SIGNAL_SET, down);
        } else {
            symcoll_dev_put_signal_block(h, halos.bottom + parity, first, row_bytes,
                                         halos.bottom_sig, it + 1, SYMCOLL_SIGNAL_SET, up);
            symcoll_dev_put_signal_block(h, halos.top + parity, last, row_bytes, halos.top_sig,
                                         it + 1, SYMCOLL_SIGNAL_SET, down);
        }
        if (threadIdx.x == 0)
            arrived = symcoll_dev_signal_wait_until(h, halos.top_sig, SYMCOLL_CMP_GE, it + 1) &&
                      symcoll_dev_signal_wait_until(h, halos.bottom_sig, SYMCOLL_CMP_GE, it + 1);
        __syncthreads();
        if (!arrived) {
            *ok = 0;
            return;
        }
        for (int i = threadIdx.x; i < kRows * kCols; i += blockDim.x) {
            int r = i / kCols, c = i % kCols;
            uint32_t above = r == 0 ? halos.top[parity + c] : cur[i - kCols];
            uint32_t below = r == kRows - 1 ? halos.bottom[parity + c] : cur[i + kCols];
            uint32_t east = cur[r * kCols + (c + 1) % kCols];
            next[i] = stencil(above, below, cur[i], east, it);
        }
        __syncthreads();
        uint32_t *t = cur;
        cur = next;
        next = t;
    }
    *ok = 1;
}

// The same iterations over the whole ring (PE p owns global rows p * kRows ...).
std::vector<uint32_t> reference(std::vector<uint32_t> grid, int n) {
    int rows = n * kRows;
    std::vector<uint32_t> next(grid.size());
    for (int it = 0; it < kIterations; it++) {
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < kCols; c++) {
                uint32_t above = grid[(size_t)((r + rows - 1) % rows) * kCols + c];
                uint32_t below = grid[(size_t)((r + 1) % rows) * kCols + c];
                uint32_t east = grid[(size_t)r * kCols + (c + 1) % kCols];
                next[(size_t)r * kCols + c] =
                    stencil(above, below, grid[(size_t)r * kCols + c], east, it);
            }
        grid.swap(next);
    }
    return grid;
}

std::vector<uint32_t> initial_rows(uint64_t seed, int pe) {
    std::vector<uint8_t> bytes = random_bytes(kRows * kCols * sizeof(uint32_t), seed, pe);
    std::vector<uint32_t> rows(kRows * kCols);
    std::memcpy(rows.data(), bytes.data(), bytes.size());
    return rows;
}

TEST(DeviceApiRing, HaloExchangeWithPutSignalMatchesCpu) {
    SEED_TRACE();
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    ASSERT_GT(h.team_size, 0) << symcoll_last_error();
    size_t grid_bytes = (size_t)kRows * kCols * sizeof(uint32_t);
    SymBuffer halo_rows(4 * kCols * sizeof(uint32_t));
    SymBuffer sigs(2 * sizeof(uint64_t));
    DeviceBuffer grids(2 * grid_bytes), ok(sizeof(int));
    Stream stream;
    Halos halos{halo_rows.as<uint32_t>(), halo_rows.as<uint32_t>() + 2 * kCols, sigs.as<uint64_t>(),
                sigs.as<uint64_t>() + 1};
    for (bool warp_scope : {false, true}) {
        SCOPED_TRACE(warp_scope ? "warp scope" : "block scope");
        uint64_t seed = mix(run_seed(), warp_scope);
        std::vector<uint32_t> global;
        for (int pe = 0; pe < n; pe++) {
            std::vector<uint32_t> rows = initial_rows(seed, pe);
            global.insert(global.end(), rows.begin(), rows.end());
        }
        std::vector<uint32_t> mine = initial_rows(seed, me);
        CUDA_OK(cudaMemcpy(grids.ptr, mine.data(), grid_bytes, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(halo_rows.ptr, kPoison, halo_rows.bytes));
        CUDA_OK(cudaMemset(sigs.ptr, 0, sigs.bytes));
        CUDA_OK(cudaMemset(ok.ptr, 0, sizeof(int)));
        barrier_sync(stream);

        uint32_t *cur = grids.as<uint32_t>(), *next = cur + kRows * kCols;
        ring_kernel<<<1, kThreads, 0, stream>>>(h, halos, cur, next, warp_scope, ok.as<int>());
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(stream));
        int finished = 0;
        CUDA_OK(cudaMemcpy(&finished, ok.ptr, sizeof finished, cudaMemcpyDeviceToHost));
        ASSERT_EQ(finished, 1) << "a halo wait timed out";

        // kIterations is even: the result is back in the first grid.
        std::vector<uint32_t> got(kRows * kCols);
        CUDA_OK(cudaMemcpy(got.data(), cur, grid_bytes, cudaMemcpyDeviceToHost));
        std::vector<uint32_t> want = reference(global, n);
        long bad =
            first_mismatch((const uint8_t *)got.data(),
                           (const uint8_t *)(want.data() + (size_t)me * kRows * kCols), grid_bytes);
        EXPECT_EQ(bad, -1) << "first wrong element " << (bad < 0 ? -1 : bad / 4);
        barrier_sync(stream);
    }
}

static_assert(kIterations % 2 == 0, "the result is read from the first grid");

} // namespace
