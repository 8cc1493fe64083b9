// symcoll-perf's numbers and formats: sizes as nccl-tests counts them, bus-bandwidth factors,
// the median and the combination over PEs, CSV rows and table rows.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "ops.h"
#include "report.h"
#include "stats.h"

namespace {

double factor(perf_op_t op, int npes) {
    return perf_op_info(op)->busbw_factor(npes);
}

TEST(PerfOps, BusBandwidthFactorsOfNcclTests) {
    EXPECT_EQ(perf_op_info(PERF_OP_BARRIER)->busbw_factor, nullptr);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_BROADCAST, 2), 1.0);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_BROADCAST, 8), 1.0);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_REDUCE, 2), 1.0);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_REDUCE, 8), 1.75);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_FCOLLECT, 2), 0.5);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_FCOLLECT, 8), 0.875);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_ALLTOALL, 4), 0.75);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_REDUCE_SCATTER, 4), 0.75);
    EXPECT_DOUBLE_EQ(factor(PERF_OP_ALLTOALLV, 4), 0.75);
}

TEST(PerfOps, NamesAndTheirCollectives) {
    const char *names[] = {"barrier",  "broadcast",      "reduce",   "fcollect",
                           "alltoall", "reduce_scatter", "alltoallv"};
    const symcoll_collective_t colls[] = {SYMCOLL_COLL_BARRIER,  SYMCOLL_COLL_BROADCAST,
                                          SYMCOLL_COLL_REDUCE,   SYMCOLL_COLL_FCOLLECT,
                                          SYMCOLL_COLL_ALLTOALL, SYMCOLL_COLL_REDUCE_SCATTER,
                                          SYMCOLL_COLL_ALLTOALLV};
    static_assert(sizeof names / sizeof names[0] == PERF_NUM_OPS, "a name per op");
    for (int op = 0; op < PERF_NUM_OPS; op++) {
        EXPECT_STREQ(perf_op_info((perf_op_t)op)->name, names[op]);
        EXPECT_EQ(perf_op_from_name(names[op]), op);
        EXPECT_EQ(perf_op_info((perf_op_t)op)->collective, colls[op]);
        std::string upper = names[op];
        for (char &ch : upper) {
            ch = (char)toupper(ch);
        }
        if (op == PERF_OP_BARRIER) { // one algorithm: nothing to force
            EXPECT_EQ(perf_op_info((perf_op_t)op)->algo_env, nullptr);
        } else {
            EXPECT_STREQ(perf_op_info((perf_op_t)op)->algo_env, ("SYMCOLL_ALGO_" + upper).c_str());
        }
    }
    EXPECT_EQ(perf_op_from_name("allreduce"), PERF_OP_REDUCE);
    EXPECT_EQ(perf_op_from_name("allgather"), PERF_OP_FCOLLECT);
    EXPECT_EQ(perf_op_from_name("reducescatter"), PERF_OP_REDUCE_SCATTER);
    EXPECT_EQ(perf_op_from_name("allreduce_rs"), -1);
    EXPECT_EQ(perf_datatype_from_name("float32"), SYMCOLL_FLOAT32);
    EXPECT_EQ(perf_datatype_from_name("float"), SYMCOLL_FLOAT32);
    EXPECT_EQ(perf_datatype_from_name("half"), SYMCOLL_FLOAT16);
    EXPECT_EQ(perf_datatype_from_name("bfloat16"), SYMCOLL_BFLOAT16);
    EXPECT_EQ(perf_datatype_from_name("double"), SYMCOLL_FLOAT64);
    EXPECT_EQ(perf_datatype_from_name("uint64"), SYMCOLL_UINT64);
    EXPECT_EQ(perf_datatype_from_name("float128"), -1);
    EXPECT_EQ(perf_redop_from_name("xor"), SYMCOLL_XOR);
    EXPECT_EQ(perf_redop_from_name("avg"), -1);
    EXPECT_TRUE(perf_redop_valid(SYMCOLL_INT8, SYMCOLL_AND));
    EXPECT_FALSE(perf_redop_valid(SYMCOLL_BFLOAT16, SYMCOLL_OR));
    EXPECT_TRUE(perf_redop_valid(SYMCOLL_FLOAT16, SYMCOLL_MIN));
}

