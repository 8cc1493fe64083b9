// The public API before symcoll_init: every call fails cleanly with NOT_INITIALIZED (or NULL
// / -1) and a reason naming the function; init rejects bad attributes and settings before
// touching a GPU, even in a fresh process, and says which part of a GPU is missing; the name
// and size tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

#include "symcoll.h"
#include "symcoll_halo.h"

namespace {

// A stand-in for any device address: none is dereferenced before init.
char scratch[4096];
uint64_t *const kSignal = reinterpret_cast<uint64_t *>(scratch);

void expect_reason_names(const char *fn) {
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find(fn), std::string::npos) << why;
    EXPECT_NE(why.find("not initialized"), std::string::npos) << why;
}

#define EXPECT_NOT_INITIALIZED(fn, call)                                                           \
    do {                                                                                           \
        EXPECT_EQ((call), SYMCOLL_ERROR_NOT_INITIALIZED) << #call;                                 \
        expect_reason_names(fn);                                                                   \
    } while (0)

TEST(Uninitialized, IdentityIsUnknown) {
    EXPECT_EQ(symcoll_my_pe(), -1);
    EXPECT_EQ(symcoll_n_pes(), -1);
    EXPECT_EQ(symcoll_team_my_pe(SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_WORLD), -1);
    EXPECT_EQ(symcoll_team_n_pes(SYMCOLL_TEAM_NODE), -1);
    EXPECT_EQ(symcoll_team_translate_pe(SYMCOLL_TEAM_WORLD, 0, SYMCOLL_TEAM_NODE), -1);
}

TEST(Uninitialized, AllocationFails) {
    EXPECT_EQ(symcoll_malloc(16), nullptr);
    expect_reason_names("symcoll_malloc");
    EXPECT_EQ(symcoll_calloc(4, 4), nullptr);
    expect_reason_names("symcoll_calloc");
    EXPECT_EQ(symcoll_ptr(scratch, 0), nullptr);
    expect_reason_names("symcoll_ptr");
    EXPECT_NOT_INITIALIZED("symcoll_free", symcoll_free_checked(scratch));
    symcoll_free(scratch);
    expect_reason_names("symcoll_free");
}

TEST(Uninitialized, NullAndZeroAreNoOps) {
    symcoll_malloc(16);
    EXPECT_EQ(symcoll_malloc(0), nullptr);
    EXPECT_STREQ(symcoll_last_error(), "") << "malloc(0) is not an error";
    EXPECT_EQ(symcoll_free_checked(nullptr), SYMCOLL_SUCCESS);
}

TEST(Uninitialized, StreamCallsFail) {
    EXPECT_NOT_INITIALIZED("symcoll_put_on_stream",
                           symcoll_put_on_stream(scratch, scratch + 64, 64, 0, nullptr));
    EXPECT_NOT_INITIALIZED("symcoll_get_on_stream",
                           symcoll_get_on_stream(scratch, scratch + 64, 64, 0, nullptr));
    EXPECT_NOT_INITIALIZED("symcoll_put_signal_on_stream",
                           symcoll_put_signal_on_stream(scratch + 64, scratch + 128, 64, kSignal, 1,
                                                        SYMCOLL_SIGNAL_SET, 0, nullptr));
    EXPECT_NOT_INITIALIZED(
        "symcoll_signal_wait_until_on_stream",
        symcoll_signal_wait_until_on_stream(kSignal, SYMCOLL_CMP_EQ, 1, nullptr));
    EXPECT_NOT_INITIALIZED("symcoll_barrier_on_stream",
                           symcoll_barrier_on_stream(SYMCOLL_TEAM_WORLD, nullptr));
    EXPECT_NOT_INITIALIZED("symcoll_broadcast_on_stream",
                           symcoll_broadcast_on_stream(SYMCOLL_TEAM_WORLD, scratch, scratch, 16,
                                                       SYMCOLL_FLOAT32, 0, nullptr));
}

TEST(Uninitialized, TeamCallsFail) {
    symcoll_team_t team = 12345;
    EXPECT_NOT_INITIALIZED("symcoll_team_split_strided",
                           symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, 0, 1, 1, &team));
    EXPECT_NOT_INITIALIZED("symcoll_team_destroy", symcoll_team_destroy(2));
    EXPECT_NOT_INITIALIZED("symcoll_team_status", symcoll_team_status(SYMCOLL_TEAM_WORLD));
    symcoll_device_t handle = symcoll_device_handle(SYMCOLL_TEAM_WORLD);
    EXPECT_EQ(handle.team_size, 0);
    EXPECT_EQ(handle.heap_base, nullptr);
    expect_reason_names("symcoll_device_handle");
    EXPECT_EQ(symcoll_topology_text(nullptr, 0), 0u);
    expect_reason_names("symcoll_topology_text");
}

