// Liveness of the PEs of this host, against a faked bootstrap of three PEs on this host: a
// process that has ended is found only where its number means the same process, i.e. in this
// PE's PID namespace (containers on one host share the hostname and boot id, not the
// namespace).
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>
#include "liveness.h"

namespace {

// How PE p's record differs from this PE's (PE 0's): its pid, and whether its namespace does.
struct Peer {
    pid_t pid;
    bool other_namespace;
};
Peer peers[3];

symcoll_status_t allgather(symcoll_bootstrap_t *b, const void *mine, void *all, size_t bytes) {
    for (int pe = 0; pe < b->size; pe++) {
        symcoll_liveness_record_t r;
        std::memcpy(&r, mine, sizeof r);
        if (pe != b->rank) {
            r.pid = peers[pe].pid;
            r.pid_ns_ino += peers[pe].other_namespace;
        }
        std::memcpy(static_cast<char *>(all) + pe * bytes, &r, bytes);
    }
    return SYMCOLL_SUCCESS;
}

pid_t ended_process() {
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status;
    waitpid(child, &status, 0);
    return child;
}

int first_gone_with(Peer pe1, Peer pe2) {
    peers[1] = pe1;
    peers[2] = pe2;
    symcoll_bootstrap_t boot{};
    boot.rank = 0;
    boot.size = 3;
    boot.allgather = allgather;
    const int same_host[3] = {1, 1, 1};
    EXPECT_EQ(symcoll_liveness_init(&boot, same_host), SYMCOLL_SUCCESS);
    int gone = symcoll_liveness_first_gone();
    symcoll_liveness_fini();
    return gone;
}

TEST(Liveness, AnEndedProcessInThisNamespaceIsFound) {
    pid_t ended = ended_process();
    EXPECT_EQ(first_gone_with({getpid(), false}, {ended, false}), 2);
    EXPECT_EQ(first_gone_with({getpid(), false}, {getpid(), false}), -1);
}

TEST(Liveness, ANumberFromAnotherNamespaceIsNotChecked) {
    pid_t ended = ended_process();
    EXPECT_EQ(first_gone_with({ended, true}, {getpid(), false}), -1)
        << "that number names another process, or none, in this namespace";
    EXPECT_EQ(first_gone_with({ended, true}, {ended, false}), 2);
}

} // namespace
