// symcoll-perf --baseline: reading saved CSVs and flagging points more than 5 % slower.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "baseline.h"
#include "report.h"

namespace {

const char *const kHeader =
    "op,bytes,count,type,redop,root,mode,npes,algorithm,time_us,algbw_gbps,busbw_gbps,wrong,"
    "nccl_time_us,nccl_sym_time_us\n";

// Loads csv text as if read from the named file; err holds the reason on failure.
int load(const std::string &csv, perf_points_t *out, std::string *err) {
    FILE *f = tmpfile();
    EXPECT_NE(f, nullptr);
    fputs(csv.c_str(), f);
    rewind(f);
    char buf[256] = "";
    int rc = perf_points_load(f, "saved.csv", out, buf, sizeof buf);
    fclose(f);
    *err = buf;
    return rc;
}

// Compares two CSV texts, checks the counts and returns what was printed.
std::string compare(const std::string &base_csv, const std::string &now_csv, size_t compared,
                    size_t regressions, size_t missing, size_t new_points) {
    perf_points_t base, now;
    std::string err;
    EXPECT_EQ(load(base_csv, &base, &err), 0) << err;
    EXPECT_EQ(load(now_csv, &now, &err), 0) << err;
    FILE *out = tmpfile();
    perf_baseline_result_t r = perf_baseline_compare(&base, &now, PERF_BASELINE_THRESHOLD, out);
    rewind(out);
    std::string text;
    char chunk[256];
    while (fgets(chunk, sizeof chunk, out) != nullptr) {
        text += chunk;
    }
    fclose(out);
    perf_points_free(&base);
    perf_points_free(&now);
    EXPECT_EQ(r.compared, compared) << text;
    EXPECT_EQ(r.regressions, regressions) << text;
    EXPECT_EQ(r.missing, missing) << text;
    EXPECT_EQ(r.new_points, new_points) << text;
    return text;
}

TEST(PerfBaseline, ReadsTheSweepRowsAndLeavesFirstCallsOut) {
    perf_points_t p;
    std::string err;
    ASSERT_EQ(load(std::string(kHeader) + "barrier,0,0,none,none,-1,cold,2,,582.372,,,,,\n" +
                       "reduce,64,16,float32,sum,-1,graph,2,\"a,b\",3.250,0.02,0.02,0,,\n" +
                       "reduce,64,16,float32,sum,-1,stream,2,ll,5.100,0.01,0.01,0,8.4,9.1\n",
                   &p, &err),
              0)
        << err;
    ASSERT_EQ(p.n, 2u);
    EXPECT_STREQ(p.points[0].op, "reduce");
    EXPECT_STREQ(p.points[0].mode, "graph");
    EXPECT_EQ(p.points[0].bytes, 64u);
    EXPECT_DOUBLE_EQ(p.points[0].time_us, 3.25);
    EXPECT_STREQ(p.points[1].mode, "stream");
    EXPECT_STREQ(p.points[1].type, "float32");
    EXPECT_STREQ(p.points[1].redop, "sum");
    perf_points_free(&p);
}

TEST(PerfBaseline, FlagsOnlyPointsMoreThanFivePercentSlower) {
    const std::string base = std::string(kHeader) +
                             "reduce,64,16,float32,sum,-1,graph,2,ll,10.000,,,0,,\n"
                             "reduce,64,16,float32,max,-1,graph,2,ll,10.000,,,0,,\n"
                             "reduce,64,16,float32,sum,-1,stream,2,ll,10.000,,,0,,\n"
                             "reduce,64,32,float16,sum,-1,graph,2,ll,10.000,,,0,,\n"
                             "fcollect,64,8,float32,none,-1,graph,2,ll,10.000,,,0,,\n";
    // Same keys in another order: +4.9 % (kept), +5.1 % (flagged), faster, +50 %, exactly +5 %.
    const std::string now = std::string(kHeader) +
                            "fcollect,64,8,float32,none,-1,graph,2,ll,10.500,,,0,,\n"
                            "reduce,64,32,float16,sum,-1,graph,2,ll,15.000,,,0,,\n"
                            "reduce,64,16,float32,sum,-1,stream,2,ll,9.000,,,0,,\n"
                            "reduce,64,16,float32,max,-1,graph,2,ll,10.510,,,0,,\n"
                            "reduce,64,16,float32,sum,-1,graph,2,ll,10.490,,,0,,\n";
    std::string text = compare(base, now, 5, 2, 0, 0);
    EXPECT_NE(text.find("float16"), std::string::npos) << text;
    EXPECT_NE(text.find("max"), std::string::npos) << text;
    EXPECT_NE(text.find("50.0%"), std::string::npos) << text;
    EXPECT_EQ(text.find("fcollect"), std::string::npos) << text;
    EXPECT_NE(text.find("2 regressions"), std::string::npos) << text;
}

TEST(PerfBaseline, MatchesOnModeBytesTypeAndRedopAndReportsTheUnmatched) {
    const std::string base = std::string(kHeader) +
                             "alltoall,1024,128,float32,none,-1,graph,2,ll,4.000,,,0,,\n"
                             "alltoall,2048,256,float32,none,-1,graph,2,ll,4.000,,,0,,\n";
    const std::string now = std::string(kHeader) +
                            "alltoall,1024,128,float32,none,-1,stream,2,ll,9.000,,,0,,\n"
                            "alltoall,2048,256,float32,none,-1,graph,2,ll,4.100,,,0,,\n";
    std::string text = compare(base, now, 1, 0, 1, 1);
    EXPECT_NE(text.find("did not run"), std::string::npos) << text;
    EXPECT_NE(text.find("baseline lacks"), std::string::npos) << text;
}

// An 8-PE sweep is not compared with a 2-PE baseline, however much slower it is.
TEST(PerfBaseline, MatchesOnThePeCount) {
    const std::string base =
        std::string(kHeader) + "reduce,1024,256,float32,sum,-1,graph,2,ll,4.000,,,0,,\n";
    const std::string now =
        std::string(kHeader) + "reduce,1024,256,float32,sum,-1,graph,8,ll,9.000,,,0,,\n";
    std::string text = compare(base, now, 0, 0, 1, 1);
    EXPECT_NE(text.find("2 PEs"), std::string::npos) << text;
    EXPECT_NE(text.find("8 PEs"), std::string::npos) << text;
}

// A sweep on PEs that share a GPU writes its NCCL columns empty (n/a): it still compares.
TEST(PerfBaseline, ReadsACsvWhoseNcclColumnsAreNa) {
    perf_row_t row{};
    row.op = "reduce";
    row.mode = "stream";
    row.bytes = 1024;
    row.count = 256;
    row.type = "float32";
    row.redop = "sum";
    row.root = -1;
    row.npes = 2;
    row.algorithm = "one_shot";
    row.time_us = 10.0;
    row.wrong = 0;
    row.nccl_us = -1;
    row.nccl_sym_us = -1;
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    perf_csv_header(f);
    perf_csv_row(f, &row);
    fclose(f);
    std::string shared(buf, len);
    free(buf);
    std::string measured = std::string(kHeader) +
                           "reduce,1024,256,float32,sum,-1,stream,2,one_shot,10.000,,,0,"
                           "9.000,8.000\n";
    compare(measured, shared, 1, 0, 0, 0);
    compare(shared, measured, 1, 0, 0, 0);
}

TEST(PerfBaseline, MalformedFilesNameFileAndLine) {
    perf_points_t p;
    std::string err;
    EXPECT_EQ(load("op,bytes,type,redop,mode\n", &p, &err), -1);
    EXPECT_NE(err.find("saved.csv:1: no 'npes' column"), std::string::npos) << err;
    EXPECT_EQ(load("op,bytes,type,redop,mode,npes\n", &p, &err), -1);
    EXPECT_NE(err.find("saved.csv:1: no 'time_us' column"), std::string::npos) << err;
    EXPECT_EQ(
        load(std::string(kHeader) + "reduce,64,16,float32,sum,-1,graph,0,ll,1.0,,,0,,\n", &p, &err),
        -1);
    EXPECT_NE(err.find("saved.csv:2: bad npes '0'"), std::string::npos) << err;
    EXPECT_EQ(load(std::string(kHeader) + "reduce,64,16,float32,sum,-1,graph,2,ll,1.0,,,0,,\n" +
                       "reduce,6x4,16,float32,sum,-1,graph,2,ll,1.0,,,0,,\n",
                   &p, &err),
              -1);
    EXPECT_NE(err.find("saved.csv:3: bad bytes '6x4'"), std::string::npos) << err;
    EXPECT_EQ(load(std::string(kHeader) + "reduce,64,16,float32,sum,-1,graph,2,ll,slow,,,0,,\n", &p,
                   &err),
              -1);
    EXPECT_NE(err.find("saved.csv:2: bad time_us 'slow'"), std::string::npos) << err;
    EXPECT_EQ(load(std::string(kHeader) + "reduce,64,16\n", &p, &err), -1);
    EXPECT_NE(err.find("saved.csv:2:"), std::string::npos) << err;
    EXPECT_EQ(
        load(std::string(kHeader) + "reduce,64,16,float32,sum,-1,graph,2,\"ll,1.0\n", &p, &err),
        -1);
    EXPECT_NE(err.find("saved.csv:2: malformed CSV"), std::string::npos) << err;
    EXPECT_EQ(load("", &p, &err), -1);
    EXPECT_NE(err.find("saved.csv: empty"), std::string::npos) << err;
    EXPECT_EQ(p.n, 0u);
}

} // namespace
