// Shared steps of the launch-path programs (init_uniqueid, init_ncclcomm, core_init_env):
// each inits symcoll its own way, then proves the heap works across PEs.
#ifndef SYMCOLL_INIT_CHECK_H
#define SYMCOLL_INIT_CHECK_H

#include <cstddef>
#include <string>
#include "symcoll.h"

// Exit code of a skipped test: printed "[  SKIPPED ]" and 77.
constexpr int kExitSkipped = 77;

// True (after printing "[  SKIPPED ]") when this machine has no usable GPU.
bool init_no_gpu_here();

// True when the launcher's node-local PE count (symcoll-run, torchrun, Open MPI) is above the
// GPUs this process sees: then PEs share a GPU, which the NCCL launch paths cannot serve.
bool init_pes_outnumber_gpus();

// An integer environment variable, or `fallback` when unset or malformed.
int init_env_int(const char *name, int fallback);

// Hands `bytes` of data from rank 0 to every rank through a file: rank 0 writes
// `prefix`.<run> atomically (rename), the others poll for it. <run> is the same on every PE of
// one symcoll-run job and differs between jobs. False (with a message) on failure or timeout.
bool init_share_through_file(const std::string &prefix, int rank, void *data, size_t bytes);
// Rank 0 removes the file once every rank has read it (after a collective init).
void init_remove_shared_file(const std::string &prefix, int rank);

// The start of a program run as `prog FILE_PREFIX` under symcoll-run: checks the usage, skips
// without a GPU, reads rank and size from symcoll-run's environment. kContinue to go on, else
// the exit code.
constexpr int kContinue = -1;
int init_start_under_launcher(int argc, char **argv, int *rank, int *size);

// Exit code for a failed symcoll_init: skipped on NO_GPU, else 1 (with the reason).
int init_failed(symcoll_status_t st);

// Checks my_pe/n_pes against the expected rank and size, writes random bytes into the right
// neighbour's copy of a symmetric buffer through symcoll_ptr, barriers, checks what the left
// neighbour wrote, frees and finalizes. The exit code: 0 when everything held.
int init_check_heap_and_finalize(int want_rank, int want_size);

#endif
