// The mini-apps' command lines: a flag or number they do not know ends them with their usage
// and status 2 before anything starts, instead of running the defaults in its place.
#include <gtest/gtest.h>

#include <string>

#include "program_run.h"

namespace {

void expect_refused(const char *program, const std::string &flags, const char *says) {
    ProgramResult r = run_program(std::string(program) + " " + flags);
    EXPECT_EQ(r.status, 2) << flags << ": " << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << flags << ": " << r.output;
    EXPECT_NE(r.output.find("usage:"), std::string::npos) << flags << ": " << r.output;
}

TEST(ExamplesCli, JacobiRefusesWhatItDoesNotKnow) {
    expect_refused(SYMCOLL_EXAMPLE_JACOBI, "-niters 10", "unknown argument '-niters'");
    expect_refused(SYMCOLL_EXAMPLE_JACOBI, "-nx 4k", "-nx '4k' is not a whole number");
    expect_refused(SYMCOLL_EXAMPLE_JACOBI, "-nx 64 -ny", "no value after '-ny'");
    expect_refused(SYMCOLL_EXAMPLE_JACOBI, "-nx 64 256", "unknown argument '256'");
    expect_refused(SYMCOLL_EXAMPLE_JACOBI, "-variant bogus",
                   "-variant 'bogus' is not one of host device nccl all");
}

// --help is an answer, not an error: the usage on stdout and status 0, before anything starts.
TEST(ExamplesCli, MiniAppsAnswerHelp) {
    for (const char *program :
         {SYMCOLL_EXAMPLE_JACOBI, SYMCOLL_EXAMPLE_HEAT3D, SYMCOLL_EXAMPLE_FUSED_MATMUL})
        for (const char *flag : {"--help", "-h"}) {
            ProgramResult r = run_program(std::string(program) + " " + flag);
            EXPECT_EQ(r.status, 0) << program << " " << flag << ": " << r.output;
            EXPECT_NE(r.output.find("usage:"), std::string::npos) << r.output;
        }
}

TEST(ExamplesCli, Heat3dRefusesWhatItDoesNotKnow) {
    expect_refused(SYMCOLL_EXAMPLE_HEAT3D, "-N 64", "unknown argument '-N'");
    expect_refused(SYMCOLL_EXAMPLE_HEAT3D, "-niter 1e3", "-niter '1e3' is not a whole number");
    expect_refused(SYMCOLL_EXAMPLE_HEAT3D, "-grid 1,1,2,2", "-grid '1,1,2,2' is not X,Y,Z");
    expect_refused(SYMCOLL_EXAMPLE_HEAT3D, "-csv -variant", "no value after '-variant'");
    expect_refused(SYMCOLL_EXAMPLE_HEAT3D, "-corners 2", "-corners '2' is not one of 0 1 both");
}

// n is bounded above too: beyond MM_MAX_N the float sums would no longer be exact.
TEST(ExamplesCli, FusedMatmulRefusesWhatItDoesNotKnow) {
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-N 300", "unknown argument '-N'");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-n 4k", "-n '4k' is not a whole number");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-n 300 -niter", "no value after '-niter'");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-n 0", "usage:");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-n 65537", "usage:");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-niter 0", "usage:");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-blocks 129", "usage:");
    expect_refused(SYMCOLL_EXAMPLE_FUSED_MATMUL, "-blocks -1", "usage:");
}

} // namespace
