// Unsets environment variables for a test and puts back their values afterwards.
#ifndef SYMCOLL_TESTS_SCOPED_ENV_H
#define SYMCOLL_TESTS_SCOPED_ENV_H

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

class ScopedEnv {
  public:
    explicit ScopedEnv(std::initializer_list<const char *> names) {
        for (const char *name : names) {
            names_.emplace_back(name);
            if (const char *value = std::getenv(name))
                saved_.emplace_back(name, value);
            unsetenv(name);
        }
    }
    ~ScopedEnv() {
        for (const std::string &name : names_)
            unsetenv(name.c_str());
        for (const auto &[name, value] : saved_)
            setenv(name.c_str(), value.c_str(), 1);
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    std::vector<std::string> names_;
    std::vector<std::pair<std::string, std::string>> saved_;
};

#endif
