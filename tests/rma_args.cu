// The argument checks of the host RMA calls against the real runtime (real symmetric heap,
// device memory that is not symmetric), plus streams of another device where there is one.
#include "check_rma_cases.h"
#include "rma_testing.h"

using namespace rma_testing;

namespace {

TEST(RmaArguments, EveryCheckOnTheRealHeap) {
    SymBuffer sym(4096);
    DeviceBuffer local(4096);
    Stream stream;
    check_rma::World world{sym.as<char>(),  sym.bytes,       local.ptr,
                           symcoll_my_pe(), symcoll_n_pes(), stream};
    check_rma::expect_every_rma_check(world);
    CUDA_OK(cudaStreamSynchronize(stream));
}

TEST(RmaArguments, StreamOfAnotherDevice) {
    int devices = 0, mine = -1;
    CUDA_OK(cudaGetDeviceCount(&devices));
    CUDA_OK(cudaGetDevice(&mine));
    if (devices < 2)
        GTEST_SKIP() << "this PE sees one device";
    SymBuffer sym(64);
    DeviceBuffer local(64);
    cudaStream_t foreign;
    CUDA_OK(cudaSetDevice((mine + 1) % devices));
    CUDA_OK(cudaStreamCreate(&foreign));
    CUDA_OK(cudaSetDevice(mine));
    int pe = symcoll_my_pe();
    uint64_t *sig = sym.as<uint64_t>() + 7;
    std::vector<std::pair<symcoll_status_t, const char *>> calls = {
        {symcoll_put_on_stream(sym.ptr, local.ptr, 8, pe, foreign), "put"},
        {symcoll_get_on_stream(local.ptr, sym.ptr, 8, pe, foreign), "get"},
        {symcoll_put_signal_on_stream(sym.ptr, local.ptr, 8, sig, 1, SYMCOLL_SIGNAL_SET, pe,
                                      foreign),
         "put_signal"},
        {symcoll_signal_wait_until_on_stream(sig, SYMCOLL_CMP_EQ, 0, foreign), "signal_wait"},
    };
    for (auto &c : calls)
        EXPECT_EQ(c.first, SYMCOLL_ERROR_INVALID_ARGUMENT) << c.second;
    EXPECT_NE(std::string(symcoll_last_error()).find("belongs to device"), std::string::npos)
        << symcoll_last_error();
    CUDA_OK(cudaStreamDestroy(foreign));
}

} // namespace