TEST(PerfOps, CountsAndBytesAsNcclTestsCountThem) {
    // broadcast and reduce: the per-PE buffer; rounded down to whole elements.
    EXPECT_EQ(perf_op_count(PERF_OP_BROADCAST, 10, 4, 2), 2u);
    EXPECT_EQ(perf_op_bytes(PERF_OP_BROADCAST, 2, 4, 2), 8u);
    EXPECT_EQ(perf_op_count(PERF_OP_REDUCE, 134217728, 2, 8), 67108864u);
    EXPECT_EQ(perf_op_count(PERF_OP_REDUCE, 2, 4, 2), 0u);
    // fcollect and alltoall: the whole destination, count per PE in the call.
    EXPECT_EQ(perf_op_count(PERF_OP_FCOLLECT, 64, 4, 8), 2u);
    EXPECT_EQ(perf_op_bytes(PERF_OP_FCOLLECT, 2, 4, 8), 64u);
    EXPECT_EQ(perf_op_count(PERF_OP_ALLTOALL, 8, 4, 2), 1u);
    EXPECT_EQ(perf_op_count(PERF_OP_ALLTOALL, 8, 4, 4), 0u);
    EXPECT_EQ(perf_op_count(PERF_OP_ALLTOALL, 100, 4, 3), 8u);
    EXPECT_EQ(perf_op_bytes(PERF_OP_ALLTOALL, 8, 4, 3), 96u);
    EXPECT_EQ(perf_op_count(PERF_OP_BARRIER, 64, 4, 2), 0u);
    // Buffers: alltoall sends a block to every PE; fcollect sends one.
    EXPECT_EQ(perf_op_src_bytes(PERF_OP_ALLTOALL, 3, 4, 2), 24u);
    EXPECT_EQ(perf_op_dst_bytes(PERF_OP_ALLTOALL, 3, 4, 2), 24u);
    EXPECT_EQ(perf_op_src_bytes(PERF_OP_FCOLLECT, 3, 4, 2), 12u);
    EXPECT_EQ(perf_op_dst_bytes(PERF_OP_FCOLLECT, 3, 4, 2), 24u);
    EXPECT_EQ(perf_op_src_bytes(PERF_OP_REDUCE, 3, 8, 2), 24u);
    EXPECT_EQ(perf_op_dst_bytes(PERF_OP_BROADCAST, 3, 8, 2), 24u);
    // alltoallv: count per PE as alltoall; dst as alltoall's with uniform counts, else the
    // capacity its counts set.
    EXPECT_EQ(perf_op_count(PERF_OP_ALLTOALLV, 100, 4, 3), 8u);
    EXPECT_EQ(perf_op_bytes(PERF_OP_ALLTOALLV, 8, 4, 3), 96u);
    EXPECT_EQ(perf_op_src_bytes(PERF_OP_ALLTOALLV, 3, 4, 2), 24u);
    perf_counts_t counts{};
    counts.capacity = 11;
    perf_call_t c{};
    c.op = PERF_OP_ALLTOALLV;
    c.type = SYMCOLL_FLOAT64;
    c.count = 3;
    c.counts = &counts;
    EXPECT_EQ(perf_call_dst_bytes(&c, 2), 88u);
    c.op = PERF_OP_FCOLLECT;
    c.counts = nullptr;
    EXPECT_EQ(perf_call_dst_bytes(&c, 2), 48u);
}

TEST(PerfOps, OnlyAlltoallvMakesNcclSyncTheHost) {
    for (int op = 0; op < PERF_NUM_OPS; op++)
        EXPECT_EQ(perf_op_nccl_syncs_host((perf_op_t)op), op == PERF_OP_ALLTOALLV) << op;
}

TEST(PerfOps, AlgorithmBandwidthInGBPerSecond) {
    EXPECT_DOUBLE_EQ(perf_algbw_gbps(1000000, 1.0), 1000.0);
    EXPECT_DOUBLE_EQ(perf_algbw_gbps(134217728, 385.68), 134217728 / 385.68 / 1e3);
    EXPECT_DOUBLE_EQ(perf_algbw_gbps(8, 0.0), 0.0);
}

