// The SYMCOLL_* environment: size and integer parsing, loading good and bad values, the
// settings listing and the per-collective algorithm overrides.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
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

TEST(ParseSize, AcceptsPlainNumbersAndBinarySuffixes) {
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
                               "1.5g",
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
    setenv("SYMCOLL_BOOTSTRAP", "pmix", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    const symcoll_env_t *e = symcoll_env();
    EXPECT_EQ(e->symmetric_size, 64ull << 20);
    EXPECT_EQ(e->timeout_ms, 1234);
    EXPECT_EQ(e->rank, 3);
    EXPECT_STREQ(e->bootstrap, "pmix");
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
    setenv("SYMCOLL_ALGO_BROADCAST", "tree", 1);
    setenv("SYMCOLL_ALGO_REDUCE", "ring", 1);
    setenv("SYMCOLL_ALGO_FCOLLECT", "direct", 1);
    setenv("SYMCOLL_ALGO_ALLTOALL", "pairwise", 1);
    ASSERT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_BROADCAST), "tree");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_REDUCE), "ring");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_FCOLLECT), "direct");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_ALLTOALL), "pairwise");
    EXPECT_STREQ(symcoll_env_algo(SYMCOLL_COLL_BARRIER), "");
    EXPECT_STREQ(symcoll_env_algo(static_cast<symcoll_collective_t>(99)), "");
}

} // namespace
