// Runs a built program through the shell for the tests of command lines: its exit status and
// what it printed on stdout and stderr.
#ifndef SYMCOLL_TESTS_PROGRAM_RUN_H
#define SYMCOLL_TESTS_PROGRAM_RUN_H

#include <cstdio>
#include <string>
#include <sys/wait.h>

struct ProgramResult {
    int status; // -1: did not run or did not exit
    std::string output;
};

inline ProgramResult run_program(const std::string &command_line) {
    std::string command = command_line + " 2>&1";
    FILE *p = popen(command.c_str(), "r");
    ProgramResult r{-1, ""};
    if (p == nullptr) {
        return r;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
        r.output.append(buf, n);
    }
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

#endif
