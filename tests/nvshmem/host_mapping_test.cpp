// What the NVSHMEM header's host calls ask of symcoll (CPU only): the symcoll functions they
// call are recorded here instead of linking libsymcoll. Built twice, with signed and with
// unsigned plain char (-funsigned-char, as char is on aarch64).
#include <gtest/gtest.h>
#include <limits.h>
#include <nvshmem.h>
#include <nvshmemx.h>

namespace {

struct Reduce {
    symcoll_team_t team;
    void *dst;
    const void *src;
    size_t count;
    symcoll_datatype_t type;
    symcoll_op_t op;
    cudaStream_t stream;
};
Reduce last_reduce;

struct PutSignal {
    void *dst;
    const void *src;
    size_t bytes;
    uint64_t *sig;
    uint64_t value;
    symcoll_signal_op_t op;
    int pe;
    cudaStream_t stream;
};
PutSignal last_put_signal;

} // namespace

extern "C" {
symcoll_status_t symcoll_reduce_on_stream(symcoll_team_t team, void *dst, const void *src,
                                          size_t count, symcoll_datatype_t type, symcoll_op_t op,
                                          cudaStream_t stream) {
    last_reduce = Reduce{team, dst, src, count, type, op, stream};
    return SYMCOLL_SUCCESS;
}
symcoll_status_t symcoll_put_signal_on_stream(void *dst, const void *src, size_t bytes,
                                              uint64_t *sig, uint64_t value, symcoll_signal_op_t op,
                                              int pe, cudaStream_t stream) {
    last_put_signal = PutSignal{dst, src, bytes, sig, value, op, pe, stream};
    return SYMCOLL_SUCCESS;
}
const char *symcoll_last_error(void) {
    return "recorded";
}
const char *symcoll_status_string(symcoll_status_t status) {
    (void)status;
    return "recorded";
}
cudaError_t cudaDeviceSynchronize(void) {
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    (void)stream;
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t err) {
    (void)err;
    return "recorded";
}
}

namespace {

cudaStream_t const stream = (cudaStream_t)0x5;

// Plain char is signed on x86-64 and unsigned on aarch64: min and max must compare as the
// compiler does, or a char above 127 loses to every other value of an unsigned-char platform.
TEST(NvshmemHostMapping, CharReducesWithTheCompilersSignedness) {
    char dst[3], src[3];
    ASSERT_EQ(nvshmemx_char_max_reduce_on_stream(NVSHMEMX_TEAM_NODE, dst, src, 3, stream), 0);
    EXPECT_EQ(last_reduce.type, CHAR_MIN < 0 ? SYMCOLL_INT8 : SYMCOLL_UINT8);
    EXPECT_EQ(last_reduce.op, SYMCOLL_MAX);
    EXPECT_EQ(last_reduce.count, 3u);
    EXPECT_EQ(last_reduce.team, SYMCOLL_TEAM_NODE);
    EXPECT_EQ(last_reduce.dst, (void *)dst);
    EXPECT_EQ(last_reduce.src, (const void *)src);
    EXPECT_EQ(last_reduce.stream, stream);

    ASSERT_EQ(nvshmem_char_min_reduce(NVSHMEM_TEAM_WORLD, dst, src, 2), 0);
    EXPECT_EQ(last_reduce.type, CHAR_MIN < 0 ? SYMCOLL_INT8 : SYMCOLL_UINT8);
    EXPECT_EQ(last_reduce.op, SYMCOLL_MIN);
}

TEST(NvshmemHostMapping, SignedAndUnsignedCharKeepTheirTypes) {
    signed char s[1];
    unsigned char u[1];
    ASSERT_EQ(nvshmemx_schar_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, s, s, 1, stream), 0);
    EXPECT_EQ(last_reduce.type, SYMCOLL_INT8);
    ASSERT_EQ(nvshmemx_uchar_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, u, u, 1, stream), 0);
    EXPECT_EQ(last_reduce.type, SYMCOLL_UINT8);
}

// A signal update on a stream is a put of no bytes with the signal.
TEST(NvshmemHostMapping, SignalOpOnStreamIsAPutSignalOfNoBytes) {
    uint64_t sig;
    nvshmemx_signal_op_on_stream(&sig, 42, NVSHMEM_SIGNAL_ADD, 1, stream);
    EXPECT_EQ(last_put_signal.bytes, 0u);
    EXPECT_EQ(last_put_signal.sig, &sig);
    EXPECT_EQ(last_put_signal.value, 42u);
    EXPECT_EQ(last_put_signal.op, SYMCOLL_SIGNAL_ADD);
    EXPECT_EQ(last_put_signal.pe, 1);
    EXPECT_EQ(last_put_signal.stream, stream);
}

// The typed forms count elements; symcoll counts bytes.
TEST(NvshmemHostMapping, TypedPutSignalOnStreamPassesBytes) {
    double dst[4], src[4];
    uint64_t sig;
    nvshmemx_double_put_signal_on_stream(dst, src, 3, &sig, 7, NVSHMEM_SIGNAL_SET, 1, stream);
    EXPECT_EQ(last_put_signal.dst, (void *)dst);
    EXPECT_EQ(last_put_signal.src, (const void *)src);
    EXPECT_EQ(last_put_signal.bytes, 3 * sizeof(double));
    EXPECT_EQ(last_put_signal.value, 7u);
    EXPECT_EQ(last_put_signal.op, SYMCOLL_SIGNAL_SET);
}

// half and bfloat16 reduce as symcoll's 16-bit floats (C++ only, as NVSHMEM declares them).
TEST(NvshmemHostMapping, HalfAndBfloat16Reduce) {
    half h[2];
    __nv_bfloat16 b[2];
    ASSERT_EQ(nvshmemx_half_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, h, h, 2, stream), 0);
    EXPECT_EQ(last_reduce.type, SYMCOLL_FLOAT16);
    EXPECT_EQ(last_reduce.op, SYMCOLL_SUM);
    EXPECT_EQ(last_reduce.count, 2u);
    ASSERT_EQ(nvshmem_bfloat16_max_reduce(NVSHMEM_TEAM_WORLD, b, b, 1), 0);
    EXPECT_EQ(last_reduce.type, SYMCOLL_BFLOAT16);
    EXPECT_EQ(last_reduce.op, SYMCOLL_MAX);
}

} // namespace
