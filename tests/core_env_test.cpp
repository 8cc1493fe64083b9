// The SYMCOLL_* environment: size and integer parsing, loading good and bad values of every
// kind, variables that must fit together, the settings listing, the per-collective algorithm
// overrides and loading from several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "env.h"

namespace {

struct EnvVar {
    const char *name, *def, *help;
};

// Every variable of env.def, so that a new one is covered without touching this test.
const std::vector<EnvVar> &all_variables() {
    static const std::vector<EnvVar> vars = {
#define SYMCOLL_ENV(name, kind, field, def, help) {"SYMCOLL_" #name, def, help},
#include "env.def"
#undef SYMCOLL_ENV
    };
    return vars;
}

// Unsets every SYMCOLL_* variable for a test and restores the environment afterwards.
class Env : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const EnvVar &v : all_variables()) {
            if (const char *value = std::getenv(v.name))
                saved_.emplace_back(v.name, value);
            unsetenv(v.name);
        }
        ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    void TearDown() override {
        for (const EnvVar &v : all_variables())
            unsetenv(v.name);
        for (const auto &[name, value] : saved_)
            setenv(name.c_str(), value.c_str(), 1);
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }

  private:
    std::vector<std::pair<std::string, std::string>> saved_;
};

std::string printed_settings() {
    char *text = nullptr;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return "";
    symcoll_env_print(out);
    std::fclose(out);
    std::string result(text, len);
    std::free(text);
    return result;
}

TEST(ParseSize, AcceptsNumbersFractionsAndBinarySuffixes) {
    const struct {
        const char *text;
        size_t want;
    } cases[] = {
        {"0", 0},
        {"123", 123},
        {"4k", 4096},
        {"4K", 4096},
        {"16M", 16ull << 20},
        {"1g", 1ull << 30},
        {"2G", 2ull << 30},
        {"1kb", 1024},
        {"3MB", 3ull << 20},
        {"1t", 1ull << 40},
        {"18446744073709551615", SIZE_MAX},
        {"17179869183g", 17179869183ull << 30},
        {"1.5g", 3ull << 29},
        {"16GB", 16ull << 30},
        {"0.5k", 512},
        {"0.1k", 103},
        {"1.0001", 2},
    };
    for (const auto &c : cases) {
        size_t got = 7;
        EXPECT_EQ(symcoll_parse_size(c.text, &got), 0) << '"' << c.text << '"';
        EXPECT_EQ(got, c.want) << '"' << c.text << '"';
    }
}

TEST(ParseSize, RejectsMalformedAndOverflowingText) {
    const char *const bad[] = {"",
                               "k",
                               "12x",
                               "-1",
                               "+1",
                               " 1",
                               "1 ",
                               "1kbb",
                               "1bk",
                               "1.",
                               "1.g",
                               ".5g",
                               "1e3",
                               "nan",
                               "g1",
                               "99999999999999999999g",
                               "18446744073709551616",
                               "17179869184g",
                               "16777216t"};
    for (const char *text : bad) {
        size_t got = 7;
        EXPECT_EQ(symcoll_parse_size(text, &got), -1) << '"' << text << '"';
        EXPECT_EQ(got, 7u) << '"' << text << "\" wrote a result on failure";
    }
    size_t got;
    EXPECT_EQ(symcoll_parse_size(nullptr, &got), -1);
}

TEST(ParseInt, AcceptsDecimalIntegers) {
    const struct {
        const char *text;
        long want;
    } cases[] = {
        {"0", 0}, {"42", 42}, {"-7", -7}, {"300000", 300000}, {"9223372036854775807", LONG_MAX}};
    for (const auto &c : cases) {
        long got = 7;
        EXPECT_EQ(symcoll_parse_int(c.text, &got), 0) << '"' << c.text << '"';
        EXPECT_EQ(got, c.want) << '"' << c.text << '"';
    }
}

TEST(ParseInt, RejectsMalformedAndOverflowingText) {
    const char *const bad[] = {
        "", "abc", "12x", "1.0", "4k", "9223372036854775808", "-99999999999999999999"};
    for (const char *text : bad) {
        long got = 7;
        EXPECT_EQ(symcoll_parse_int(text, &got), -1) << '"' << text << '"';
        EXPECT_EQ(got, 7) << '"' << text << "\" wrote a result on failure";
    }
    long got;
    EXPECT_EQ(symcoll_parse_int(nullptr, &got), -1);
}

