// SYMCOLL_TUNING_FILE at init, run under symcoll-run as `tuning_file_init match|mismatch
// FILE_PREFIX`: a file whose signature is this job's (PE count, link class) is taken and the heap
// works; one measured on another PE count fails init with INVALID_ARGUMENT on every PE, and
// the message names the file and both signatures.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <cuda_runtime_api.h>
#include "init_check.h"

int main(int argc, char **argv) {
    if (argc != 3 ||
        (std::strcmp(argv[1], "match") != 0 && std::strcmp(argv[1], "mismatch") != 0)) {
        std::fprintf(stderr, "usage: %s match|mismatch FILE_PREFIX\n", argv[0]);
        return 2;
    }
    if (init_no_gpu_here())
        return kExitSkipped;
    const bool match = std::strcmp(argv[1], "match") == 0;
    const int rank = init_env_int("SYMCOLL_RANK", -1), size = init_env_int("SYMCOLL_SIZE", -1);
    const int measured_pes = match ? size : size + 1;
    // The job's link class as init will find it: PEs that outnumber the GPUs share them.
    int gpus = 0;
    const std::string link =
        cudaGetDeviceCount(&gpus) == cudaSuccess && init_env_int("SYMCOLL_LOCAL_SIZE", size) > gpus
            ? "same-gpu"
            : "nvlink";
    const std::string path = std::string(argv[2]) + "." + std::to_string(rank);
    std::ofstream(path) << "symcoll-tuning 1\nsignature " << measured_pes << " " << link << "\n"
                        << "reduce " << link << " " << size << " any two_shot 64 512\n";
    setenv("SYMCOLL_TUNING_FILE", path.c_str(), 1);
    symcoll_status_t st = symcoll_init(nullptr);
    if (match) {
        std::remove(path.c_str());
        return st == SYMCOLL_SUCCESS ? init_check_heap_and_finalize(rank, size) : init_failed(st);
    }
    std::remove(path.c_str());
    if (st != SYMCOLL_ERROR_INVALID_ARGUMENT)
        return st == SYMCOLL_SUCCESS ? (std::fprintf(stderr, "init took a mismatched file\n"), 1)
                                     : init_failed(st);
    const std::string why = symcoll_last_error();
    const std::string expected = path + ": measured on " + std::to_string(measured_pes) +
                                 " PEs over " + link + ", but this job has " +
                                 std::to_string(size) + " PEs over " + link;
    if (why.find("SYMCOLL_TUNING_FILE") == std::string::npos ||
        why.find(expected) == std::string::npos) {
        std::fprintf(stderr, "PE %d: unexpected reason: %s\n", rank, why.c_str());
        return 1;
    }
    std::printf("PE %d: refused as expected: %s\n", rank, why.c_str());
    return 0;
}
