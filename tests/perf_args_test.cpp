// symcoll-perf's command line: defaults, nccl-tests flags, lists, sizes and every bad flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "args.h"

namespace {

struct Parsed {
    int rc;
    perf_args_t args;
    std::string err;
};

Parsed parse(const std::vector<const char *> &flags) {
    std::vector<char *> argv{const_cast<char *>("symcoll-perf")};
    for (const char *f : flags) {
        argv.push_back(const_cast<char *>(f));
    }
    Parsed p;
    perf_args_default(&p.args);
    char err[512] = "";
    p.rc = perf_args_parse((int)argv.size(), argv.data(), &p.args, err, sizeof err);
    p.err = err;
    return p;
}

std::vector<size_t> sizes(const perf_args_t &a) {
    std::vector<size_t> out(PERF_MAX_SIZES);
    out.resize(perf_size_list(&a, out.data(), out.size()));
    return out;
}

TEST(PerfArgs, DefaultsSweepEverythingFrom8BTo128MiBByFactor8) {
    Parsed p = parse({});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args),
              (std::vector<size_t>{8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 134217728}));
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        EXPECT_TRUE(p.args.ops[op]) << op;
    }
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
        EXPECT_EQ(p.args.types[t], t == SYMCOLL_FLOAT32) << t;
    }
    for (int r = 0; r < SYMCOLL_NUM_OPS; r++) {
        EXPECT_EQ(p.args.redops[r], r == SYMCOLL_SUM) << r;
    }
    EXPECT_TRUE(p.args.check);
    EXPECT_EQ(p.args.modes, (unsigned)PERF_MODE_STREAM);
    EXPECT_EQ(p.args.iters, 20);
    EXPECT_EQ(p.args.warmup, 5);
    EXPECT_EQ(p.args.timings, 7);
    EXPECT_EQ(p.args.average, PERF_AVERAGE_MEAN);
    EXPECT_EQ(p.args.team, SYMCOLL_TEAM_WORLD);
    EXPECT_FALSE(p.args.team_peers);
    EXPECT_FALSE(p.args.compare_nccl);
    EXPECT_FALSE(p.args.explain);
}

// -b and -e read sizes as every symcoll setting does (symcoll_parse_bytes), nccl-tests' "128MB"
// included.
TEST(PerfArgs, SizeFlagsTakeTheLibrarysSizeRule) {
    Parsed p = parse({"-b", "1.5k", "-e", "128MB"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.min_bytes, 1536u);
    EXPECT_EQ(p.args.max_bytes, (size_t)128 << 20);
    for (const char *bad : {"", "k", "1x", "-1", " 1", "99999999999999999999", "1kbb"}) {
        Parsed q = parse({"-e", bad});
        EXPECT_NE(q.rc, 0) << bad;
        EXPECT_NE(q.err.find("-e: bad size"), std::string::npos) << q.err;
    }
}

TEST(PerfArgs, NcclTestsSizeFlags) {
    Parsed p = parse({"-b", "1K", "-e", "1M", "-f", "2"});
    ASSERT_EQ(p.rc, 0) << p.err;
    std::vector<size_t> s = sizes(p.args);
    ASSERT_EQ(s.size(), 11u);
    EXPECT_EQ(s.front(), 1024u);
    EXPECT_EQ(s.back(), (size_t)1 << 20);

    p = parse({"-b0", "--maxbytes=300", "-i", "100"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{0, 100, 200, 300}));

    p = parse({"--minbytes", "8", "-e", "100"}); // factor 8: 8, 64
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{8, 64}));

    p = parse({"-b", "1g", "-e", "16g", "-f", "1048576"}); // overflow stops the list
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{(size_t)1 << 30}));
}

