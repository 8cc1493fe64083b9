// File-descriptor passing over abstract Unix sockets (src/ipc.h): the fetched descriptor
// refers to the served file, from a thread of this process and from another process.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc.h"
#include "rma_testing.h"

namespace {

constexpr int kTimeoutMs = 10000;

std::string fresh_name(int pe = 0) {
    uint64_t job = ((uint64_t)std::random_device{}() << 32) ^ std::random_device{}();
    char name[108];
    symcoll_ipc_name(job, pe, name, sizeof name);
    return name;
}

int new_memfd(const std::string &contents) {
    int fd = memfd_create("symcoll-ipc-test", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, 4096) != 0 ||
        pwrite(fd, contents.data(), contents.size(), 0) != (ssize_t)contents.size())
        return -1;
    return fd;
}

std::string read_at(int fd, off_t offset, size_t n) {
    std::string s(n, '\0');
    ssize_t got = pread(fd, s.data(), n, offset);
    s.resize(got > 0 ? (size_t)got : 0);
    return s;
}

bool write_at(int fd, off_t offset, const std::string &s) {
    return pwrite(fd, s.data(), s.size(), offset) == (ssize_t)s.size();
}

bool same_file(int a, int b) {
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

TEST(IpcName, IsUniquePerJobAndPe) {
    char a[108], b[108], c[108], d[108];
    symcoll_ipc_name(0x1234, 0, a, sizeof a);
    symcoll_ipc_name(0x1234, 0, b, sizeof b);
    symcoll_ipc_name(0x1235, 0, c, sizeof c);
    symcoll_ipc_name(0x1234, 1, d, sizeof d);
    EXPECT_STREQ(a, b);
    EXPECT_STRNE(a, c) << "different jobs";
    EXPECT_STRNE(a, d) << "different PEs";
    symcoll_ipc_name(~0ull, 63, a, sizeof a);
    EXPECT_LT(std::strlen(a), 100u) << "must fit a socket address";
}

TEST(Ipc, FetchFromAThreadOfThisProcess) {
    std::string name = fresh_name();
    int fd = new_memfd("from the server");
    ASSERT_GE(fd, 0);
    symcoll_ipc_server_t *server = nullptr;
    SYM_OK(symcoll_ipc_serve(name.c_str(), fd, 1, &server));
    int got = -1;
    SYM_OK(symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got));
    EXPECT_NE(got, fd) << "a new descriptor";
    EXPECT_TRUE(same_file(got, fd));
    EXPECT_EQ(read_at(got, 0, 15), "from the server");
    ASSERT_TRUE(write_at(got, 100, "from the client"));
    EXPECT_EQ(read_at(fd, 100, 15), "from the client");
    EXPECT_EQ(symcoll_ipc_serve_finish(server, kTimeoutMs), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    close(got);
    close(fd);
}

TEST(Ipc, ServesManyClientsAtOnce) {
    constexpr int kClients = 6;
    std::string name = fresh_name();
    int fd = new_memfd("");
    ASSERT_GE(fd, 0);
    symcoll_ipc_server_t *server = nullptr;
    SYM_OK(symcoll_ipc_serve(name.c_str(), fd, kClients, &server));
    std::vector<symcoll_status_t> status(kClients, SYMCOLL_ERROR_INTERNAL);
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; i++)
        clients.emplace_back([&, i] {
            int got = -1;
            status[i] = symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got);
            if (status[i] == SYMCOLL_SUCCESS && !write_at(got, i, std::string(1, (char)('a' + i))))
                status[i] = SYMCOLL_ERROR_SYSTEM;
            close(got);
        });
    for (std::thread &t : clients)
        t.join();
    for (int i = 0; i < kClients; i++)
        EXPECT_EQ(status[i], SYMCOLL_SUCCESS) << "client " << i;
    EXPECT_EQ(read_at(fd, 0, kClients), "abcdef");
    EXPECT_EQ(symcoll_ipc_serve_finish(server, kTimeoutMs), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    close(fd);
}