// A kernel built against another header version gets no handle, whatever the library state.
TEST(DeviceHandle, OtherHeaderVersionsAreRefused) {
    symcoll_device_t handle;
    std::memset(&handle, 0x5a, sizeof handle);
    EXPECT_EQ(symcoll_device_handle_get(SYMCOLL_TEAM_WORLD, SYMCOLL_DEVICE_HANDLE_VERSION + 1,
                                        sizeof handle, &handle),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(handle.team_size, 0);
    EXPECT_EQ(handle.version, 0u);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("fills version " + std::to_string(SYMCOLL_DEVICE_HANDLE_VERSION)),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("rebuild"), std::string::npos) << why;
    EXPECT_EQ(symcoll_device_handle_get(SYMCOLL_TEAM_WORLD, SYMCOLL_DEVICE_HANDLE_VERSION,
                                        sizeof handle - 8, &handle),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(symcoll_device_handle_get(SYMCOLL_TEAM_WORLD, SYMCOLL_DEVICE_HANDLE_VERSION,
                                        sizeof handle, nullptr),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
}

// A newer header's handle is larger than this library's: refused, it is still zeroed whole
// (team_size 0, as documented), since symcoll_device_handle leaves it uninitialized.
TEST(DeviceHandle, ALargerHandleIsZeroedWhenRefused) {
    std::vector<unsigned char> newer(sizeof(symcoll_device_t) + 32, 0x5a);
    EXPECT_EQ(symcoll_device_handle_get(SYMCOLL_TEAM_WORLD, SYMCOLL_DEVICE_HANDLE_VERSION + 1,
                                        newer.size(),
                                        reinterpret_cast<symcoll_device_t *>(newer.data())),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(std::count(newer.begin(), newer.end(), 0), (long)newer.size());
}

// The halo plan's handle is versioned the same way; a NULL plan of the right version is an
// invalid argument, and the handle comes back zeroed (dirs 0) either way.
TEST(DeviceHandle, OtherHaloHeaderVersionsAreRefused) {
    symcoll_halo_device_t handle;
    std::memset(&handle, 0x5a, sizeof handle);
    EXPECT_EQ(symcoll_halo_device_handle_get(nullptr, SYMCOLL_HALO_DEVICE_HANDLE_VERSION + 1,
                                             sizeof handle, &handle),
              SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(handle.dirs, 0u);
    EXPECT_EQ(handle.version, 0u);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("halo device handle version 2"), std::string::npos) << why;
    std::vector<unsigned char> larger(sizeof handle + 8, 0x5a); // a newer header's handle
    EXPECT_EQ(
        symcoll_halo_device_handle_get(nullptr, SYMCOLL_HALO_DEVICE_HANDLE_VERSION, larger.size(),
                                       reinterpret_cast<symcoll_halo_device_t *>(larger.data())),
        SYMCOLL_ERROR_UNSUPPORTED);
    EXPECT_EQ(std::count(larger.begin(), larger.end(), 0), (long)larger.size());
    std::memset(&handle, 0x5a, sizeof handle);
    EXPECT_EQ(symcoll_halo_device_handle_get(nullptr, SYMCOLL_HALO_DEVICE_HANDLE_VERSION,
                                             sizeof handle, &handle),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(handle.dirs, 0u);
    EXPECT_EQ(symcoll_halo_device_handle_get(nullptr, SYMCOLL_HALO_DEVICE_HANDLE_VERSION,
                                             sizeof handle, nullptr),
              SYMCOLL_ERROR_INVALID_ARGUMENT);
}

TEST(Uninitialized, FinalizeFails) {
    EXPECT_NOT_INITIALIZED("symcoll_finalize", symcoll_finalize());
}

TEST(Init, AttrDefaults) {
    symcoll_init_attr_t attr;
    std::memset(&attr, 0x5a, sizeof attr);
    symcoll_init_attr_default(&attr);
    EXPECT_EQ(attr.version, (uint32_t)SYMCOLL_INIT_ATTR_VERSION);
    EXPECT_EQ(attr.heap_size, 0u);
    EXPECT_EQ(attr.device, -1);
    EXPECT_EQ(attr.bootstrap, SYMCOLL_BOOTSTRAP_AUTO);
    EXPECT_EQ(attr.nccl_comm, nullptr);
    symcoll_init_attr_default(nullptr);
}

TEST(Init, RejectsBadAttrVersion) {
    symcoll_init_attr_t attr;
    symcoll_init_attr_default(&attr);
    for (uint32_t version : {0u, (uint32_t)SYMCOLL_INIT_ATTR_VERSION + 1, 0xffffffffu}) {
        attr.version = version;
        EXPECT_EQ(symcoll_init(&attr), SYMCOLL_ERROR_INVALID_ARGUMENT) << "version " << version;
        std::string why = symcoll_last_error();
        EXPECT_NE(why.find("symcoll_init"), std::string::npos) << why;
        EXPECT_NE(why.find("attr.version " + std::to_string(version)), std::string::npos) << why;
        EXPECT_EQ(symcoll_my_pe(), -1);
    }
}

TEST(Init, RejectsBadEnvironmentBeforeLookingForAGpu) {
    const char *old = std::getenv("SYMCOLL_SYMMETRIC_SIZE");
    std::string saved = old ? old : "";
    setenv("SYMCOLL_SYMMETRIC_SIZE", "lots", 1);
    EXPECT_EQ(symcoll_init(nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("SYMCOLL_SYMMETRIC_SIZE"), std::string::npos) << why;
    EXPECT_NE(why.find("lots"), std::string::npos) << why;
    EXPECT_EQ(symcoll_my_pe(), -1);
    if (old)
        setenv("SYMCOLL_SYMMETRIC_SIZE", saved.c_str(), 1);
    else
        unsetenv("SYMCOLL_SYMMETRIC_SIZE");
}

// Every attr field is checked before any GPU work: on a machine without a GPU these must say
// INVALID_ARGUMENT, not NO_GPU.
TEST(Init, RejectsEveryBadAttrField) {
    constexpr symcoll_bootstrap_kind_t AUTO = SYMCOLL_BOOTSTRAP_AUTO,
                                       ID = SYMCOLL_BOOTSTRAP_UNIQUEID,
                                       COMM = SYMCOLL_BOOTSTRAP_NCCL_COMM,
                                       PMIX = SYMCOLL_BOOTSTRAP_PMIX;
    int comm_stand_in = 0;
    const struct {
        int bootstrap, rank, size, device;
        size_t heap_size;
        bool with_id, with_comm;
        const char *needle;
    } cases[] = {
        {7, -1, -1, -1, 0, false, false, "attr.bootstrap 7 is not"},
        {-1, -1, -1, -1, 0, false, false, "attr.bootstrap -1 is not"},
        {AUTO, -1, -1, -2, 0, false, false, "attr.device -2"},
        {AUTO, -1, -1, -1, (size_t)-1, false, false, "attr.heap_size 18446744073709551615"},
        {ID, 2, 2, -1, 0, true, false, "attr.rank 2 out of range for attr.size 2"},
        {ID, -1, 2, -1, 0, true, false, "attr.rank -1 out of range"},
        {ID, 0, 0, -1, 0, true, false, "attr.size 0 is not"},
        {ID, 0, SYMCOLL_MAX_PES + 1, -1, 0, true, false,
         "attr.size 65 is not a PE count from 1 to 64"},
        {ID, 0, 2, -1, 0, false, false, "attr.uniqueid is all zero"},
        {COMM, -1, -1, -1, 0, false, false, "attr.nccl_comm is NULL"},
        {AUTO, 0, 2, -1, 0, true, false, "attr.bootstrap is SYMCOLL_BOOTSTRAP_AUTO"},
        {PMIX, -1, -1, -1, 0, false, true, "attr.bootstrap is SYMCOLL_BOOTSTRAP_PMIX"},
    };
    for (const auto &c : cases) {
        symcoll_init_attr_t attr;
        symcoll_init_attr_default(&attr);
        attr.bootstrap = (symcoll_bootstrap_kind_t)c.bootstrap;
        attr.rank = c.rank;
        attr.size = c.size;
        attr.device = c.device;
        attr.heap_size = c.heap_size;
        if (c.with_id)
            std::memset(&attr.uniqueid, 0x11, sizeof attr.uniqueid);
        attr.nccl_comm = c.with_comm ? &comm_stand_in : nullptr;
        EXPECT_EQ(symcoll_init(&attr), SYMCOLL_ERROR_INVALID_ARGUMENT) << c.needle;
        std::string why = symcoll_last_error();
        EXPECT_EQ(why.rfind("symcoll_init: ", 0), 0u) << why;
        EXPECT_NE(why.find(c.needle), std::string::npos) << why;
        EXPECT_EQ(symcoll_my_pe(), -1);
    }
}

TEST(Init, WithoutAGpuSaysWhichPartIsMissing) {
    symcoll_status_t st = symcoll_init(nullptr);
    if (st == SYMCOLL_SUCCESS) {
        // A failed finalize must fail the case, not hide behind the skip.
        ASSERT_EQ(symcoll_finalize(), SYMCOLL_SUCCESS) << symcoll_last_error();
        GTEST_SKIP() << "this machine has a GPU";
    }
    EXPECT_EQ(st, SYMCOLL_ERROR_NO_GPU) << symcoll_last_error();
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("symcoll_init: no usable GPU: "), std::string::npos) << why;
    bool driver_loadable =
        dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) || dlopen("libcuda.so.1", RTLD_NOW);
    if (!driver_loadable)
        EXPECT_NE(why.find("no NVIDIA driver"), std::string::npos) << why;
}

// These crashed a fresh process (exit 139) through env load -> error -> log -> env load. Each
// runs in a new process (threadsafe death tests re-execute the binary) so that init is the
// first thing that reads the environment.
// The table is what a user asks for when init fails: it comes before any failure after the
// settings were read (here: no GPU on a CPU machine, else a peer that never comes).
TEST(FreshProcess, InfoTableComesAlsoWhenInitFails) {
    const std::string socket = "symcoll-test-info." + std::to_string(getpid());
    const std::pair<const char *, std::string> settings[] = {
        {"SYMCOLL_INFO", "1"},
        {"SYMCOLL_RANK", "0"},
        {"SYMCOLL_SIZE", "2"},
        {"SYMCOLL_BOOTSTRAP_SOCKET", socket},
        {"SYMCOLL_INIT_TIMEOUT_MS", "200"},
    };
    for (const auto &[name, value] : settings)
        setenv(name, value.c_str(), 1);
    testing::internal::CaptureStdout();
    symcoll_status_t st = symcoll_init(nullptr);
    std::fflush(stdout);
    std::string out = testing::internal::GetCapturedStdout();
    for (const auto &[name, value] : settings)
        unsetenv(name);
    EXPECT_NE(st, SYMCOLL_SUCCESS);
    EXPECT_NE(out.find("SYMCOLL_SYMMETRIC_SIZE"), std::string::npos) << out;
    EXPECT_NE(out.find(socket), std::string::npos) << out;
}

TEST(FreshProcess, BadOrWordyEnvironmentNeverCrashesInit) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const struct {
        const char *name, *value;
        bool valid;
    } cases[] = {
        {"SYMCOLL_TIMEOUT_MS", "soon", false}, {"SYMCOLL_SYMMETRIC_SIZE", "lots", false},
        {"SYMCOLL_DEBUG", "info", true},       {"SYMCOLL_INFO", "yes", true},
        {"SYMCOLL_DEBUG", "loud", false},
    };
    for (const auto &c : cases) {
        setenv(c.name, c.value, 1);
        EXPECT_EXIT(
            {
                if (!c.valid && std::strcmp(c.name, "SYMCOLL_DEBUG") != 0)
                    setenv("SYMCOLL_DEBUG", "debug", 1); // logging while the load fails
                symcoll_status_t st = symcoll_init(nullptr);
                if (st == SYMCOLL_SUCCESS)
                    symcoll_finalize();
                bool ok = c.valid ? st == SYMCOLL_SUCCESS || st == SYMCOLL_ERROR_NO_GPU
                                  : st == SYMCOLL_ERROR_INVALID_ARGUMENT &&
                                        std::strstr(symcoll_last_error(), c.name);
                std::_Exit(ok ? 0 : 1);
            },
            ::testing::ExitedWithCode(0), "")
            << c.name << "=" << c.value;
        unsetenv(c.name);
    }
}

TEST(LastError, IsPerThread) {
    symcoll_malloc(16);
    std::string other;
    std::thread t([&] {
        other = symcoll_last_error();
        symcoll_finalize();
    });
    t.join();
    EXPECT_EQ(other, "") << "a new thread starts without an error";
    expect_reason_names("symcoll_malloc");
}

TEST(Names, StatusStrings) {
    const char *const names[] = {"SYMCOLL_SUCCESS",
                                 "SYMCOLL_ERROR_INVALID_ARGUMENT",
                                 "SYMCOLL_ERROR_NOT_INITIALIZED",
                                 "SYMCOLL_ERROR_OUT_OF_MEMORY",
                                 "SYMCOLL_ERROR_SYMMETRY",
                                 "SYMCOLL_ERROR_TIMEOUT",
                                 "SYMCOLL_ERROR_CUDA",
                                 "SYMCOLL_ERROR_NCCL",
                                 "SYMCOLL_ERROR_BOOTSTRAP",
                                 "SYMCOLL_ERROR_NO_GPU",
                                 "SYMCOLL_ERROR_UNSUPPORTED",
                                 "SYMCOLL_ERROR_SYSTEM",
                                 "SYMCOLL_ERROR_INTERNAL"};
    for (int s = 0; s <= SYMCOLL_ERROR_INTERNAL; s++)
        EXPECT_STREQ(symcoll_status_string((symcoll_status_t)s), names[s]);
    EXPECT_STREQ(symcoll_status_string((symcoll_status_t)(SYMCOLL_ERROR_INTERNAL + 1)),
                 "SYMCOLL_ERROR_UNKNOWN");
    EXPECT_STREQ(symcoll_status_string((symcoll_status_t)-1), "SYMCOLL_ERROR_UNKNOWN");
}

// The runtime's version is the header's (one source), and CMake's project version with it.
TEST(Names, VersionOfTheRunningLibrary) {
    int version = -1;
    ASSERT_EQ(symcoll_get_version(&version), SYMCOLL_SUCCESS);
    EXPECT_EQ(version, SYMCOLL_VERSION);
    EXPECT_EQ(SYMCOLL_VERSION,
              SYMCOLL_VERSION_MAJOR * 10000 + SYMCOLL_VERSION_MINOR * 100 + SYMCOLL_VERSION_PATCH);
    EXPECT_EQ(std::to_string(SYMCOLL_VERSION_MAJOR) + "." + std::to_string(SYMCOLL_VERSION_MINOR) +
                  "." + std::to_string(SYMCOLL_VERSION_PATCH),
              SYMCOLL_PROJECT_VERSION);
    EXPECT_EQ(symcoll_get_version(nullptr), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("version is NULL"), std::string::npos);
}

TEST(Names, DatatypesAndOps) {
    const struct {
        symcoll_datatype_t type;
        const char *name;
        size_t size;
    } types[] = {{SYMCOLL_INT8, "int8", 1},       {SYMCOLL_UINT8, "uint8", 1},
                 {SYMCOLL_INT32, "int32", 4},     {SYMCOLL_UINT32, "uint32", 4},
                 {SYMCOLL_INT64, "int64", 8},     {SYMCOLL_UINT64, "uint64", 8},
                 {SYMCOLL_FLOAT16, "float16", 2}, {SYMCOLL_BFLOAT16, "bfloat16", 2},
                 {SYMCOLL_FLOAT32, "float32", 4}, {SYMCOLL_FLOAT64, "float64", 8}};
    static_assert(sizeof types / sizeof types[0] == SYMCOLL_NUM_DATATYPES, "every datatype");
    for (const auto &t : types) {
        EXPECT_STREQ(symcoll_datatype_name(t.type), t.name);
        EXPECT_EQ(symcoll_datatype_size(t.type), t.size) << t.name;
        EXPECT_EQ(symcoll_datatype_is_float(t.type),
                  std::string(t.name).find("float") != std::string::npos)
            << t.name;
    }
    for (int bad : {-1, (int)SYMCOLL_NUM_DATATYPES}) {
        EXPECT_STREQ(symcoll_datatype_name((symcoll_datatype_t)bad), "invalid");
        EXPECT_EQ(symcoll_datatype_size((symcoll_datatype_t)bad), 0u);
        EXPECT_EQ(symcoll_datatype_is_float((symcoll_datatype_t)bad), 0);
    }
    const char *const ops[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
    static_assert(sizeof ops / sizeof ops[0] == SYMCOLL_NUM_OPS, "every op");
    for (int op = 0; op < SYMCOLL_NUM_OPS; op++)
        EXPECT_STREQ(symcoll_op_name((symcoll_op_t)op), ops[op]);
    EXPECT_STREQ(symcoll_op_name(SYMCOLL_NUM_OPS), "invalid");
    EXPECT_STREQ(symcoll_op_name((symcoll_op_t)-1), "invalid");
}

} // namespace