TEST(PerfArgs, TimingFlags) {
    Parsed p = parse({"-n", "50", "-w", "0", "--timings", "9", "-c", "0", "-a", "3"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.iters, 50);
    EXPECT_EQ(p.args.warmup, 0);
    EXPECT_EQ(p.args.timings, 9);
    EXPECT_FALSE(p.args.check);
    EXPECT_EQ(p.args.average, PERF_AVERAGE_MAX);
}

TEST(PerfArgs, GraphModeFromDashGAndMode) {
    Parsed p = parse({"-G", "4"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.modes, (unsigned)PERF_MODE_GRAPH);
    EXPECT_EQ(p.args.graph_calls, 4);

    p = parse({"--mode", "both", "-n", "30"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.modes, (unsigned)(PERF_MODE_STREAM | PERF_MODE_GRAPH));
    EXPECT_EQ(p.args.graph_calls, 30);

    p = parse({"-G", "8", "--mode", "stream"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.modes, (unsigned)PERF_MODE_STREAM);
}

TEST(PerfArgs, Lists) {
    Parsed p = parse({"--op", "barrier,alltoall", "-d", "half,int8,float64", "-o", "all"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.ops[PERF_OP_BARRIER]);
    EXPECT_TRUE(p.args.ops[PERF_OP_ALLTOALL]);
    EXPECT_FALSE(p.args.ops[PERF_OP_BROADCAST]);
    EXPECT_TRUE(p.args.types[SYMCOLL_FLOAT16]);
    EXPECT_TRUE(p.args.types[SYMCOLL_INT8]);
    EXPECT_TRUE(p.args.types[SYMCOLL_FLOAT64]);
    EXPECT_FALSE(p.args.types[SYMCOLL_FLOAT32]);
    for (int r = 0; r < SYMCOLL_NUM_OPS; r++) {
        EXPECT_TRUE(p.args.redops[r]);
    }

    p = parse({"-d", "all", "-o", "prod,max"});
    ASSERT_EQ(p.rc, 0) << p.err;
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
        EXPECT_TRUE(p.args.types[t]);
    }
    EXPECT_TRUE(p.args.redops[SYMCOLL_PROD]);
    EXPECT_TRUE(p.args.redops[SYMCOLL_MAX]);
    EXPECT_FALSE(p.args.redops[SYMCOLL_SUM]);
}

TEST(PerfArgs, HaloRunsAlone) {
    Parsed p = parse({"--op", "halo", "-b", "1k", "-e", "4m", "-f", "4", "--compare", "nccl"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.halo);
    EXPECT_TRUE(p.args.compare_nccl);
    EXPECT_EQ(sizes(p.args).size(), 7u);
    p = parse({"--op", "halo", "--op", "reduce"}); // the last --op wins
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_FALSE(p.args.halo);
    p = parse({"--op", "halo,reduce"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(p.err.find("halo"), std::string::npos) << p.err;
}

TEST(PerfArgs, DevOpsRunAloneWithTheirOwnIterationCount) {
    Parsed p = parse({"--op", "dev_barrier"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_op, PERF_DEV_BARRIER);
    EXPECT_FALSE(p.args.halo);
    EXPECT_EQ(p.args.iters, PERF_DEV_DEFAULT_ITERS);
    p = parse({"--op", "dev_pingpong", "-n", "500", "-w", "1", "--timings", "3", "--compare",
               "nccl", "--csv", "x.csv"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_op, PERF_DEV_PINGPONG);
    EXPECT_EQ(p.args.iters, 500);
    EXPECT_EQ(p.args.warmup, 1);
    EXPECT_EQ(p.args.timings, 3);
    p = parse({"--op", "dev_barrier", "--op", "reduce"}); // the last --op wins
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_op, PERF_DEV_NONE);
    EXPECT_EQ(p.args.iters, 20);
    p = parse({"--op", "dev_barrier,reduce"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(p.err.find("dev_barrier"), std::string::npos) << p.err;
}

// Each set of flags after --op op fails, naming the run as run and the set's first flag.
void expect_refused(const char *op, const char *run,
                    const std::vector<std::vector<const char *>> &refused) {
    for (const auto &flags : refused) {
        std::vector<const char *> all{"--op", op};
        all.insert(all.end(), flags.begin(), flags.end());
        Parsed p = parse(all);
        EXPECT_EQ(p.rc, -1) << op << " " << flags[0];
        EXPECT_NE(p.err.find(run), std::string::npos) << p.err;
        EXPECT_NE(p.err.find(flags[0]), std::string::npos) << p.err;
    }
}

// Flags of the other runs that no in-kernel run takes.
const std::vector<std::vector<const char *>> kNotInKernel = {
    {"-d", "float64"},  {"-o", "max"},       {"-G", "10"},         {"-a", "0"},
    {"--team", "node"}, {"--mode", "graph"}, {"--plot", "x.png"},  {"--baseline", "x.csv"},
    {"--explain"},      {"--npes", "4"},     {"--topology"},       {"--soak", "5"},
    {"--skew", "1.2"},  {"--tokens", "8"},   {"--sm-share", "66"}, {"--topology-file", "t"},
};

TEST(PerfArgs, DevOpsRefuseFlagsThatWouldNotChangeThem) {
    std::vector<std::vector<const char *>> refused = kNotInKernel;
    refused.insert(
        refused.end(),
        {{"-b", "64"}, {"-e", "1m"}, {"-f", "2"}, {"-i", "8"}, {"-c", "0"}, {"-r", "1"}});
    for (const char *op : {"dev_barrier", "dev_pingpong"})
        expect_refused(op, op, refused);
}

// --op dev_<collective>: a list of its own; warp and block scope from 8 B to 64 KiB, grid scope
// to -e (128 MiB), or both to -e when it is given; -n calls per kernel.
TEST(PerfArgs, DevCollectivesRunTogetherWithTheirOwnSizes) {
    Parsed p = parse({"--op", "dev_reduce,dev_alltoall"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_op, PERF_DEV_COLL);
    EXPECT_TRUE(p.args.dev_colls[PERF_DEV_COLL_REDUCE]);
    EXPECT_FALSE(p.args.dev_colls[PERF_DEV_COLL_BROADCAST]);
    EXPECT_FALSE(p.args.dev_colls[PERF_DEV_COLL_FCOLLECT]);
    EXPECT_TRUE(p.args.dev_colls[PERF_DEV_COLL_ALLTOALL]);
    EXPECT_EQ(p.args.iters, PERF_DEV_COLL_DEFAULT_ITERS);
    EXPECT_EQ(p.args.min_bytes, 8u);
    EXPECT_EQ(p.args.dev_latency_max_bytes, (size_t)64 << 10);
    EXPECT_EQ(p.args.max_bytes, (size_t)128 << 20);
    EXPECT_TRUE(p.args.check);

    p = parse({"--op",      "dev_broadcast",
               "-b",        "1k",
               "-e",        "1m",
               "-f",        "2",
               "-n",        "50",
               "-w",        "1",
               "--timings", "3",
               "-c",        "0",
               "-r",        "1",
               "--csv",     "x.csv",
               "--compare", "nccl"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_latency_max_bytes, (size_t)64 << 10); // -e 1m: the grid's alone
    EXPECT_EQ(sizes(p.args).size(), 11u);
    EXPECT_EQ(p.args.iters, 50);
    EXPECT_EQ(p.args.warmup, 1);
    EXPECT_EQ(p.args.timings, 3);
    EXPECT_FALSE(p.args.check);
    EXPECT_EQ(p.args.root, 1);

    for (int c = 0; c < PERF_DEV_NUM_COLLS; c++) {
        const char *name = perf_dev_coll_name((perf_dev_coll_t)c);
        p = parse({"--op", name});
        ASSERT_EQ(p.rc, 0) << name << ": " << p.err;
        for (int other = 0; other < PERF_DEV_NUM_COLLS; other++)
            EXPECT_EQ(p.args.dev_colls[other], other == c) << name;
        EXPECT_EQ(perf_dev_coll_from_name(name), c);
    }
    EXPECT_EQ(perf_dev_coll_op(PERF_DEV_COLL_FCOLLECT), PERF_OP_FCOLLECT);
    EXPECT_EQ(perf_dev_coll_from_name("reduce"), -1);

    p = parse({"--op", "dev_reduce", "--op", "reduce"}); // the last --op wins
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.dev_op, PERF_DEV_NONE);
    EXPECT_EQ(p.args.iters, 20);
}

TEST(PerfArgs, DevCollectivesRunApartFromTheOtherOps) {
    for (const char *list : {"dev_reduce,reduce", "alltoall,dev_alltoall", "dev_fcollect,all",
                             "dev_reduce,dev_bogus"}) {
        Parsed p = parse({"--op", list});
        EXPECT_NE(p.rc, 0) << list;
        EXPECT_NE(p.err.find("apart from the other ops"), std::string::npos) << p.err;
        EXPECT_NE(p.err.find(list), std::string::npos) << p.err;
    }
    Parsed p = parse({"--op", "dev_reduce,dev_barrier"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(p.err.find("dev_barrier runs alone"), std::string::npos) << p.err;
    EXPECT_EQ(parse({"--op", "dev_reduce,dev_broadcast,dev_fcollect,dev_alltoall"}).rc, 0);
}

TEST(PerfArgs, DevCollectivesRefuseFlagsThatWouldNotChangeThem) {
    expect_refused("dev_reduce", "--op dev_<collective>", kNotInKernel);
}

// dev_broadcast's root must be a team PE; without dev_broadcast any root passes.
TEST(PerfArgs, DevBroadcastsRootFitsTheTeam) {
    Parsed p = parse({"--op", "dev_broadcast,dev_reduce", "-r", "3"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_FALSE(perf_args_root_fits(&p.args, 2, false));
    EXPECT_TRUE(perf_args_root_fits(&p.args, 4, false));
    p = parse({"--op", "dev_reduce", "-r", "3"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(perf_args_root_fits(&p.args, 2, false));
}

// peers: made after init (every PE runs on the team of its local rank); a later --team undoes it.
TEST(PerfArgs, TeamPeersIsMadeAfterInit) {
    Parsed p = parse({"--team", "peers"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.team_peers);
    p = parse({"--team", "peers", "--team", "node"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_FALSE(p.args.team_peers);
    EXPECT_EQ(p.args.team, SYMCOLL_TEAM_NODE);
}

TEST(PerfArgs, TeamRootCompareOutputs) {
    Parsed p = parse({"--team", "node", "-r", "1", "--compare", "nccl", "--csv", "out.csv",
                      "--plot", "out.png", "--baseline", "saved.csv"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.team, SYMCOLL_TEAM_NODE);
    EXPECT_EQ(p.args.root, 1);
    EXPECT_TRUE(p.args.compare_nccl);
    EXPECT_STREQ(p.args.csv_path, "out.csv");
    EXPECT_STREQ(p.args.plot_path, "out.png");
    EXPECT_STREQ(p.args.baseline_path, "saved.csv");
    EXPECT_EQ(parse({}).args.baseline_path, nullptr);
}

// --tune [FILE]: the file is optional (stdout), the mode is graph, and the flags that make
// another run are refused.
TEST(PerfArgs, TuneTakesAnOptionalFileAndRunsInGraphMode) {
    Parsed p = parse({"--tune"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.tune);
    EXPECT_EQ(p.args.tune_path, nullptr);
    EXPECT_EQ(p.args.modes, (unsigned)PERF_MODE_GRAPH);
    EXPECT_EQ(p.args.graph_calls, p.args.iters);
    EXPECT_FALSE(parse({}).args.tune);

    p = parse({"--tune", "/tmp/t.tuning", "-e", "1m", "-n", "10"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_STREQ(p.args.tune_path, "/tmp/t.tuning");
    EXPECT_EQ(p.args.max_bytes, size_t{1} << 20);
    EXPECT_EQ(p.args.graph_calls, 10);

    p = parse({"--tune=t.tuning", "-G", "5", "--mode", "graph"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_STREQ(p.args.tune_path, "t.tuning");
    EXPECT_EQ(p.args.graph_calls, 5);

    p = parse({"--tune", "--op", "reduce,fcollect"}); // a flag after it is no file name
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.tune_path, nullptr);
    EXPECT_TRUE(p.args.ops[PERF_OP_REDUCE]);
    EXPECT_FALSE(p.args.ops[PERF_OP_BROADCAST]);

    p = parse({"--op", "barrier,reduce", "--tune"});
    ASSERT_EQ(p.rc, 0) << p.err;

    struct Bad {
        std::vector<const char *> flags;
        const char *needle;
    };
    for (const Bad &b : std::vector<Bad>{
             {{"--tune", "--mode", "stream"}, "graph mode only"},
             {{"--tune", "--mode", "both"}, "graph mode only"},
             {{"--tune", "--op", "barrier"}, "no collective with algorithms"},
             {{"--tune", "--explain"}, "--explain"},
             {{"--tune", "--compare", "nccl"}, "--compare"},
             {{"--tune", "--csv", "x.csv"}, "--csv"},
             {{"--tune", "--baseline", "x.csv"}, "--baseline"},
             {{"--tune", "--soak", "5"}, "--soak"},
             {{"--tune", "--op", "halo"}, "--op halo"},
             {{"--tune="}, "empty file name"},
             {{"-tune"}, "unknown flag"},
         }) {
        Parsed bad = parse(b.flags);
        EXPECT_NE(bad.rc, 0) << b.flags[0];
        EXPECT_NE(bad.err.find(b.needle), std::string::npos) << bad.err;
    }
}

// -n is nccl-tests' iteration count, never the PE count: --explain takes the team size from
// --npes and refuses -n rather than ignoring it.
TEST(PerfArgs, ExplainTakesTheTeamSizeFromNpes) {
    Parsed p = parse({"--explain", "--npes", "8"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.explain);
    EXPECT_EQ(p.args.npes, 8);

    p = parse({"--explain", "-n", "8"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(std::string(p.err).find("--npes"), std::string::npos) << p.err;

    p = parse({"--explain"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.npes, 2);

    p = parse({"--explain", "--topology-file", "t.txt"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_STREQ(p.args.topology_file, "t.txt");
}

// --npes and --topology-file describe the team that --explain plans for: a sweep runs on
// symcoll-run's -n PEs and the real topology, and a topology file has its own PE count, so
// either flag elsewhere is refused rather than ignored.
TEST(PerfArgs, NpesAndTopologyFileOnlyWithExplain) {
    struct Refused {
        std::vector<const char *> flags;
        const char *needle;
    };
    for (const Refused &r : std::vector<Refused>{
             {{"--npes", "8"}, "--npes"},
             {{"--topology-file", "t.txt"}, "--topology-file"},
             {{"--explain", "--npes", "8", "--topology-file", "t.txt"}, "--npes"},
         }) {
        Parsed p = parse(r.flags);
        EXPECT_NE(p.rc, 0) << r.flags[0];
        EXPECT_NE(p.err.find(r.needle), std::string::npos) << p.err;
    }
}

// --sm-share stands for what symcoll_gpu_sharing reports to a run: --explain only.
TEST(PerfArgs, SmShareOnlyWithExplain) {
    Parsed p = parse({"--explain", "--sm-share", "66"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.sm_share, 66);
    EXPECT_EQ(parse({"--explain"}).args.sm_share, 0);
    p = parse({"--sm-share", "66"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(p.err.find("--sm-share"), std::string::npos) << p.err;
    EXPECT_NE(parse({"--explain", "--sm-share", "0"}).rc, 0);
    EXPECT_NE(parse({"--op", "dev_barrier", "--sm-share", "66"}).rc, 0);
}

TEST(PerfArgs, NcclNamesOfTheCollectives) {
    Parsed p = parse({"--op", "allreduce,allgather"});
    ASSERT_EQ(p.rc, 0) << p.err;
    for (int op = 0; op < PERF_NUM_OPS; op++)
        EXPECT_EQ(p.args.ops[op], op == PERF_OP_REDUCE || op == PERF_OP_FCOLLECT) << op;
}

TEST(PerfArgs, HelpStopsParsing) {
    Parsed p = parse({"-h", "--bogus"});
    EXPECT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.help);
    p = parse({"--help"});
    EXPECT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.help);
}

// alltoallv's counts: uniform (alltoall's traffic) unless --skew gives a Zipf exponent.
TEST(PerfArgs, SkewShapesAlltoallvsCounts) {
    Parsed p = parse({"--op", "alltoallv"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.ops[PERF_OP_ALLTOALLV]);
    EXPECT_EQ(p.args.skew, 0.0);
    p = parse({"--op", "alltoallv", "--skew", "1.2"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_DOUBLE_EQ(p.args.skew, 1.2);
    p = parse({"--skew", "2", "--skew", "uniform"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.skew, 0.0);
    EXPECT_EQ(parse({"--skew=0.5"}).rc, 0) << "--op all includes alltoallv";
}

// --op moe runs alone; its sizes are hidden bytes per token, 1 KiB to 16 KiB by factor 2 unless
// the size flags say otherwise; its shape flags and --skew apply to it.
TEST(PerfArgs, MoeRunsAloneWithItsOwnHiddenSizesAndShape) {
    Parsed p = parse({"--op", "moe"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_TRUE(p.args.moe);
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{1024, 2048, 4096, 8192, 16384}));
    EXPECT_EQ(p.args.tokens, 4096);
    EXPECT_EQ(p.args.experts, 8);
    EXPECT_EQ(p.args.topk, 2);
    EXPECT_EQ(p.args.align, 1);
    EXPECT_EQ(p.args.skew, 0.0);
    p = parse({"--op=moe", "-b", "7168", "--tokens", "128", "--experts", "4", "--topk", "3",
               "--align", "16", "--skew", "1.5"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{7168, 14336})) << "-e and -f keep moe's";
    EXPECT_EQ(p.args.tokens, 128);
    EXPECT_EQ(p.args.experts, 4);
    EXPECT_EQ(p.args.topk, 3);
    EXPECT_EQ(p.args.align, 16);
    EXPECT_DOUBLE_EQ(p.args.skew, 1.5);
    p = parse({"--op", "moe", "-b", "4k", "-e", "4k"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{4096}));
    p = parse({"--op", "moe", "-i", "1k", "-e", "3k"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(sizes(p.args), (std::vector<size_t>{1024, 2048, 3072}));
    p = parse({"--op", "moe", "-G", "10", "--compare", "nccl", "--csv", "moe.csv"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.args.modes, (unsigned)PERF_MODE_GRAPH);
    EXPECT_FALSE(parse({}).args.moe);
}

struct BadFlags {
    std::vector<const char *> flags;
    const char *must_mention;
};

TEST(PerfArgs, BadFlagsAreRejectedWithAReason) {
    const BadFlags cases[] = {
        {{"--bogus"}, "--bogus"},
        {{"--baseline"}, "missing value"},
        {{"--baseline", "saved.csv", "--op", "halo"}, "--baseline"},
        {{"--baseline", "saved.csv", "--soak", "10"}, "--baseline"},
        {{"--baseline", "saved.csv", "--topology"}, "--baseline"},
        {{"extra"}, "extra"},
        {{"-b"}, "missing value"},
        {{"-b", "lots"}, "lots"},
        {{"-e", "1x"}, "1x"},
        {{"-b", "1M", "-e", "1K"}, "larger"},
        {{"-f", "1"}, "-f"},
        {{"-f", "2", "-i", "8"}, "exclude"},
        {{"-i", "0"}, "-i"},
        {{"-b", "0"}, "-b"},
        {{"-b", "1", "-e", "1g", "-i", "1"}, "sizes"},
        {{"-n", "0"}, "-n"},
        {{"-n", "ten"}, "ten"},
        {{"-w", "-1"}, "-w"},
        {{"--timings", "0"}, "--timings"},
        {{"-c", "x"}, "-c"},
        {{"-d", "float128"}, "float128"},
        {{"-d", "float32,"}, "datatype"},
        {{"-o", "avg"}, "avg"},
        {{"-o", "and", "-d", "float32"}, "integer"},
        {{"--op", "allreduce_rs"}, "allreduce_rs"},
        {{"-r", "-1"}, "-r"},
        {{"-G", "-2"}, "-G"},
        {{"-a", "4"}, "-a"},
        {{"--team", "galaxy"}, "galaxy"},
        {{"--mode", "fast"}, "fast"},
        {{"--compare", "mpi"}, "mpi"},
        {{"--explain", "--topology"}, "exclude"},
        {{"--explain", "--npes", "100"}, "--npes"},
        {{"--explain", "--npes", "0"}, "--npes"},
        {{"--explain", "-r", "2"}, "root"},
        {{"--help=yes"}, "--help=yes"},
        {{"--skew", "0"}, "Zipf exponent > 0"},
        {{"--skew", "-1"}, "-1"},
        {{"--skew", "zipf"}, "zipf"},
        {{"--skew", "inf"}, "inf"},
        {{"--skew", "1.2", "--op", "alltoall"}, "selects no alltoallv"},
        {{"--skew", "1.2", "--tune"}, "--skew does not apply to --tune"},
        {{"--skew", "1.2", "--soak", "10"}, "--skew does not apply to --soak"},
        {{"--op", "moe,alltoallv"}, "runs alone"},
        {{"--op", "moe", "--tune"}, "no collective of the registry"},
        {{"--op", "moe", "--soak", "10"}, "--op alltoallv tunes and soaks"},
        {{"--op", "moe", "-d", "float32"}, "-d/--datatype does not apply to --op moe"},
        {{"--op", "moe", "-o", "max"}, "-o/--redop does not apply to --op moe"},
        {{"--op", "moe", "--plot", "x.png"}, "--plot does not apply to --op moe"},
        {{"--op", "moe", "--baseline", "x.csv"}, "--baseline does not apply to --op moe"},
        {{"--op", "moe", "--tokens", "0"}, "--tokens"},
        {{"--op", "moe", "--experts", "513"}, "--experts"},
        {{"--op", "moe", "--topk", "0"}, "--topk"},
        {{"--op", "moe", "--align", "0"}, "--align"},
        {{"--op", "moe", "-b", "32k"}, "larger than -e/--maxbytes 16384"},
        {{"--tokens", "64"}, "--tokens does not apply to the sweep"},
        {{"--op", "halo", "--topk", "4"}, "--topk does not apply to --op halo"},
    };
    for (const BadFlags &c : cases) {
        std::vector<char *> argv{const_cast<char *>("symcoll-perf")};
        std::string joined;
        for (const char *f : c.flags) {
            argv.push_back(const_cast<char *>(f));
            joined += std::string(" ") + f;
        }
        perf_args_t args;
        perf_args_default(&args);
        char err[512] = "";
        EXPECT_EQ(perf_args_parse((int)argv.size(), argv.data(), &args, err, sizeof err), -1)
            << joined;
        EXPECT_NE(std::string(err).find(c.must_mention), std::string::npos)
            << joined << ": " << err;
    }
}

TEST(PerfArgs, BitwiseOpsWithoutReduceOrWithIntegersAreFine) {
    EXPECT_EQ(parse({"-o", "xor", "-d", "float32", "--op", "broadcast"}).rc, 0);
    EXPECT_EQ(parse({"-o", "and,or", "-d", "all"}).rc, 0);
}

} // namespace

namespace {

// What a user coming from mpirun or nccl-tests types, and what the error must say.
TEST(PerfArgs, SaysWhatATypoMeant) {
    Parsed p = parse({"-op", "reduce"});
    EXPECT_NE(p.rc, 0);
    EXPECT_NE(p.err.find("-op: read as -o with the value 'p'; for --op write two dashes"),
              std::string::npos)
        << p.err;
    for (const char *list : {"halo,reduce", "reduce,halo", "dev_barrier,barrier"}) {
        Parsed q = parse({"--op", list});
        EXPECT_NE(q.rc, 0) << list;
        EXPECT_NE(q.err.find("runs alone"), std::string::npos) << q.err;
    }
    EXPECT_EQ(parse({"--op", "halo"}).rc, 0);
    EXPECT_EQ(parse({"-o", "max"}).rc, 0) << "a real short flag with its value stays valid";
}

} // namespace
