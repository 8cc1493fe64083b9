// Drives the fuzz target without libFuzzer (a compiler other than clang): a fixed seed and a
// bounded number of random inputs, so a failure reproduces with the same count.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    long runs = argc > 1 ? std::atol(argv[1]) : 20000;
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