TEST(PerfStats, Median) {
    double odd[] = {5, 1, 9, 3, 7};
    EXPECT_DOUBLE_EQ(perf_median(odd, 5), 5);
    double even[] = {4, 1, 3, 2};
    EXPECT_DOUBLE_EQ(perf_median(even, 4), 2.5);
    double one[] = {6.5};
    EXPECT_DOUBLE_EQ(perf_median(one, 1), 6.5);
}

TEST(PerfStats, CombineAcrossPEsLikeNcclTestsDashA) {
    const double t[] = {4.0, 2.0, 9.0};
    EXPECT_DOUBLE_EQ(perf_combine_times(t, 3, 1, PERF_AVERAGE_PE0), 4.0);
    EXPECT_DOUBLE_EQ(perf_combine_times(t, 3, 1, PERF_AVERAGE_MEAN), 5.0);
    EXPECT_DOUBLE_EQ(perf_combine_times(t, 3, 1, PERF_AVERAGE_MIN), 2.0);
    EXPECT_DOUBLE_EQ(perf_combine_times(t, 3, 1, PERF_AVERAGE_MAX), 9.0);
    const double missing[] = {4.0, -1.0};
    EXPECT_LT(perf_combine_times(missing, 2, 1, PERF_AVERAGE_MEAN), 0);
}

// What write puts in a FILE.
std::string captured(const std::function<void(FILE *)> &write) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    write(f);
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
}

std::string capture(void (*write)(FILE *, const perf_row_t *, perf_nccl_columns_t),
                    const perf_row_t &row, perf_nccl_columns_t nccl) {
    return captured([&](FILE *f) { write(f, &row, nccl); });
}

void csv_row(FILE *f, const perf_row_t *row, perf_nccl_columns_t) {
    perf_csv_row(f, row);
}

perf_row_t reduce_row() {
    perf_row_t r{};
    r.op = "reduce";
    r.mode = "graph";
    r.bytes = 2097152;
    r.count = 524288;
    r.type = "float32";
    r.redop = "sum";
    r.root = -1;
    r.npes = 2;
    r.algorithm = "two_shot";
    r.blocks = 32;
    r.threads = 512;
    r.time_us = 18.5;
    r.has_bandwidth = true;
    r.algbw_gbps = 113.36;
    r.busbw_gbps = 113.36;
    r.wrong = 0;
    r.nccl_us = 27.07;
    r.nccl_sym_us = 18.37;
    return r;
}

TEST(PerfReport, CsvColumns) {
    EXPECT_EQ(captured(perf_csv_header),
              "op,bytes,count,type,redop,root,mode,npes,algorithm,time_us,algbw_gbps,busbw_gbps,"
              "wrong,nccl_time_us,nccl_sym_time_us\n");
}

TEST(PerfReport, CsvRowWithNccl) {
    EXPECT_EQ(capture(csv_row, reduce_row(), PERF_NCCL_ON),
              "reduce,2097152,524288,float32,sum,-1,graph,2,two_shot,18.500,113.360,113.360,0,"
              "27.070,18.370\n");
}

TEST(PerfReport, CsvRowLeavesWhatWasNotMeasuredEmpty) {
    perf_row_t r{};
    r.op = "launch";
    r.mode = "stream";
    r.type = "none";
    r.redop = "none";
    r.root = -1;
    r.npes = 8;
    r.algorithm = "empty-kernel";
    r.time_us = 4.25;
    r.wrong = -1;
    r.nccl_us = -1;
    r.nccl_sym_us = -1;
    EXPECT_EQ(capture(csv_row, r, PERF_NCCL_OFF),
              "launch,0,0,none,none,-1,stream,8,empty-kernel,4.250,,,,,\n");
}

