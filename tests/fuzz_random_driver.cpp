// Drives the fuzz target without libFuzzer (a compiler other than clang): the saved inputs
// named after the count first (as libFuzzer runs files given to it), then a fixed seed and a
// bounded number of random inputs, so a failure reproduces with the same count.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    long runs = argc > 1 ? std::atol(argv[1]) : 20000;
    for (int f = 2; f < argc; f++) {
        std::ifstream in(argv[f], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "fuzz_config: cannot read %s\n", argv[f]);
            return 1;
        }
        std::vector<uint8_t> saved((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(saved.data(), saved.size());
    }
    std::mt19937_64 rng(20261130);
    std::vector<uint8_t> input;
    for (long i = 0; i < runs; i++) {
        input.resize(rng() % 512);
        for (uint8_t &b : input)
            b = (uint8_t)rng();
        LLVMFuzzerTestOneInput(input.data(), input.size());
    }
    std::printf("fuzz_config: %ld random inputs, no failure\n", runs);
    return 0;
}