TEST_F(Env, DefaultsWhenUnsetOrEmpty) {
    const symcoll_env_t *e = symcoll_env();
    EXPECT_EQ(e->symmetric_size, 1ull << 30);
    EXPECT_EQ(e->timeout_ms, 300000);
    EXPECT_EQ(e->rank, -1);
    EXPECT_STREQ(e->bootstrap, "auto");
    EXPECT_STREQ(e->uniqueid, "");
    EXPECT_EQ(e->debug, 0);
    EXPECT_EQ(e->info, 0);
    setenv("SYMCOLL_SYMMETRIC_SIZE", "", 1);
    setenv("SYMCOLL_TIMEOUT_MS", "", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_env()->symmetric_size, 1ull << 30);
    EXPECT_EQ(symcoll_env()->timeout_ms, 300000);
}

TEST_F(Env, LoadsGoodValues) {
    setenv("SYMCOLL_SYMMETRIC_SIZE", "64m", 1);
    setenv("SYMCOLL_TIMEOUT_MS", "1234", 1);
    setenv("SYMCOLL_RANK", "3", 1);
    setenv("SYMCOLL_SIZE", "4", 1);
    setenv("SYMCOLL_BOOTSTRAP", "pmix", 1);
    setenv("SYMCOLL_PROXY_SLOTS", "16", 1);
    setenv("SYMCOLL_PROXY_SLOT_BYTES", "256k", 1);
    setenv("SYMCOLL_PROXY_EAGER_BYTES", "0", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    const symcoll_env_t *e = symcoll_env();
    EXPECT_EQ(e->proxy_eager_bytes, 0u);
    EXPECT_EQ(e->symmetric_size, 64ull << 20);
    EXPECT_EQ(e->timeout_ms, 1234);
    EXPECT_EQ(e->rank, 3);
    EXPECT_STREQ(e->bootstrap, "pmix");
    EXPECT_EQ(e->proxy_slots, 16);
    EXPECT_EQ(e->proxy_slot_bytes, 256u << 10);
}

TEST_F(Env, BadSizeNamesTheVariableAndKeepsThePreviousSettings) {
    setenv("SYMCOLL_SYMMETRIC_SIZE", "2g", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    setenv("SYMCOLL_SYMMETRIC_SIZE", "12x", 1);
    setenv("SYMCOLL_TIMEOUT_MS", "5", 1);
    EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("SYMCOLL_SYMMETRIC_SIZE"), std::string::npos) << why;
    EXPECT_NE(why.find("12x"), std::string::npos) << why;
    EXPECT_EQ(symcoll_env()->symmetric_size, 2ull << 30);
    EXPECT_EQ(symcoll_env()->timeout_ms, 300000) << "a failed load changed other settings";
}

TEST_F(Env, BadIntegerNamesTheVariable) {
    setenv("SYMCOLL_TIMEOUT_MS", "soon", 1);
    EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("SYMCOLL_TIMEOUT_MS"), std::string::npos) << why;
    EXPECT_NE(why.find("soon"), std::string::npos) << why;
}

TEST_F(Env, PrintListsEveryVariableWithHelpAndValue) {
    setenv("SYMCOLL_TIMEOUT_MS", "4321", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    std::string text = printed_settings();
    for (const EnvVar &v : all_variables()) {
        EXPECT_NE(text.find(std::string(v.name) + " "), std::string::npos) << v.name << "\n"
                                                                           << text;
        EXPECT_NE(text.find(v.help), std::string::npos) << v.help << "\n" << text;
    }
    EXPECT_NE(text.find("4321"), std::string::npos) << text;
    EXPECT_NE(text.find("1073741824"), std::string::npos) << "default heap size\n" << text;
}

TEST_F(Env, AlgoOverridesPerCollective) {
    for (symcoll_collective_t c :
         {SYMCOLL_COLL_BROADCAST, SYMCOLL_COLL_REDUCE, SYMCOLL_COLL_FCOLLECT, SYMCOLL_COLL_ALLTOALL,
          SYMCOLL_COLL_BARRIER})
        EXPECT_STREQ(symcoll_env_algo(c), "") << "collective " << c;
    setenv("SYMCOLL_ALGO_BROADCAST", "pull", 1);
    setenv("SYMCOLL_ALGO_REDUCE", "Two_Shot", 1);
    setenv("SYMCOLL_ALGO_FCOLLECT", "LL", 1);
    setenv("SYMCOLL_ALGO_ALLTOALL", "push", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_BROADCAST), "pull");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_REDUCE), "two_shot");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_FCOLLECT), "ll");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_ALLTOALL), "push");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_BARRIER), "");
    EXPECT_STREQ(symcoll_env_algo(static_cast<symcoll_collective_t>(99)), "");
}