TEST(PerfReport, CsvQuotesAnAlgorithmWithAComma) {
    perf_row_t r = reduce_row();
    r.algorithm = "a,\"b\"";
    std::string line = capture(csv_row, r, PERF_NCCL_OFF);
    EXPECT_NE(line.find(",\"a,\"\"b\"\"\","), std::string::npos) << line;
}

TEST(PerfReport, RatioIsOursOverTheBetterNccl) {
    perf_row_t r = reduce_row();
    EXPECT_DOUBLE_EQ(perf_row_ratio(&r), 18.5 / 18.37);
    r.nccl_sym_us = -1;
    EXPECT_DOUBLE_EQ(perf_row_ratio(&r), 18.5 / 27.07);
    r.nccl_us = -1;
    EXPECT_LT(perf_row_ratio(&r), 0);
}

TEST(PerfReport, TableRow) {
    std::string line = capture(perf_table_row, reduce_row(), PERF_NCCL_ON);
    EXPECT_NE(line.find("reduce"), std::string::npos) << line;
    EXPECT_NE(line.find("2097152"), std::string::npos) << line;
    EXPECT_NE(line.find("18.50"), std::string::npos) << line;
    EXPECT_NE(line.find("113.36"), std::string::npos) << line;
    EXPECT_NE(line.find("27.07"), std::string::npos) << line;
    EXPECT_NE(line.find("1.01"), std::string::npos) << line; // 18.5 / 18.37
    EXPECT_NE(line.find("two_shot (32x512)"), std::string::npos) << line;

    perf_row_t barrier = reduce_row();
    barrier.op = "barrier";
    barrier.has_bandwidth = false;
    barrier.wrong = -1;
    line = capture(perf_table_row, barrier, PERF_NCCL_OFF);
    EXPECT_NE(line.find("N/A"), std::string::npos) << line;
    EXPECT_EQ(line.find("27.07"), std::string::npos) << line;
    EXPECT_EQ(line.find("113.36"), std::string::npos) << line;
}

// PEs on one GPU: NCCL cannot run, so its columns say so; our own columns stay measured.
TEST(PerfReport, NcclColumnsNaWherePesShareAGpu) {
    std::string header = captured([](FILE *f) { perf_table_header(f, "stream", PERF_NCCL_NA); });
    EXPECT_NE(header.find("# nccl: n/a: PEs share a GPU\n"), std::string::npos) << header;
    EXPECT_NE(header.find("nccl-sym"), std::string::npos) << header;
    header = captured([](FILE *f) { perf_table_header(f, "stream", PERF_NCCL_ON); });
    EXPECT_EQ(header.find("n/a"), std::string::npos) << header;

    perf_row_t r = reduce_row();
    r.nccl_us = -1;
    r.nccl_sym_us = -1;
    std::string line = capture(perf_table_row, r, PERF_NCCL_NA);
    EXPECT_NE(line.find("18.50"), std::string::npos) << line;
    EXPECT_NE(line.find("  n/a       n/a    n/a  two_shot"), std::string::npos) << line;
    // The CSV marks n/a as it marks anything not measured: empty fields.
    line = capture(csv_row, r, PERF_NCCL_NA);
    EXPECT_EQ(line.substr(line.size() - 5), ",0,,\n") << line;
}

// alltoallv in graph mode: NCCL's host sync cannot be captured, so its row says n/a in a table
// whose other rows have NCCL's times.
TEST(PerfReport, NcclNaWhereItCannotBeCaptured) {
    std::string note = captured([](FILE *f) { perf_nccl_uncapturable_line(f, "alltoallv"); });
    EXPECT_EQ(note.rfind("# nccl: n/a for alltoallv: cannot be captured (host sync", 0), 0u)
        << note;
    perf_row_t r = reduce_row();
    r.nccl_us = -1;
    r.nccl_sym_us = -1;
    r.nccl_na = true;
    std::string line = capture(perf_table_row, r, PERF_NCCL_ON);
    EXPECT_NE(line.find("  n/a       n/a    n/a  two_shot"), std::string::npos) << line;
    r.nccl_na = false;
    line = capture(perf_table_row, r, PERF_NCCL_ON);
    EXPECT_EQ(line.find("n/a"), std::string::npos) << line;
}

