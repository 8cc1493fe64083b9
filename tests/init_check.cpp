#include "init_check.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include <unistd.h>

namespace {

constexpr auto kShareTimeout = std::chrono::seconds(120);

// The same on every PE of one symcoll-run job (its unique id), different for every job.
bool run_suffix(std::string *suffix) {
    const char *id = std::getenv("SYMCOLL_UNIQUEID");
    if (!id || !*id) {
        std::fprintf(stderr, "SYMCOLL_UNIQUEID is not set: run this program under symcoll-run\n");
        return false;
    }
    unsigned long long h = 1469598103934665603ull;
    for (const char *c = id; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    char text[32];
    std::snprintf(text, sizeof text, ".%016llx", h);
    *suffix = text;
    return true;
}

bool cuda_ok(cudaError_t err, const char *what) {
    if (err != cudaSuccess)
        std::fprintf(stderr, "PE %d: %s: %s\n", symcoll_my_pe(), what, cudaGetErrorString(err));
    return err == cudaSuccess;
}

bool sym_ok(symcoll_status_t st, const char *what) {
    if (st != SYMCOLL_SUCCESS)
        std::fprintf(stderr, "PE %d: %s: %s: %s\n", symcoll_my_pe(), what,
                     symcoll_status_string(st), symcoll_last_error());
    return st == SYMCOLL_SUCCESS;
}

bool write_file_atomically(const std::string &path, const void *data, size_t bytes) {
    std::string tmp = path + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(static_cast<const char *>(data), (std::streamsize)bytes);
        if (!out.flush()) {
            std::fprintf(stderr, "cannot write %s\n", tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::perror(("rename to " + path).c_str());
        return false;
    }
    return true;
}

bool poll_file(const std::string &path, void *data, size_t bytes) {
    auto deadline = std::chrono::steady_clock::now() + kShareTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(path, std::ios::binary);
        if (in && in.read(static_cast<char *>(data), (std::streamsize)bytes))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::fprintf(stderr, "rank 0 did not write %s within %lld s\n", path.c_str(),
                 (long long)kShareTimeout.count());
    return false;
}

} // namespace

bool init_pes_outnumber_gpus() {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess)
        return false;
    for (const char *name :
         {"SYMCOLL_LOCAL_SIZE", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"})
        if (init_env_int(name, -1) > 0)
            return init_env_int(name, -1) > gpus;
    return false;
}

bool init_no_gpu_here() {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaSuccess && n > 0)
        return false;
    std::printf("[  SKIPPED ] no GPU: %s\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return true;
}

int init_start_under_launcher(int argc, char **argv, int *rank, int *size) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE_PREFIX (under symcoll-run)\n", argv[0]);
        return 2;
    }
    if (init_no_gpu_here())
        return kExitSkipped;
    if (init_pes_outnumber_gpus()) {
        std::printf("[  SKIPPED ] this node's PEs outnumber its GPUs: this launch path forms an "
                    "NCCL communicator, which needs one GPU per PE\n");
        return kExitSkipped;
    }
    *rank = init_env_int("SYMCOLL_RANK", -1);
    *size = init_env_int("SYMCOLL_SIZE", -1);
    if (*rank < 0 || *size < 1 || *rank >= *size) {
        std::fprintf(stderr, "SYMCOLL_RANK / SYMCOLL_SIZE missing: run under symcoll-run\n");
        return 1;
    }
    return kContinue;
}

int init_env_int(const char *name, int fallback) {
    const char *text = std::getenv(name);
    char *end = nullptr;
    long value = text ? std::strtol(text, &end, 10) : 0;
    return text && *text && !*end ? (int)value : fallback;
}

bool init_share_through_file(const std::string &prefix, int rank, void *data, size_t bytes) {
    std::string suffix;
    if (!run_suffix(&suffix))
        return false;
    std::string path = prefix + suffix;
    return rank == 0 ? write_file_atomically(path, data, bytes) : poll_file(path, data, bytes);
}

void init_remove_shared_file(const std::string &prefix, int rank) {
    std::string suffix;
    if (rank == 0 && run_suffix(&suffix))
        std::remove((prefix + suffix).c_str());
}

int init_failed(symcoll_status_t st) {
    if (st == SYMCOLL_ERROR_NO_GPU) {
        std::printf("[  SKIPPED ] no GPU: %s\n", symcoll_last_error());
        return kExitSkipped;
    }
    // NCCL refuses PEs that share a GPU; init's message names the paths that serve them.
    if (st == SYMCOLL_ERROR_NCCL && init_pes_outnumber_gpus() &&
        std::strstr(symcoll_last_error(), "NCCL refuses two ranks on one GPU")) {
        std::printf("[  SKIPPED ] this launch path needs one GPU per PE; init refused as it "
                    "should: %s\n",
                    symcoll_last_error());
        return kExitSkipped;
    }
    std::fprintf(stderr, "symcoll_init: %s: %s\n", symcoll_status_string(st), symcoll_last_error());
    return 1;
}

// Block 0 of a PE's copy: written by its left neighbour through symcoll_ptr. Block 1: the
// same bytes, written locally by that neighbour, so any PE can read what to expect.
static bool check_neighbour_writes() {
    constexpr size_t kBlock = 4093;
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    char *buf = static_cast<char *>(symcoll_malloc(2 * kBlock));
    if (!buf) {
        std::fprintf(stderr, "PE %d: symcoll_malloc: %s\n", me, symcoll_last_error());
        return false;
    }
    std::vector<unsigned char> mine(kBlock), got(kBlock), want(kBlock);
    std::random_device rd;
    for (unsigned char &b : mine)
        b = (unsigned char)rd();
    void *remote = symcoll_ptr(buf, right);
    bool ok = remote != nullptr;
    if (!ok)
        std::fprintf(stderr, "PE %d: symcoll_ptr(buf, %d): %s\n", me, right, symcoll_last_error());
    ok = ok && cuda_ok(cudaMemcpy(remote, mine.data(), kBlock, cudaMemcpyHostToDevice),
                       "write the right neighbour's copy");
    ok = ok && cuda_ok(cudaMemcpy(buf + kBlock, mine.data(), kBlock, cudaMemcpyHostToDevice),
                       "write the own copy");
    // Every PE joins the barrier, also after a local failure.
    ok = sym_ok(symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, 0), "barrier") && ok;
    ok = cuda_ok(cudaStreamSynchronize(0), "barrier wait") && ok;
    const char *left_copy = static_cast<const char *>(symcoll_ptr(buf + kBlock, left));
    ok = ok && left_copy &&
         cuda_ok(cudaMemcpy(want.data(), left_copy, kBlock, cudaMemcpyDeviceToHost),
                 "read the left neighbour's copy");
    ok = ok &&
         cuda_ok(cudaMemcpy(got.data(), buf, kBlock, cudaMemcpyDeviceToHost), "read the own copy");
    if (ok && got != want) {
        std::fprintf(stderr, "PE %d: the bytes PE %d wrote through symcoll_ptr are wrong\n", me,
                     left);
        ok = false;
    }
    return sym_ok(symcoll_free_checked(buf), "symcoll_free") && ok;
}

int init_check_heap_and_finalize(int want_rank, int want_size) {
    int me = symcoll_my_pe(), n = symcoll_n_pes();
    bool ok = true;
    if ((want_rank >= 0 && me != want_rank) || (want_size >= 0 && n != want_size)) {
        std::fprintf(stderr, "symcoll says PE %d of %d, the launcher says rank %d of %d\n", me, n,
                     want_rank, want_size);
        ok = false;
    }
    ok = check_neighbour_writes() && ok;
    ok = sym_ok(symcoll_finalize(), "symcoll_finalize") && ok;
    if (ok)
        std::printf("PE %d of %d: ok\n", me, n);
    return ok ? 0 : 1;
}