// Each bad value fails the load with a message naming the variable, the value and what the
// variable accepts.
TEST_F(Env, BadValuesNameVariableValueAndWhatIsAccepted) {
    const std::string not_hex(256, 'g');
    const std::string long_id(257, 'a');
    const std::string long_path = "/" + std::string(SYMCOLL_ENV_PATH_MAX, 'x');
    const struct {
        const char *name, *value, *accepted;
    } cases[] = {
        {"SYMCOLL_SYMMETRIC_SIZE", "lots", "number of bytes"},
        {"SYMCOLL_SYMMETRIC_SIZE", "0", "positive"},
        {"SYMCOLL_SYMMETRIC_SIZE", "-1g", "positive"},
        {"SYMCOLL_SYMMETRIC_SIZE", "1p", "k, m, g or t"},
        {"SYMCOLL_SYMMETRIC_SIZE", "99999999999999999999", "number of bytes"},
        {"SYMCOLL_SYMMETRIC_SIZE", "17179869184g", "number of bytes"},
        {"SYMCOLL_TIMEOUT_MS", "soon", "milliseconds"},
        {"SYMCOLL_TIMEOUT_MS", "-5", "from 0 to 2147483647"},
        {"SYMCOLL_TIMEOUT_MS", "2147483648", "from 0 to 2147483647"},
        {"SYMCOLL_TIMEOUT_MS", "10s", "milliseconds"},
        {"SYMCOLL_TIMEOUT_MS", " 5", "milliseconds"},
        {"SYMCOLL_INIT_TIMEOUT_MS", "0", "from 1 to"},
        {"SYMCOLL_DEBUG", "verbose", "off, error, warn, info or debug"},
        {"SYMCOLL_DEBUG", "5", "0 to 4"},
        {"SYMCOLL_DEBUG", "-1", "0 to 4"},
        {"SYMCOLL_INFO", "maybe", "yes"},
        {"SYMCOLL_INFO", "2", "1, yes, true or on"},
        {"SYMCOLL_BOOTSTRAP", "mpi", "auto, launcher, pmix, torchrun, single"},
        {"SYMCOLL_BOOTSTRAP_PORT", "65536", "TCP port"},
        {"SYMCOLL_BOOTSTRAP_PORT", "http", "TCP port"},
        {"SYMCOLL_RANK", "-2", "PE number"},
        {"SYMCOLL_RANK", "64", "at most 64 PEs"},
        {"SYMCOLL_SIZE", "0", "PE count"},
        {"SYMCOLL_SIZE", "4096", "at most 64 PEs"},
        {"SYMCOLL_LOCAL_SIZE", "65", "at most 64 PEs"},
        {"SYMCOLL_UNIQUEID", "abc", "256 hex digits"},
        {"SYMCOLL_UNIQUEID", not_hex.c_str(), "256 hex digits"},
        {"SYMCOLL_UNIQUEID", long_id.c_str(), "exactly 256 hex digits"},
        {"SYMCOLL_TUNING_FILE", "/no/such/tuning/file", "readable file"},
        {"SYMCOLL_TUNING_FILE", long_path.c_str(), "at most 4095 bytes"},
        {"SYMCOLL_ALGO_REDUCE", "ring", "ll, one_shot, two_shot"},
        {"SYMCOLL_ALGO_BROADCAST", "one_shot", "ll, pull, push, ce"},
        {"SYMCOLL_ALGO_ALLTOALL", "ce", "ll, push, pull"},
        {"SYMCOLL_PROXY_SLOTS", "-1", "staging slots from 1 to 1024, or 0"},
        {"SYMCOLL_PROXY_SLOTS", "1025", "staging slots from 1 to 1024"},
        {"SYMCOLL_PROXY_SLOT_BYTES", "0", "positive"},
        {"SYMCOLL_PROXY_EAGER_BYTES", "-1", "or 0 for none"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(std::string(c.name) + "=" + c.value);
        setenv(c.name, c.value, 1);
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT);
        std::string why = symcoll_last_error();
        std::string shown = std::string(c.value).substr(0, 64);
        EXPECT_NE(why.find(std::string(c.name) + "=\"" + shown), std::string::npos) << why;
        EXPECT_NE(why.find(c.accepted), std::string::npos) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        unsetenv(c.name);
    }
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
}