perf_dev_row_t barrier_row() {
    perf_dev_row_t r{};
    r.op = "dev_barrier";
    r.kind = "acq_rel";
    r.bytes = 0;
    r.iters = 20000;
    r.npes = 2;
    r.symcoll = {2.39, 2.31, -1};
    r.nccl = {1.42, 1.40, -1};
    return r;
}

std::string dev_capture(void (*write)(FILE *, const perf_dev_row_t *), const perf_dev_row_t &r) {
    return captured([&](FILE *f) { write(f, &r); });
}

std::string dev_table_row(const perf_dev_row_t &r, perf_nccl_columns_t nccl) {
    return captured([&](FILE *f) { perf_dev_table_row(f, &r, nccl); });
}

TEST(PerfReport, DevCsvRowsOfSymcollThenNccl) {
    EXPECT_EQ(dev_capture(perf_dev_csv_rows, barrier_row()),
              "dev_barrier,0,20000,none,none,-1,acq_rel,2,symcoll,2.390,,,,1.420,\n"
              "dev_barrier,0,20000,none,none,-1,acq_rel,2,nccl-lsa,1.420,,,,,\n");
}

TEST(PerfReport, DevCsvWithoutNcclHasOneRow) {
    perf_dev_row_t r = barrier_row();
    r.op = "dev_pingpong";
    r.kind = "put_signal_block";
    r.bytes = 65536;
    r.symcoll.wrong = 0;
    r.nccl = {-1, -1, -1};
    EXPECT_EQ(dev_capture(perf_dev_csv_rows, r),
              "dev_pingpong,65536,20000,none,none,-1,put_signal_block,2,symcoll,2.390,,,0,,\n");
}

TEST(PerfReport, DevTableRowHasBothMediansMinsAndTheRatio) {
    std::string line = dev_table_row(barrier_row(), PERF_NCCL_ON);
    for (const char *part : {"dev_barrier", "acq_rel", "2.39", "2.31", "1.42", "1.40", "1.68"})
        EXPECT_NE(line.find(part), std::string::npos) << part << ": " << line;
    perf_dev_row_t r = barrier_row();
    r.symcoll.wrong = 3;
    r.nccl = {-1, -1, -1};
    line = dev_table_row(r, PERF_NCCL_ON);
    EXPECT_NE(line.find(" 3 "), std::string::npos) << line;
    EXPECT_EQ(line.find("1.42"), std::string::npos) << line;
    EXPECT_EQ(line.find("1.68"), std::string::npos) << line;
}

TEST(PerfReport, DevTableNcclNaWherePesShareAGpu) {
    std::string header =
        captured([](FILE *f) { perf_dev_table_header(f, "us per sync", PERF_NCCL_NA); });
    EXPECT_EQ(header.rfind("# nccl: n/a: PEs share a GPU\n", 0), 0u) << header;
    perf_dev_row_t r = barrier_row();
    r.nccl = {-1, -1, -1};
    std::string line = dev_table_row(r, PERF_NCCL_NA);
    EXPECT_NE(line.find("2.39"), std::string::npos) << line;
    EXPECT_NE(line.find("      n/a       n/a     n/a    n/a\n"), std::string::npos) << line;
}

perf_dev_coll_row_t dev_reduce_row() {
    perf_dev_coll_row_t r{};
    r.op = PERF_OP_REDUCE;
    r.scope = "block";
    r.count = 2;
    r.root = 0;
    r.npes = 2;
    r.device = {2.10, 2.05, 0};
    r.host = {6.50, 6.40, 0};
    return r;
}

std::string dev_coll_row(const perf_dev_coll_row_t &r) {
    return captured([&](FILE *f) { perf_dev_coll_table_row(f, &r); });
}

TEST(PerfReport, DevCollTableHeaderNamesBothSides) {
    std::string header = captured(perf_dev_coll_table_header);
    for (const char *part : {"op", "scope", "dev-min", "host", "dev/host", "dev-busbw",
                             "host-busbw", "dev-wrong", "host-wrong", "nccl", "(elements)"})
        EXPECT_NE(header.find(part), std::string::npos) << part << ": " << header;
}