TEST(Ipc, PassesAPipe) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    std::string name = fresh_name();
    symcoll_ipc_server_t *server = nullptr;
    SYM_OK(symcoll_ipc_serve(name.c_str(), p[1], 1, &server));
    int got = -1;
    SYM_OK(symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got));
    ASSERT_EQ(write(got, "ping", 4), 4);
    char buf[4] = {};
    ASSERT_EQ(read(p[0], buf, 4), 4);
    EXPECT_EQ(std::string(buf, 4), "ping");
    EXPECT_EQ(symcoll_ipc_serve_finish(server, kTimeoutMs), SYMCOLL_SUCCESS)
        << symcoll_last_error();
    close(got);
    close(p[0]);
    close(p[1]);
}

// The child serves its own memfd; the parent fetches it, checks the child's text and writes a
// reply that the child checks through its own descriptor. The child's exit code says how it
// went: 0 fine, 2 serving failed, 3 wrong reply, 4 setup failed.
TEST(Ipc, FetchFromAnotherProcess) {
    std::string name = fresh_name(1);
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(go[1]);
        int fd = new_memfd("child " + std::to_string(getpid()));
        symcoll_ipc_server_t *server = nullptr;
        if (fd < 0 || symcoll_ipc_serve(name.c_str(), fd, 1, &server) != SYMCOLL_SUCCESS)
            _exit(4);
        if (symcoll_ipc_serve_finish(server, kTimeoutMs) != SYMCOLL_SUCCESS)
            _exit(2);
        char byte;
        if (read(go[0], &byte, 1) != 1)
            _exit(4);
        _exit(read_at(fd, 100, 5) == "reply" ? 0 : 3);
    }
    close(go[0]);
    int got = -1;
    symcoll_status_t st = symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got);
    EXPECT_EQ(st, SYMCOLL_SUCCESS) << symcoll_last_error();
    if (st == SYMCOLL_SUCCESS) {
        std::string want = "child " + std::to_string(child);
        EXPECT_EQ(read_at(got, 0, want.size()), want);
        EXPECT_TRUE(write_at(got, 100, "reply"));
        close(got);
    }
    EXPECT_EQ(write(go[1], "g", 1), 1);
    close(go[1]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "0 fine, 2 serving failed, 3 wrong reply, 4 setup";
}

TEST(Ipc, FetchOfAMissingNameFailsWithinTheTimeout) {
    std::string name = fresh_name();
    int got = 12345;
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(symcoll_ipc_fetch(name.c_str(), 300, &got), SYMCOLL_ERROR_SYSTEM);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(seconds, 0.29) << "gave up before the timeout";
    EXPECT_LT(seconds, 5.0) << "kept trying long after the timeout";
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find(name), std::string::npos) << why;
}

TEST(Ipc, ServeFinishTimesOutWhenPeersAreMissing) {
    std::string name = fresh_name();
    int fd = new_memfd("");
    ASSERT_GE(fd, 0);
    symcoll_ipc_server_t *server = nullptr;
    SYM_OK(symcoll_ipc_serve(name.c_str(), fd, 2, &server));
    int got = -1;
    SYM_OK(symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got));
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(symcoll_ipc_serve_finish(server, 200), SYMCOLL_ERROR_TIMEOUT);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 5.0);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find("1 of 2"), std::string::npos) << why;
    close(got);
    close(fd);
}

TEST(Ipc, ServeOnANameInUseFails) {
    std::string name = fresh_name();
    int fd = new_memfd("");
    ASSERT_GE(fd, 0);
    symcoll_ipc_server_t *first = nullptr, *second = nullptr;
    SYM_OK(symcoll_ipc_serve(name.c_str(), fd, 1, &first));
    EXPECT_EQ(symcoll_ipc_serve(name.c_str(), fd, 1, &second), SYMCOLL_ERROR_SYSTEM);
    EXPECT_EQ(second, nullptr);
    std::string why = symcoll_last_error();
    EXPECT_NE(why.find(name), std::string::npos) << why;
    int got = -1;
    SYM_OK(symcoll_ipc_fetch(name.c_str(), kTimeoutMs, &got));
    EXPECT_TRUE(same_file(got, fd));
    EXPECT_EQ(symcoll_ipc_serve_finish(first, kTimeoutMs), SYMCOLL_SUCCESS) << symcoll_last_error();
    close(got);
    close(fd);
}

} // namespace