TEST_F(Env, MessagesShowValuesOnOneLineAndShortened) {
    setenv("SYMCOLL_BOOTSTRAP", "pmix\nsecond line", 1);
    EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find("\"pmix?second line\""), std::string::npos)
        << symcoll_last_error();
    setenv("SYMCOLL_BOOTSTRAP", std::string(1000, 'x').c_str(), 1);
    EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(symcoll_last_error()).find(std::string(64, 'x') + "...\""),
              std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(std::string(symcoll_last_error()).find(std::string(65, 'x')), std::string::npos);
}

TEST_F(Env, LevelsBooleansAndNamesInAnyCase) {
    const struct {
        const char *name, *value;
        long want;
    } cases[] = {
        {"SYMCOLL_DEBUG", "off", 0},     {"SYMCOLL_DEBUG", "none", 0},
        {"SYMCOLL_DEBUG", "0", 0},       {"SYMCOLL_DEBUG", "error", 1},
        {"SYMCOLL_DEBUG", "1", 1},       {"SYMCOLL_DEBUG", "WARN", 2},
        {"SYMCOLL_DEBUG", "warning", 2}, {"SYMCOLL_DEBUG", "Info", 3},
        {"SYMCOLL_DEBUG", "3", 3},       {"SYMCOLL_DEBUG", "debug", 4},
        {"SYMCOLL_DEBUG", "trace", 4},   {"SYMCOLL_DEBUG", "4", 4},
        {"SYMCOLL_INFO", "1", 1},        {"SYMCOLL_INFO", "yes", 1},
        {"SYMCOLL_INFO", "TRUE", 1},     {"SYMCOLL_INFO", "on", 1},
        {"SYMCOLL_INFO", "0", 0},        {"SYMCOLL_INFO", "No", 0},
        {"SYMCOLL_INFO", "false", 0},    {"SYMCOLL_INFO", "off", 0},
    };
    for (const auto &c : cases) {
        setenv(c.name, c.value, 1);
        ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << c.value << ": " << symcoll_last_error();
        long got =
            std::string(c.name) == "SYMCOLL_DEBUG" ? symcoll_env()->debug : symcoll_env()->info;
        EXPECT_EQ(got, c.want) << c.name << "=" << c.value;
        unsetenv(c.name);
    }
    setenv("SYMCOLL_BOOTSTRAP", "PMIx", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_STREQ(symcoll_env()->bootstrap, "pmix");
}

TEST_F(Env, PeLimitsAreInclusive) {
    setenv("SYMCOLL_RANK", "63", 1);
    setenv("SYMCOLL_SIZE", "64", 1);
    setenv("SYMCOLL_LOCAL_RANK", "0", 1);
    setenv("SYMCOLL_LOCAL_SIZE", "64", 1);
    setenv("SYMCOLL_BOOTSTRAP_PORT", "65535", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_EQ(symcoll_env()->rank, 63);
    EXPECT_EQ(symcoll_env()->size, SYMCOLL_MAX_PES);
    EXPECT_EQ(symcoll_env()->bootstrap_port, 65535);
}

// symcoll-run sets RANK, SIZE, LOCAL_* and UNIQUEID together; the load checks they fit.
TEST_F(Env, VariablesThatMustFitTogether) {
    const std::string id(256, 'a');
    const struct {
        std::vector<std::pair<const char *, std::string>> set;
        const char *needle;
    } cases[] = {
        {{{"SYMCOLL_RANK", "1"}}, "set both or neither"},
        {{{"SYMCOLL_SIZE", "2"}}, "set both or neither"},
        {{{"SYMCOLL_RANK", "2"}, {"SYMCOLL_SIZE", "2"}},
         "SYMCOLL_RANK=2 is not below SYMCOLL_SIZE=2"},
        {{{"SYMCOLL_RANK", "0"},
          {"SYMCOLL_SIZE", "2"},
          {"SYMCOLL_LOCAL_RANK", "3"},
          {"SYMCOLL_LOCAL_SIZE", "2"}},
         "SYMCOLL_LOCAL_RANK=3 is not below SYMCOLL_LOCAL_SIZE=2"},
        {{{"SYMCOLL_RANK", "0"}, {"SYMCOLL_SIZE", "2"}, {"SYMCOLL_LOCAL_SIZE", "4"}},
         "SYMCOLL_LOCAL_SIZE=4 is above SYMCOLL_SIZE=2"},
        {{{"SYMCOLL_UNIQUEID", id}}, "SYMCOLL_UNIQUEID is set without SYMCOLL_RANK"},
        {{{"SYMCOLL_BOOTSTRAP", "launcher"}, {"SYMCOLL_RANK", "0"}, {"SYMCOLL_SIZE", "2"}},
         "SYMCOLL_BOOTSTRAP=launcher needs"},
    };
    for (const auto &c : cases) {
        for (const auto &[name, value] : c.set)
            setenv(name, value.c_str(), 1);
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_ERROR_INVALID_ARGUMENT) << c.needle;
        EXPECT_NE(std::string(symcoll_last_error()).find(c.needle), std::string::npos)
            << symcoll_last_error();
        for (const auto &[name, value] : c.set)
            unsetenv(name);
    }
    setenv("SYMCOLL_BOOTSTRAP", "launcher", 1);
    setenv("SYMCOLL_RANK", "1", 1);
    setenv("SYMCOLL_SIZE", "2", 1);
    setenv("SYMCOLL_UNIQUEID", id.c_str(), 1);
    EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
}

// The loaded strings are copies: changing or removing the variable afterwards, by setenv,
// unsetenv or by writing into a string given to putenv, leaves the settings as loaded.
TEST_F(Env, LoadedStringsOutliveChangesToTheEnvironment) {
    const std::string id(256, 'a');
    std::string file_entry = "SYMCOLL_TUNING_FILE=/dev/null";
    std::string id_entry = "SYMCOLL_UNIQUEID=" + id;
    putenv(file_entry.data());
    putenv(id_entry.data());
    setenv("SYMCOLL_RANK", "0", 1);
    setenv("SYMCOLL_SIZE", "2", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    const symcoll_env_t *e = symcoll_env();

    file_entry.replace(file_entry.find("null"), 4, "zero");
    std::fill(id_entry.begin() + id_entry.find('=') + 1, id_entry.end(), 'b');
    EXPECT_STREQ(e->tuning_file, "/dev/null");
    EXPECT_EQ(e->uniqueid, id);

    setenv("SYMCOLL_TUNING_FILE", "/dev/zero", 1);
    setenv("SYMCOLL_UNIQUEID", std::string(256, 'c').c_str(), 1);
    EXPECT_STREQ(e->tuning_file, "/dev/null");
    EXPECT_EQ(e->uniqueid, id);

    unsetenv("SYMCOLL_TUNING_FILE");
    unsetenv("SYMCOLL_UNIQUEID");
    EXPECT_STREQ(e->tuning_file, "/dev/null");
    EXPECT_EQ(e->uniqueid, id);
}

TEST_F(Env, EveryVariableSaysWhatItAccepts) {
    for (const EnvVar &v : all_variables()) {
        char accepted[256];
        symcoll_env_accepts(v.name + std::strlen("SYMCOLL_"), accepted, sizeof accepted);
        EXPECT_GT(std::strlen(accepted), 5u) << v.name;
    }
    char accepted[16] = "x";
    symcoll_env_accepts("NO_SUCH_VARIABLE", accepted, sizeof accepted);
    EXPECT_STREQ(accepted, "");
}

// Loads (two at once) and reads from several threads: every reader sees one whole set of
// settings, and no load fills the slot readers use.
TEST_F(Env, LoadingIsThreadSafe) {
    std::atomic<bool> torn{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; i++) {
                if (t < 2) {
                    EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS);
                } else {
                    const symcoll_env_t *e = symcoll_env();
                    if (e->timeout_ms != 300000 || std::strcmp(e->bootstrap, "auto") != 0)
                        torn = true;
                }
            }
        });
    for (std::thread &t : threads)
        t.join();
    EXPECT_FALSE(torn);
}

} // namespace