TEST(PerfReport, DevCollRowShowsTheDeviceBesideTheHost) {
    std::string line = dev_coll_row(dev_reduce_row());
    for (const char *part : {"dev_reduce", "block", " 8 ", "2.10", "2.05", "6.50", "0.32"})
        EXPECT_NE(line.find(part), std::string::npos) << part << ": " << line;
    EXPECT_NE(line.find("         0          0   n/a\n"), std::string::npos) << line;
    perf_dev_coll_row_t r = dev_reduce_row();
    r.device.wrong = 3;
    r.host.wrong = -1;
    line = dev_coll_row(r);
    EXPECT_NE(line.find("         3        N/A   n/a\n"), std::string::npos) << line;
}

// busbw with nccl-tests' factors: fcollect's size is the whole destination, (n-1)/n of it.
TEST(PerfReport, DevCollGridRowHasBusBandwidth) {
    perf_dev_coll_row_t r = dev_reduce_row();
    r.op = PERF_OP_FCOLLECT;
    r.scope = "grid";
    r.npes = 4;
    r.count = (size_t)1 << 20;
    r.device = {100.0, 99.0, 0};
    r.host = {200.0, 190.0, 0};
    std::string line = dev_coll_row(r);
    for (const char *part : {"dev_fcollect", "grid", "16777216", "1048576", "125.83", "62.91"})
        EXPECT_NE(line.find(part), std::string::npos) << part << ": " << line;
}

TEST(PerfReport, DevCollBarrierRowHasNoBandwidthNorCheck) {
    perf_dev_coll_row_t r = dev_reduce_row();
    r.op = PERF_OP_BARRIER;
    r.count = 0;
    r.device = {1.45, 1.43, -1};
    r.host = {5.20, 5.10, -1};
    std::string line = dev_coll_row(r);
    for (const char *part : {"dev_barrier", "1.45", "5.20", "0.28", "        -          - "})
        EXPECT_NE(line.find(part), std::string::npos) << part << ": " << line;
    EXPECT_NE(line.find("      N/A        N/A   n/a\n"), std::string::npos) << line;
}

TEST(PerfReport, DevCollCsvRowsOfTheDeviceThenTheHostGraph) {
    std::string csv = captured([](FILE *f) {
        perf_dev_coll_row_t r = dev_reduce_row();
        perf_dev_coll_csv_rows(f, &r);
        r.op = PERF_OP_BROADCAST;
        r.root = 1;
        r.host.wrong = -1;
        perf_dev_coll_csv_rows(f, &r);
        r.op = PERF_OP_BARRIER;
        r.count = 0;
        r.device.wrong = -1;
        perf_dev_coll_csv_rows(f, &r);
    });
    EXPECT_EQ(csv, "dev_reduce,8,2,float32,sum,-1,block,2,device,2.100,0.004,0.004,0,,\n"
                   "dev_reduce,8,2,float32,sum,-1,block,2,host-graph,6.500,0.001,0.001,0,,\n"
                   "dev_broadcast,8,2,float32,none,1,block,2,device,2.100,0.004,0.004,0,,\n"
                   "dev_broadcast,8,2,float32,none,1,block,2,host-graph,6.500,0.001,0.001,,,\n"
                   "dev_barrier,0,0,none,none,-1,block,2,device,2.100,,,,,\n"
                   "dev_barrier,0,0,none,none,-1,block,2,host-graph,6.500,,,,,\n");
}

TEST(PerfReport, DevCollNcclLineNamesNcclsCollectives) {
    const bool selected[PERF_DEV_NUM_COLLS] = {true, false, true, true};
    std::string line = captured([&](FILE *f) { perf_dev_coll_nccl_line(f, selected); });
    EXPECT_EQ(line.rfind("# nccl: n/a: ", 0), 0u) << line;
    EXPECT_NE(line.find("(allreduce, allgather, alltoall)"), std::string::npos) << line;
    EXPECT_NE(line.find("--op dev_barrier"), std::string::npos) << line;
    EXPECT_EQ(line.back(), '\n');
}

} // namespace
