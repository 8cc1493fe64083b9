// The LL epochs of WORLD's blocks, read and set from the host, for tests that cross the
// epochs where the 32-bit packets wrap or the buffers are rewritten (kernels/coll_ll.cuh).
#ifndef SYMCOLL_TEST_LL_EPOCHS_H
#define SYMCOLL_TEST_LL_EPOCHS_H

#include <vector>
#include "coll_testing.h"
#include "symcoll_sync_layout.h"

namespace coll_testing {

// This PE's LL epoch of each block (zeros if they cannot be read).
inline std::vector<uint64_t> ll_epochs() {
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    std::vector<uint64_t> epochs(SYMCOLL_LL_BLOCKS);
    cudaError_t err = cudaMemcpy(epochs.data(), h.team_sync + SYMCOLL_SYNC_LL_EPOCH_OFF,
                                 epochs.size() * 8, cudaMemcpyDeviceToHost);
    EXPECT_EQ(err, cudaSuccess) << cudaGetErrorString(err);
    return epochs;
}

// Sets the epoch of every LL block at `from` or later on this PE, and every member's ack of
// it, to `epoch`, as if that many rounds had run, once no PE runs a kernel; back to work once
// every PE has. The blocks are independent: each keeps its own epochs and buffers.
inline void jump_ll_epochs(uint64_t from, uint64_t epoch) {
    symcoll_device_t h = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    CUDA_OK(cudaDeviceSynchronize());
    ASSERT_NO_FATAL_FAILURE(barrier_and_wait());
    std::vector<uint64_t> epochs = ll_epochs();
    std::vector<uint64_t> acks((size_t)SYMCOLL_LL_BLOCKS * h.team_size);
    char *ack_area = h.team_sync + SYMCOLL_SYNC_ACK_OFF(h.team_size);
    CUDA_OK(cudaMemcpy(acks.data(), ack_area, acks.size() * 8, cudaMemcpyDeviceToHost));
    for (int b = 0; b < SYMCOLL_LL_BLOCKS; b++)
        if (epochs[b] >= from) {
            epochs[b] = epoch;
            for (int m = 0; m < h.team_size; m++)
                acks[(size_t)b * h.team_size + m] = epoch;
        }
    CUDA_OK(cudaMemcpy(h.team_sync + SYMCOLL_SYNC_LL_EPOCH_OFF, epochs.data(), epochs.size() * 8,
                       cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(ack_area, acks.data(), acks.size() * 8, cudaMemcpyHostToDevice));
    ASSERT_NO_FATAL_FAILURE(barrier_and_wait());
}

} // namespace coll_testing

#endif
