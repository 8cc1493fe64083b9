// A fake job on the CPU: PEs are forked processes of the test, which report by exit code.
#ifndef SYMCOLL_TESTS_FORKED_JOB_H
#define SYMCOLL_TESTS_FORKED_JOB_H

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include "symcoll.h"

// A socket bootstrap name of its own for each job of this test process.
inline std::string fresh_name() {
    static int job;
    return "symcoll-test." + std::to_string(getpid()) + "." + std::to_string(job++);
}

// Runs body(rank) in n forked processes; returns each one's exit code (body's return value).
inline std::vector<int> run_job(int n, const std::function<int(int)> &body) {
    std::vector<pid_t> pids;
    for (int rank = 0; rank < n; rank++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(body(rank));
        pids.push_back(pid);
    }
    std::vector<int> codes;
    for (pid_t pid : pids) {
        int status = 0;
        waitpid(pid, &status, 0);
        codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    return codes;
}

// In a child: 0 when st is expected (and the last error contains text), else says why and
// returns 1.
inline int expect_status(int rank, symcoll_status_t st, symcoll_status_t expected, const char *what,
                         const char *text = nullptr) {
    if (st == expected && (!text || std::strstr(symcoll_last_error(), text)))
        return 0;
    std::fprintf(stderr, "PE %d: %s gave %s (%s), expected %s%s%s\n", rank, what,
                 symcoll_status_string(st), symcoll_last_error(), symcoll_status_string(expected),
                 text ? " with " : "", text ? text : "");
    return 1;
}

#endif
