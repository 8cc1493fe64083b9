// Tests of symcoll-run, driving tests/launcher_child.c; they need no GPU.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <csignal>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "launcher_report.h"

extern char **environ;

namespace {

const char *const kLauncher = SYMCOLL_RUN_PATH;
const char *const kChild = LAUNCHER_CHILD_PATH;
// Far beyond any healthy run here; a launcher still running then is hung.
constexpr double kHungSeconds = 60;

double now_seconds() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct RunResult {
    int exit_code = -1000; // the launcher's exit status, or -signal if it was killed
    std::string out;
    std::string err;
    double seconds = 0;
};

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);)
        lines.push_back(line);
    return lines;
}

// A zombie counts as gone: whoever inherited it may be slow to reap it.
bool process_is_alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, command, state;
    if (!(stat >> pid_field >> command >> state))
        return false;
    return state != "Z" && state != "X";
}

// One symcoll-run process with its stdout and stderr captured.
class LauncherRun {
  public:
    explicit LauncherRun(const std::vector<std::string> &args,
                         const std::map<std::string, std::string> &env_overrides = {}) {
        std::vector<std::string> argv_storage{kLauncher};
        argv_storage.insert(argv_storage.end(), args.begin(), args.end());
        std::vector<std::string> env_storage;
        for (char **entry = environ; *entry != nullptr; entry++) {
            std::string var(*entry);
            if (env_overrides.count(var.substr(0, var.find('='))) == 0)
                env_storage.push_back(var);
        }
        for (const auto &[name, value] : env_overrides)
            env_storage.push_back(name + "=" + value);

        int out_pipe[2], err_pipe[2];
        EXPECT_EQ(pipe(out_pipe), 0);
        EXPECT_EQ(pipe(err_pipe), 0);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            posix_spawn_file_actions_addclose(&actions, fd);
        std::vector<char *> argv = pointers(argv_storage);
        std::vector<char *> envp = pointers(env_storage);
        start_ = now_seconds();
        int status = posix_spawn(&pid_, kLauncher, &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        EXPECT_EQ(status, 0) << "posix_spawn " << kLauncher << ": " << strerror(status);
        close(out_pipe[1]);
        close(err_pipe[1]);
        fds_[0] = out_pipe[0];
        fds_[1] = err_pipe[0];
    }

    LauncherRun(const LauncherRun &) = delete;
    LauncherRun &operator=(const LauncherRun &) = delete;

    ~LauncherRun() {
        if (!reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        for (int fd : fds_)
            if (fd >= 0)
                close(fd);
    }

    // Reads until stdout holds `count` lines; false if the output ended or time ran out.
    bool wait_for_stdout_lines(size_t count) {
        double deadline = now_seconds() + kHungSeconds;
        while (split_lines(result_.out).size() < count) {
            if (now_seconds() > deadline || !read_some(deadline))
                return false;
        }
        return true;
    }

    const std::string &stdout_so_far() const {
        return result_.out;
    }

    void send(int signal_number) {
        kill(pid_, signal_number);
    }

    // Leaves stdout unread, as a caller that stopped reading would: the pipe fills up.
    RunResult finish_without_reading_stdout() {
        int out_fd = fds_[0];
        fds_[0] = -1;
        RunResult result = finish();
        close(out_fd);
        return result;
    }

    RunResult finish() {
        double deadline = now_seconds() + kHungSeconds;
        while (read_some(deadline)) {
        }
        if (fds_[0] >= 0 || fds_[1] >= 0) {
            ADD_FAILURE() << "symcoll-run or its ranks still running after " << kHungSeconds
                          << " s";
            kill(pid_, SIGKILL);
        }
        int wait_status = 0;
        waitpid(pid_, &wait_status, 0);
        reaped_ = true;
        result_.seconds = now_seconds() - start_;
        result_.exit_code =
            WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -WTERMSIG(wait_status);
        return result_;
    }

  private:
    static std::vector<char *> pointers(std::vector<std::string> &strings) {
        std::vector<char *> result;
        for (std::string &s : strings)
            result.push_back(s.data());
        result.push_back(nullptr);
        return result;
    }

    // Reads what arrives before the deadline; false once both pipes ended or time ran out.
    bool read_some(double deadline) {
        pollfd fds[2] = {{fds_[0], POLLIN, 0}, {fds_[1], POLLIN, 0}};
        if (fds_[0] < 0 && fds_[1] < 0)
            return false;
        double left_ms = (deadline - now_seconds()) * 1e3;
        if (left_ms <= 0)
            return false;
        int ready = poll(fds, 2, static_cast<int>(left_ms));
        if (ready < 0)
            return errno == EINTR;
        if (ready == 0)
            return false;
        std::string *sinks[2] = {&result_.out, &result_.err};
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            char chunk[4096];
            ssize_t got = read(fds_[i], chunk, sizeof chunk);
            if (got > 0) {
                sinks[i]->append(chunk, static_cast<size_t>(got));
            } else {
                close(fds_[i]);
                fds_[i] = -1;
            }
        }
        return true;
    }

    pid_t pid_ = -1;
    int fds_[2] = {-1, -1};
    bool reaped_ = false;
    double start_ = 0;
    RunResult result_;
};

RunResult run_launcher(const std::vector<std::string> &args,
                       const std::map<std::string, std::string> &env_overrides = {}) {
    return LauncherRun(args, env_overrides).finish();
}

// The pids that `launcher_child print-pid` printed on stdout, by rank.
std::map<int, pid_t> printed_pids(const std::string &out) {
    std::map<int, pid_t> pids;
    for (const std::string &line : split_lines(out)) {
        int rank, pid;
        if (sscanf(line.c_str(), "pid %d %d", &rank, &pid) == 2)
            pids[rank] = pid;
    }
    return pids;
}

// A rank killed with the launcher may still be exiting when its pipes close.
void expect_all_gone(const std::map<int, pid_t> &pids) {
    double deadline = now_seconds() + 5;
    for (const auto &[rank, pid] : pids) {
        while (process_is_alive(pid) && now_seconds() < deadline)
            usleep(10000);
        EXPECT_FALSE(process_is_alive(pid)) << "rank " << rank << " (pid " << pid << ") survived";
    }
}

// Lines tagged "[rank] ", without the tag, by rank; untagged lines under -1.
std::map<int, std::vector<std::string>> lines_by_rank(const std::string &text) {
    std::map<int, std::vector<std::string>> by_rank;
    for (const std::string &line : split_lines(text)) {
        int rank, tag_len = 0;
        if (sscanf(line.c_str(), "[%d] %n", &rank, &tag_len) == 1 && tag_len > 0)
            by_rank[rank].push_back(line.substr(static_cast<size_t>(tag_len)));
        else
            by_rank[-1].push_back(line);
    }
    return by_rank;
}

bool is_lowercase_hex(const std::string &text) {
    return text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(Launcher, EveryRankPassingExitsZero) {
    RunResult run = run_launcher({"-n", "3", kChild, "exit", "0"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(Launcher, FailingRankStopsTheOthersAndGivesItsStatus) {
    // The second lets every rank print its pid before rank 1 fails.
    RunResult run = run_launcher(
        {"-n", "3", kChild, "print-pid", "sleep", "1", "exit-on", "1", "3", "sleep", "60"});
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_LT(run.seconds, 10);
    EXPECT_NE(run.err.find("rank 1 exited with status 3"), std::string::npos) << run.err;
    std::map<int, pid_t> pids = printed_pids(run.out);
    EXPECT_EQ(pids.size(), 3u) << run.out;
    expect_all_gone(pids);
}

TEST(Launcher, RankIgnoringSigtermIsKilledAfterTheGrace) {
    // The second lets rank 0 ignore SIGTERM before rank 1 fails.
    RunResult run = run_launcher({"-n", "2", kChild, "ignore-sigterm", "print-pid", "sleep", "1",
                                  "exit-on", "1", "5", "sleep", "60"});
    EXPECT_EQ(run.exit_code, 5) << run.err;
    EXPECT_GE(run.seconds, 3.5);
    EXPECT_LT(run.seconds, 15);
    std::map<int, pid_t> pids = printed_pids(run.out);
    EXPECT_EQ(pids.size(), 2u) << run.out;
    expect_all_gone(pids);
}

TEST(Launcher, EveryRankSkippedExits77) {
    RunResult run = run_launcher({"-n", "2", kChild, "exit", "77"});
    EXPECT_EQ(run.exit_code, 77) << run.err;
}

TEST(Launcher, SkippedAndPassedRanksExitZero) {
    RunResult run = run_launcher({"-n", "3", kChild, "exit-on", "1", "77"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(Launcher, FailureWinsOverSkipped) {
    RunResult run = run_launcher({"-n", "2", kChild, "exit-on", "0", "77", "exit", "4"});
    EXPECT_EQ(run.exit_code, 4) << run.err;
}

TEST(Launcher, RankKilledBySignalGives128PlusSignal) {
    RunResult run =
        run_launcher({"-n", "2", kChild, "signal-on", "1", std::to_string(SIGUSR1), "sleep", "60"});
    EXPECT_EQ(run.exit_code, 128 + SIGUSR1) << run.err;
    EXPECT_LT(run.seconds, 10);
    EXPECT_NE(run.err.find("rank 1 killed by signal " + std::to_string(SIGUSR1)), std::string::npos)
        << run.err;
}

TEST(Launcher, RankEndingWithoutFinalizeFailsAndStopsTheOthers) {
    RunResult run =
        run_launcher({"-n", "2", kChild, "report", "init", "exit-on", "1", "0", "sleep", "60"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_LT(run.seconds, 10);
    EXPECT_NE(run.err.find("rank 1 exited with status 0 without calling symcoll_finalize while "
                           "rank 0 still runs\n"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("stopping the other ranks"), std::string::npos) << run.err;
}

// symcoll_init may run again after symcoll_finalize; the rank then owes another finalize.
TEST(Launcher, ReinitializedRankEndingWithoutFinalizeFails) {
    RunResult run = run_launcher({"-n", "2", kChild, "report", "init", "report", "finalize",
                                  "report", "init", "exit-on", "1", "0", "sleep", "5"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("rank 1 exited with status 0 without calling symcoll_finalize"),
              std::string::npos)
        << run.err;
}

TEST(Launcher, KeepGoingLetsTheOthersFinish) {
    RunResult run = run_launcher({"--keep-going", "-n", "2", kChild, "report", "init", "exit-on",
                                  "1", "0", "sleep", "1", "report", "finalize", "print-pid"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_GE(run.seconds, 0.9);
    EXPECT_NE(run.err.find("rank 1 exited with status 0 without calling symcoll_finalize"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("stopping"), std::string::npos) << run.err;
    EXPECT_EQ(printed_pids(run.out).count(0), 1u) << run.out;
}

TEST(Launcher, KeepGoingStillReportsAKilledRank) {
    RunResult run = run_launcher({"--keep-going", "-n", "2", kChild, "signal-on", "1",
                                  std::to_string(SIGUSR1), "sleep", "1", "print-pid"});
    EXPECT_EQ(run.exit_code, 128 + SIGUSR1) << run.err;
    EXPECT_NE(run.err.find("rank 1 killed by signal " + std::to_string(SIGUSR1)), std::string::npos)
        << run.err;
    EXPECT_EQ(printed_pids(run.out).count(0), 1u) << run.out;
}

TEST(Launcher, RankEndingAfterFinalizeIsNoFailure) {
    RunResult run = run_launcher({"-n", "2", kChild, "report", "init", "report", "finalize",
                                  "exit-on", "1", "0", "sleep", "1"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("without calling"), std::string::npos) << run.err;
}

TEST(Launcher, TimeoutKillsTheRanksAndExits124) {
    RunResult run = run_launcher({"--timeout", "1", "-n", "2", kChild, "print-pid", "sleep", "60"});
    EXPECT_EQ(run.exit_code, 124) << run.err;
    EXPECT_GE(run.seconds, 0.9);
    EXPECT_LT(run.seconds, 10);
    EXPECT_NE(run.err.find("ranks still running: 0 1\n"), std::string::npos) << run.err;
    expect_all_gone(printed_pids(run.out));
}

// Rank 1 ignores SIGTERM, so the launcher is still stopping it after rank 0's failure when the
// timeout passes; the failure's status stands.
TEST(Launcher, FailureDuringTheGraceKeepsItsStatusPastTheTimeout) {
    RunResult run = run_launcher({"--timeout", "2", "-n", "2", kChild, "ignore-sigterm", "sleep",
                                  "1", "exit-on", "0", "3", "sleep", "10"});
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_EQ(run.err.find("timed out"), std::string::npos) << run.err;
}

TEST(Launcher, TimeoutNotReachedChangesNothing) {
    RunResult run = run_launcher({"--timeout", "30", "-n", "2", kChild, "exit", "77"});
    EXPECT_EQ(run.exit_code, 77) << run.err;
    EXPECT_LT(run.seconds, 10);
}

// The launcher, sent signal_number while two ranks sleep, ends them both and exits as if
// killed by that signal.
void expect_signal_forwarded(int signal_number) {
    LauncherRun launcher({"-n", "2", kChild, "print-pid", "sleep", "60"});
    ASSERT_TRUE(launcher.wait_for_stdout_lines(2));
    launcher.send(signal_number);
    RunResult run = launcher.finish();
    EXPECT_EQ(run.exit_code, 128 + signal_number) << run.err;
    EXPECT_LT(run.seconds, 10);
    std::map<int, pid_t> pids = printed_pids(run.out);
    EXPECT_EQ(pids.size(), 2u) << run.out;
    expect_all_gone(pids);
}

TEST(Launcher, ForwardsSigtermToTheRanks) {
    expect_signal_forwarded(SIGTERM);
}

TEST(Launcher, ForwardsSigintToTheRanks) {
    expect_signal_forwarded(SIGINT);
}

TEST(Launcher, RanksDieWithAKilledLauncher) {
    LauncherRun launcher({"-n", "2", kChild, "print-pid", "sleep", "60"});
    ASSERT_TRUE(launcher.wait_for_stdout_lines(2));
    launcher.send(SIGKILL);
    // The ranks share the launcher's stdout, so this also waits for them to end.
    RunResult run = launcher.finish();
    EXPECT_EQ(run.exit_code, -SIGKILL);
    EXPECT_LT(run.seconds, 10);
    expect_all_gone(printed_pids(run.out));
}

// Every rank leaves a process in its group that ignores SIGTERM; none may outlive the launcher.
void expect_leftovers_killed(const std::vector<std::string> &options,
                             const std::vector<std::string> &rank_actions, int exit_code) {
    std::vector<std::string> args = options;
    args.insert(args.end(), {"-n", "2", kChild, "fork-sleeper", "60"});
    args.insert(args.end(), rank_actions.begin(), rank_actions.end());
    RunResult run = run_launcher(args);
    EXPECT_EQ(run.exit_code, exit_code) << run.err;
    std::map<int, pid_t> pids = printed_pids(run.out);
    EXPECT_EQ(pids.size(), 2u) << run.out;
    expect_all_gone(pids);
}

TEST(Launcher, KillsWhatPassingRanksLeaveInTheirGroups) {
    expect_leftovers_killed({}, {}, 0);
}

TEST(Launcher, KillsWhatStoppedRanksLeaveInTheirGroups) {
    expect_leftovers_killed({}, {"sleep", "1", "exit-on", "0", "3", "sleep", "60"}, 3);
}

// Rank 0 ends at once and leaves its sleeper; the time-out stops the run long after.
TEST(Launcher, KillsWhatAnEndedRankLeftWhenTheRunTimesOut) {
    expect_leftovers_killed({"--timeout", "2"}, {"exit-on", "0", "0", "sleep", "60"}, 124);
}

// Exit statuses of run_in_pid_namespace's scenarios.
enum ScenarioResult {
    kScenarioPassed,
    kScenarioSetupFailed,
    kInnocentGroupKilled,
    kRankLeftUnreaped,
    kNoNamespace = 77,
};

// Runs scenario as the first process of a new PID namespace, inside a new user namespace so
// that it may choose the next pid (ns_last_pid) without privileges; its processes are alone
// there. Returns its exit status.
int run_in_pid_namespace(int (*scenario)()) {
    pid_t helper = fork();
    if (helper == 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
            _exit(kNoNamespace);
        pid_t init = fork();
        if (init == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            _exit(scenario());
        }
        int wait_status = 0;
        if (init < 0 || waitpid(init, &wait_status, 0) != init || !WIFEXITED(wait_status))
            _exit(kScenarioSetupFailed);
        _exit(WEXITSTATUS(wait_status));
    }
    if (helper < 0)
        return kScenarioSetupFailed;
    double deadline = now_seconds() + kHungSeconds;
    int wait_status = 0;
    while (waitpid(helper, &wait_status, WNOHANG) == 0) {
        if (now_seconds() > deadline) {
            kill(helper, SIGKILL);
            waitpid(helper, &wait_status, 0);
            return kScenarioSetupFailed;
        }
        usleep(10000);
    }
    return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : kScenarioSetupFailed;
}

// A zombie holds its pid too.
bool pid_in_use(pid_t pid) {
    return kill(pid, 0) == 0 || errno == EPERM;
}

// Makes the next process of this PID namespace get pid, if free.
bool choose_next_pid(pid_t pid) {
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    std::string last = std::to_string(pid - 1);
    bool written = write(fd, last.data(), last.size()) == static_cast<ssize_t>(last.size());
    close(fd);
    return written;
}

// Starts a process in a group of its own whose id is the pid that rank 0 had, unless rank 0
// still holds it, and checks that the launcher spares that group and leaves no rank unreaped.
int reused_group_scenario() {
    LauncherRun launcher({"-n", "2", kChild, "print-pid", "exit-on", "0", "0", "sleep", "2"});
    if (!launcher.wait_for_stdout_lines(2))
        return kScenarioSetupFailed;
    std::map<int, pid_t> pids = printed_pids(launcher.stdout_so_far());
    double deadline = now_seconds() + 0.5;
    while (pid_in_use(pids[0]) && now_seconds() < deadline)
        usleep(1000);
    if (!choose_next_pid(pids[0]))
        return kScenarioSetupFailed;
    pid_t innocent = fork();
    if (innocent == 0) {
        setpgid(0, 0);
        pause();
        _exit(0);
    }
    setpgid(innocent, innocent);
    launcher.finish();
    bool spared = waitpid(innocent, nullptr, WNOHANG) == 0;
    kill(innocent, SIGKILL);
    waitpid(innocent, nullptr, 0);
    if (!spared)
        return kInnocentGroupKilled;
    for (const auto &[rank, pid] : pids)
        if (waitpid(pid, nullptr, WNOHANG) == pid)
            return kRankLeftUnreaped;
    return kScenarioPassed;
}

// A group id is free for reuse once its leader is reaped and its members are gone; the
// launcher must not signal a group after it reaped the leader.
TEST(Launcher, SignalsNoGroupWhoseRankItReaped) {
    int result = run_in_pid_namespace(reused_group_scenario);
    if (result == kNoNamespace)
        GTEST_SKIP() << "no user and PID namespaces here";
    EXPECT_NE(result, kInnocentGroupKilled)
        << "the launcher killed a group that reused a rank's id";
    EXPECT_NE(result, kRankLeftUnreaped) << "the launcher left a rank unreaped";
    EXPECT_EQ(result, kScenarioPassed);
}

// Ignores the given signals while it lives, as `trap '' SIG` does for a shell's commands.
class IgnoredSignals {
  public:
    explicit IgnoredSignals(const std::vector<int> &signals) {
        struct sigaction ignore = {};
        ignore.sa_handler = SIG_IGN;
        for (int signal_number : signals) {
            struct sigaction old_action;
            sigaction(signal_number, &ignore, &old_action);
            saved_.emplace_back(signal_number, old_action);
        }
    }
    IgnoredSignals(const IgnoredSignals &) = delete;
    IgnoredSignals &operator=(const IgnoredSignals &) = delete;
    ~IgnoredSignals() {
        for (const auto &[signal_number, old_action] : saved_)
            sigaction(signal_number, &old_action, nullptr);
    }

  private:
    std::vector<std::pair<int, struct sigaction>> saved_;
};

// The "ignored RANK SIG" lines `launcher_child print-ignored` would print in this process.
std::string ignored_here(int rank) {
    std::string lines;
    for (int signal_number = 1; signal_number < SIGRTMIN; signal_number++) {
        struct sigaction action;
        if (sigaction(signal_number, nullptr, &action) == 0 && action.sa_handler == SIG_IGN)
            lines += "ignored " + std::to_string(rank) + " " + std::to_string(signal_number) + "\n";
    }
    return lines;
}

// The ranks ignore what the launcher's caller ignores, and no signal the launcher itself
// catches or ignores.
void expect_ranks_ignore_what_the_caller_ignores() {
    RunResult run = run_launcher({"-n", "1", kChild, "print-ignored"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, ignored_here(0));
}

TEST(Launcher, RanksIgnoreNoSignalTheCallerCatches) {
    expect_ranks_ignore_what_the_caller_ignores();
}

TEST(Launcher, RanksIgnoreTheSignalsTheCallerIgnores) {
    IgnoredSignals ignored({SIGINT, SIGTERM, SIGPIPE, SIGCHLD});
    expect_ranks_ignore_what_the_caller_ignores();
}

// The bootstrap lines of every rank: exactly one of SYMCOLL_UNIQUEID and
// SYMCOLL_BOOTSTRAP_SOCKET, the same on every rank; returns the one that is set.
std::string expect_one_bootstrap(const std::map<int, std::vector<std::string>> &by_rank, int size) {
    std::string first;
    for (int rank = 0; rank < size; rank++) {
        const std::vector<std::string> &lines = by_rank.at(rank);
        EXPECT_EQ(lines.size(), 7u);
        if (lines.size() != 7u)
            return "";
        bool uniqueid = lines[5] != "SYMCOLL_UNIQUEID unset";
        bool socket = lines[6] != "SYMCOLL_BOOTSTRAP_SOCKET unset";
        EXPECT_NE(uniqueid, socket) << lines[5] << " / " << lines[6];
        const std::string &set = uniqueid ? lines[5] : lines[6];
        if (rank == 0)
            first = set;
        EXPECT_EQ(set, first) << "every rank must get the same bootstrap";
    }
    const std::string prefix = "SYMCOLL_UNIQUEID=";
    if (first.compare(0, prefix.size(), prefix) == 0) {
        std::string hex = first.substr(prefix.size());
        EXPECT_EQ(hex.size(), 256u) << hex;
        EXPECT_TRUE(is_lowercase_hex(hex)) << hex;
    }
    return first;
}

// Stale launch variables in the launcher's environment must not reach the ranks.
TEST(Launcher, SetsTheLaunchVariablesOfEveryRank) {
    const int size = 3;
    RunResult run = run_launcher({"--tag-output", "-n", std::to_string(size), kChild, "print-env"},
                                 {{"SYMCOLL_RANK", "99"},
                                  {"SYMCOLL_NODE_ID", "7"},
                                  {"SYMCOLL_UNIQUEID", "stale"},
                                  {"SYMCOLL_BOOTSTRAP_SOCKET", "stale"}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int, std::vector<std::string>> by_rank = lines_by_rank(run.out);
    EXPECT_EQ(by_rank.count(-1), 0u) << run.out;
    for (int rank = 0; rank < size; rank++) {
        const std::vector<std::string> &lines = by_rank[rank];
        ASSERT_EQ(lines.size(), 7u) << run.out;
        EXPECT_EQ(lines[0], "SYMCOLL_RANK=" + std::to_string(rank));
        EXPECT_EQ(lines[1], "SYMCOLL_SIZE=" + std::to_string(size));
        EXPECT_EQ(lines[2], "SYMCOLL_LOCAL_RANK=" + std::to_string(rank));
        EXPECT_EQ(lines[3], "SYMCOLL_LOCAL_SIZE=" + std::to_string(size));
        EXPECT_EQ(lines[4], "SYMCOLL_NODE_ID unset"); // no --nodes: the host is the node
    }
    std::string set = expect_one_bootstrap(by_rank, size);
    EXPECT_EQ(set.find("stale"), std::string::npos) << set;
}

// --nodes K: contiguous blocks of ranks, as equal as they can be, each its own node; the local
// rank and size stay the host's (the simulated nodes share its GPUs).
TEST(Launcher, SplitsTheRanksIntoSimulatedNodes) {
    const int size = 5;
    RunResult run = run_launcher(
        {"--tag-output", "-n", std::to_string(size), "--nodes", "2", kChild, "print-env"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int, std::vector<std::string>> by_rank = lines_by_rank(run.out);
    const int node_of[size] = {0, 0, 0, 1, 1};
    for (int rank = 0; rank < size; rank++) {
        const std::vector<std::string> &lines = by_rank[rank];
        ASSERT_EQ(lines.size(), 7u) << run.out;
        EXPECT_EQ(lines[2], "SYMCOLL_LOCAL_RANK=" + std::to_string(rank));
        EXPECT_EQ(lines[4], "SYMCOLL_NODE_ID=" + std::to_string(node_of[rank]));
    }
}

TEST(Launcher, RefusesMoreNodesThanPesAndANodeCountThatIsNone) {
    RunResult more = run_launcher({"-n", "2", "--nodes", "3", kChild, "print-env"});
    EXPECT_EQ(more.exit_code, 2);
    EXPECT_NE(more.err.find("--nodes 3 needs at least 3 PEs, not 2"), std::string::npos)
        << more.err;
    for (const char *bad : {"0", "two", "-1"}) {
        RunResult run = run_launcher({"--nodes", bad, kChild, "print-env"});
        EXPECT_EQ(run.exit_code, 2) << bad;
        EXPECT_NE(run.err.find("is not a node count"), std::string::npos) << run.err;
    }
}

// PEs that outnumber the GPUs (here none is visible, counted as one) share a GPU, which NCCL
// refuses: they get the socket bootstrap, as they do when it is asked for.
TEST(Launcher, GivesPesThatShareAGpuTheSocketBootstrap) {
    for (std::vector<std::string> choice :
         {std::vector<std::string>{}, std::vector<std::string>{"--bootstrap", "socket"}}) {
        std::vector<std::string> args = {"--tag-output"};
        args.insert(args.end(), choice.begin(), choice.end());
        args.insert(args.end(), {"-n", "2", kChild, "print-env"});
        RunResult run = run_launcher(args, {{"CUDA_VISIBLE_DEVICES", ""}});
        ASSERT_EQ(run.exit_code, 0) << run.err;
        std::string set = expect_one_bootstrap(lines_by_rank(run.out), 2);
        EXPECT_EQ(set.rfind("SYMCOLL_BOOTSTRAP_SOCKET=symcoll-run.", 0), 0u) << set;
    }
}

TEST(Launcher, RefusesAnUnknownBootstrap) {
    RunResult run = run_launcher({"--bootstrap", "tcp", kChild, "print-env"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("--bootstrap: 'tcp' is not auto, nccl or socket"), std::string::npos)
        << run.err;
}

// Holds a descriptor that is not close-on-exec while it lives, as a careless caller (or
// the NCCL bootstrap root listener of the launcher itself) would.
class InheritableFd {
  public:
    InheritableFd() : fd_(open("/dev/null", O_RDONLY)) {
        EXPECT_GE(fd_, 0) << strerror(errno);
    }
    InheritableFd(const InheritableFd &) = delete;
    InheritableFd &operator=(const InheritableFd &) = delete;
    ~InheritableFd() {
        close(fd_);
    }

  private:
    int fd_;
};

// A descriptor a rank inherits keeps what it names alive as long as any of the rank's
// descendants runs, such as the port of the NCCL bootstrap root.
TEST(Launcher, RanksInheritOnlyTheStandardStreamsAndTheStatusPipe) {
    InheritableFd leaked;
    RunResult run = run_launcher({"-n", "1", kChild, "print-fds"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::set<int> fds;
    int status_fd = -1;
    for (const std::string &line : split_lines(run.out)) {
        int fd;
        if (sscanf(line.c_str(), "fd %d", &fd) == 1)
            fds.insert(fd);
        else
            EXPECT_EQ(sscanf(line.c_str(), "status-fd %d", &status_fd), 1) << line;
    }
    EXPECT_EQ(fds, (std::set<int>{0, 1, 2, status_fd})) << run.out;
}

TEST(Launcher, WithoutNRunsOneRankPerLocalGpuOrOne) {
    RunResult run = run_launcher({"--tag-output", kChild, "print-env"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int, std::vector<std::string>> by_rank = lines_by_rank(run.out);
    ASSERT_FALSE(by_rank[0].size() < 2) << run.out;
    int size = 0;
    ASSERT_EQ(sscanf(by_rank[0][1].c_str(), "SYMCOLL_SIZE=%d", &size), 1) << run.out;
    EXPECT_GE(size, 1);
    by_rank.erase(-1);
    EXPECT_EQ(by_rank.size(), static_cast<size_t>(size)) << run.out;
}

// A caller that stops reading the launcher's stdout must not stop its supervision.
TEST(Launcher, TimesOutWhileNobodyReadsItsTaggedOutput) {
    LauncherRun launcher({"-n", "2", "--tag-output", "--timeout", "2", kChild, "flood"});
    RunResult run = launcher.finish_without_reading_stdout();
    EXPECT_EQ(run.exit_code, 124) << run.err;
    EXPECT_LT(run.seconds, 10);
}

TEST(Launcher, ForwardsSigtermWhileNobodyReadsItsTaggedOutput) {
    LauncherRun launcher({"-n", "2", "--tag-output", kChild, "flood"});
    usleep(500000);
    launcher.send(SIGTERM);
    RunResult run = launcher.finish_without_reading_stdout();
    EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
    EXPECT_LT(run.seconds, 10);
}

// The ranks' output waits for a reader that comes late, every line of it whole.
TEST(Launcher, TagOutputKeepsEveryLineForALateReader) {
    const int n_lines = 100000;
    LauncherRun launcher({"-n", "2", "--tag-output", "seq", std::to_string(n_lines)});
    usleep(1500000);
    RunResult run = launcher.finish();
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> expected;
    for (int line = 1; line <= n_lines; line++)
        expected.push_back(std::to_string(line));
    std::map<int, std::vector<std::string>> out = lines_by_rank(run.out);
    EXPECT_EQ(out.count(-1), 0u);
    for (int rank = 0; rank < 2; rank++)
        EXPECT_TRUE(out[rank] == expected)
            << "rank " << rank << ": " << out[rank].size() << " lines";
}

TEST(Launcher, TagOutputPrefixesEveryLineWithItsRank) {
    RunResult run = run_launcher({"--tag-output", "-n", "2", kChild, "print-lines"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int, std::vector<std::string>> out = lines_by_rank(run.out);
    std::map<int, std::vector<std::string>> err = lines_by_rank(run.err);
    EXPECT_EQ(out.count(-1), 0u) << run.out;
    EXPECT_EQ(err.count(-1), 0u) << run.err;
    for (int rank = 0; rank < 2; rank++) {
        EXPECT_EQ(out[rank], (std::vector<std::string>{"out line 1", "out line 2", "partial-out"}))
            << run.out;
        EXPECT_EQ(err[rank], (std::vector<std::string>{"err line 1", "partial-err"})) << run.err;
    }
    EXPECT_EQ(run.out.back(), '\n');
    EXPECT_EQ(run.err.back(), '\n');
}

TEST(Launcher, WithoutTagOutputPassesOutputThrough) {
    RunResult run = run_launcher({"-n", "1", kChild, "print-lines"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "out line 1\nout line 2\npartial-out");
    EXPECT_NE(run.err.find("err line 1\npartial-err"), std::string::npos) << run.err;
}

TEST(Launcher, OptionsEndAtTheProgram) {
    RunResult run = run_launcher({"-n", "1", kChild, "print-args", "--tag-output", "-n", "5"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "arg --tag-output\narg -n\narg 5\n");
}

TEST(Launcher, ProgramNotFoundExits127) {
    RunResult run = run_launcher({"-n", "2", "/nonexistent/symcoll-program"});
    EXPECT_EQ(run.exit_code, 127) << run.err;
    EXPECT_NE(run.err.find("cannot run '/nonexistent/symcoll-program'"), std::string::npos)
        << run.err;
}

TEST(Launcher, HelpPrintsUsage) {
    for (const char *flag : {"-h", "--help"}) {
        RunResult run = run_launcher({flag});
        EXPECT_EQ(run.exit_code, 0) << flag;
        EXPECT_EQ(run.out.rfind("Usage: symcoll-run", 0), 0u) << run.out;
    }
}

// mpirun's habit: "-np N" is the PE count, not "-n p".
TEST(Launcher, TakesMpirunsNp) {
    RunResult run = run_launcher({"--tag-output", "-np", "3", kChild, "print-env"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int, std::vector<std::string>> by_rank = lines_by_rank(run.out);
    ASSERT_EQ(by_rank.size(), 3u) << run.out;
    EXPECT_EQ(by_rank[2][1], "SYMCOLL_SIZE=3");
    RunResult bad = run_launcher({"-np", "x", kChild, "exit", "0"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("-n: 'x' is not a PE count"), std::string::npos) << bad.err;
}

TEST(Launcher, RefusesMorePesThanSymcollSupports) {
    RunResult run = run_launcher({"-n", "65", kChild, "exit", "0"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find("-n: '65' is not a PE count from 1 to 64"), std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("at most 64 PEs"), std::string::npos) << run.err;
    EXPECT_EQ(run_launcher({"-n", "64", kChild, "exit", "0"}).exit_code, 0);
}

// A letter inside a group is parsed after the argument before it, here a long option.
TEST(Launcher, NamesTheUnknownLetterOfAShortOptionGroup) {
    RunResult run = run_launcher({"--keep-going", "-zx", kChild});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err.rfind("symcoll-run: unknown option '-z'\n", 0), 0u) << run.err;
}

class LauncherBadCommandLine : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(LauncherBadCommandLine, ExitsTwoAndSaysWhy) {
    std::vector<std::string> args = GetParam();
    for (std::string &arg : args)
        if (arg == "CHILD")
            arg = kChild;
    RunResult run = run_launcher(args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err.rfind("symcoll-run: ", 0), 0u) << run.err;
    EXPECT_EQ(run.err.find('\0'), std::string::npos) << run.err;
    if (!args.empty() && args[0].rfind("--", 0) == 0) {
        std::string option = args[0].substr(0, args[0].find('='));
        EXPECT_NE(run.err.substr(0, run.err.find('\n')).find(option), std::string::npos) << run.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Launcher, LauncherBadCommandLine,
                         ::testing::Values(std::vector<std::string>{"--bogus", "CHILD"},
                                           std::vector<std::string>{"--bogus=1", "CHILD"},
                                           std::vector<std::string>{"--tag-output=1", "CHILD"},
                                           std::vector<std::string>{"--help=x", "CHILD"},
                                           std::vector<std::string>{"-z", "CHILD"},
                                           std::vector<std::string>{"-n", "0", "CHILD"},
                                           std::vector<std::string>{"-n", "-2", "CHILD"},
                                           std::vector<std::string>{"-n", "abc", "CHILD"},
                                           std::vector<std::string>{"-n", "100000", "CHILD"},
                                           std::vector<std::string>{"-n"},
                                           std::vector<std::string>{"--timeout", "-1", "CHILD"},
                                           std::vector<std::string>{"--timeout", "0", "CHILD"},
                                           std::vector<std::string>{"--timeout", "soon", "CHILD"},
                                           std::vector<std::string>{"--timeout"},
                                           std::vector<std::string>{},
                                           std::vector<std::string>{"-n", "2"}));

// Sets SYMCOLL_* variables for this process while it lives; the settings are reloaded both ways.
class LaunchVariables {
  public:
    explicit LaunchVariables(const std::map<std::string, std::string> &values) {
        for (const auto &[name, value] : values) {
            const char *old = getenv(name.c_str());
            saved_.emplace_back(name,
                                old != nullptr ? std::optional<std::string>(old) : std::nullopt);
            setenv(name.c_str(), value.c_str(), 1);
        }
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }
    LaunchVariables(const LaunchVariables &) = delete;
    LaunchVariables &operator=(const LaunchVariables &) = delete;
    ~LaunchVariables() {
        for (const auto &[name, old] : saved_) {
            if (old)
                setenv(name.c_str(), old->c_str(), 1);
            else
                unsetenv(name.c_str());
        }
        EXPECT_EQ(symcoll_env_load(), SYMCOLL_SUCCESS) << symcoll_last_error();
    }

  private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::string inode_of(int fd) {
    struct stat st;
    EXPECT_EQ(fstat(fd, &st), 0) << strerror(errno);
    return std::to_string(st.st_ino);
}

// What symcoll_launcher_report("init") writes with SYMCOLL_LAUNCHER_FD=fd and the given inode.
std::map<std::string, std::string> report_variables(int fd, const std::string &inode) {
    return {{"SYMCOLL_RANK", "0"},
            {"SYMCOLL_SIZE", "1"},
            {"SYMCOLL_LAUNCHER_FD", std::to_string(fd)},
            {"SYMCOLL_LAUNCHER_FD_INODE", inode}};
}

TEST(LauncherReport, WritesIntoThePipeOfTheAdvertisedInode) {
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
    {
        LaunchVariables variables(report_variables(fds[1], inode_of(fds[1])));
        symcoll_launcher_report("init");
    }
    char text[64] = {};
    EXPECT_EQ(read(fds[0], text, sizeof text - 1), 7);
    EXPECT_STREQ(text, "0 init\n");
    close(fds[0]);
    close(fds[1]);
}

// A rank's descendants inherit the variables but maybe not the pipe, and the number may name
// an unrelated file there.
TEST(LauncherReport, LeavesAnUnrelatedDescriptorAlone) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    FILE *unrelated = tmpfile();
    ASSERT_NE(unrelated, nullptr);
    int fd = fileno(unrelated);
    for (const std::string &inode : {inode_of(pipe_fds[1]), inode_of(fd), std::string("0")}) {
        LaunchVariables variables(report_variables(fd, inode));
        symcoll_launcher_report("init");
        EXPECT_EQ(lseek(fd, 0, SEEK_END), 0) << "SYMCOLL_LAUNCHER_FD_INODE=" << inode;
    }
    fclose(unrelated);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

} // namespace
