// The built symcoll-perf: --help, --explain (with SYMCOLL_TUNING_FILE), exit status 2 for bad
// flags, 77 without a GPU.
// tests/perf.cmake registers the no-GPU case apart, so that its skip on a GPU machine does not
// mark the others skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>

#include "program_run.h"

namespace {

using Result = ProgramResult;

Result run(const std::string &flags) {
    return run_program(std::string(SYMCOLL_PERF_EXE) + " " + flags);
}

TEST(PerfCli, Help) {
    Result r = run("--help");
    EXPECT_EQ(r.status, 0) << r.output;
    for (const char *flag :
         {"Usage", "--minbytes", "--stepfactor", "--cudagraph", "--compare", "--csv", "--plot",
          "--baseline", "--explain", "--topology-file", "--team", "ncclAllReduce", "ncclAllGather",
          "SYMCOLL_ALGO_REDUCE=ll|", "dev_barrier", "dev_pingpong", "ncclLsaBarrierSession",
          "dev_reduce, dev_broadcast, dev_fcollect, dev_alltoall"}) {
        EXPECT_NE(r.output.find(flag), std::string::npos) << flag;
    }
}

// alltoallv: its counts' flag and the NCCL calls it is timed beside.
TEST(PerfCli, HelpTellsAlltoallv) {
    std::string help = run("--help").output;
    EXPECT_NE(help.find("--skew uniform|S"), std::string::npos) << help;
    EXPECT_NE(help.find("ncclSend/ncclRecv"), std::string::npos) << help;
    EXPECT_NE(help.find("SYMCOLL_ALGO_ALLTOALLV=ll|push|pull"), std::string::npos) << help;
}

TEST(PerfCli, BadFlagsExitWithStatus2AndSayWhy) {
    const std::pair<const char *, const char *> cases[] = {
        {"--bogus", "--bogus"},
        {"-b 1M -e 1K", "larger"},
        {"-d float128", "float128"},
        {"--op allreduce_rs", "allreduce_rs"},
        {"-f 2 -i 8", "exclude"},
        {"-n", "missing value"},
        {"--baseline saved.csv --explain", "does not apply to --explain"},
        {"--op dev_barrier -G 10", "-G/--cudagraph does not apply"},
        {"--op dev_pingpong --mode graph", "--mode does not apply"},
        {"--op dev_reduce -d float64", "-d/--datatype does not apply to --op dev_<collective>"},
        {"--op dev_fcollect,fcollect", "apart from the other ops"},
        {"--op reduce --skew 1.1", "selects no alltoallv"},
    };
    for (const auto &c : cases) {
        Result r = run(c.first);
        EXPECT_EQ(r.status, 2) << c.first << ": " << r.output;
        EXPECT_NE(r.output.find(c.second), std::string::npos) << c.first << ": " << r.output;
        EXPECT_NE(r.output.find("--help"), std::string::npos) << r.output;
    }
}

TEST(PerfCli, ExplainNeedsNoGpu) {
    Result r = run("--explain --npes 4 --op allreduce -b 1K -e 1M -f 4");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("4 PEs"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1048576"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SYMCOLL_ALGO_BROADCAST=ll|"), std::string::npos) << r.output;

    r = run("--explain --topology-file /nonexistent/topology.txt");
    EXPECT_EQ(r.status, 2) << r.output;
}

// Writes text to a fresh temporary file; returns its path.
std::string temp_file(const char *text) {
    char path[] = "/tmp/symcoll_perf_cli_XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

TEST(PerfCli, ExplainSaysWhichRowsCameFromTheTuningFile) {
    std::string good = temp_file("symcoll-tuning 1\nsignature 2 nvlink\n"
                                 "reduce nvlink 2 4096 one_shot 8 256\n");
    std::string other = temp_file("symcoll-tuning 1\nsignature 8 nvlink\n");
    std::string bad = temp_file("symcoll-tuning 1\nsignature 2 nvlink\nreduce nvlink 2\n");

    setenv("SYMCOLL_TUNING_FILE", good.c_str(), 1);
    Result r = run("--explain --npes 2 --op reduce -b 1K -e 1M -f 1024");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("one_shot"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("tuning file " + good + " line 3"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("built-in table row"), std::string::npos) << r.output;

    setenv("SYMCOLL_TUNING_FILE", other.c_str(), 1);
    r = run("--explain --npes 2 --op reduce");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(other + ": measured on 8 PEs over nvlink, but this job has 2 PEs"),
              std::string::npos)
        << r.output;

    setenv("SYMCOLL_TUNING_FILE", bad.c_str(), 1);
    r = run("--explain --npes 2 --op reduce");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(bad + ":3: a row has 7 fields"), std::string::npos) << r.output;

    unsetenv("SYMCOLL_TUNING_FILE");
    for (const std::string &path : {good, other, bad}) {
        remove(path.c_str());
    }
}

TEST(PerfCli, SweepWithoutAGpuExits77) {
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
        GTEST_SKIP() << "this machine has a GPU";
    }
    Result r = run("--op barrier");
    EXPECT_EQ(r.status, 77) << r.output;
    EXPECT_NE(r.output.find("no GPU"), std::string::npos) << r.output;
}

} // namespace
