// The topology matrix (tuning/topology.h) from synthetic text: parsing, the slowest link of a
// strided team, the text form, and the messages for bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "internal.h"
#include "topology.h"
#include "topology_probe.h"

namespace {

// symcoll_topology_t is large (64 x 64 links): keep it off the stack.
std::unique_ptr<symcoll_topology_t> parse_ok(const std::string &text) {
    auto t = std::make_unique<symcoll_topology_t>();
    char err[256] = "";
    EXPECT_EQ(symcoll_topology_parse(text.c_str(), t.get(), err, sizeof err), 0) << err << "\n"
                                                                                 << text;
    return t;
}

std::string parse_error(const std::string &text) {
    auto t = std::make_unique<symcoll_topology_t>();
    char err[256] = "";
    EXPECT_EQ(symcoll_topology_parse(text.c_str(), t.get(), err, sizeof err), -1) << text;
    return err;
}

// n PEs, every pair linked by `link`, except the pairs listed in `except` (both directions).
std::string matrix(int n, const std::string &link,
                   const std::vector<std::tuple<int, int, std::string>> &except = {}) {
    std::vector<std::vector<std::string>> cell(n, std::vector<std::string>(n, link));
    for (int i = 0; i < n; i++)
        cell[i][i] = "X";
    for (const auto &[a, b, l] : except)
        cell[a][b] = cell[b][a] = l;
    std::ostringstream text;
    text << n << "\n";
    for (const auto &row : cell) {
        for (const std::string &c : row)
            text << c << " ";
        text << "\n";
    }
    return text.str();
}

std::string formatted(const symcoll_topology_t &t) {
    size_t need = symcoll_topology_format(&t, nullptr, 0);
    std::string s(need + 1, '\0');
    EXPECT_EQ(symcoll_topology_format(&t, s.data(), s.size()), need);
    s.resize(need);
    return s;
}

TEST(Topology, TwoPesOverNvlink) {
    auto t = parse_ok("2\nX NV18\nNV18 X\n");
    ASSERT_EQ(t->n_pes, 2);
    EXPECT_EQ(t->link[0][0].cls, TOPO_SAME_GPU);
    EXPECT_EQ(t->link[0][1].cls, TOPO_NVLINK);
    EXPECT_EQ(t->link[0][1].nvlinks, 18);
    EXPECT_EQ(t->link[1][0].nvlinks, 18);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 2), TOPO_NVLINK);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 1, 1, 1), TOPO_SAME_GPU) << "a team of one";
}

TEST(Topology, FourPesMixedLinks) {
    // 0-1 and 2-3 are NVLink pairs; across the pairs PCIe, except 1-2 without P2P.
    auto t = parse_ok("4\n"
                      "X    NV4  PIX  PIX\n"
                      "NV4  X    -    PIX\n"
                      "PIX  -    X    NV4\n"
                      "PIX  PIX  NV4  X\n");
    ASSERT_EQ(t->n_pes, 4);
    EXPECT_EQ(t->link[1][2].cls, TOPO_NO_P2P);
    EXPECT_EQ(t->link[0][2].cls, TOPO_PCIE_P2P);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 2), TOPO_NVLINK);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 2, 1, 2), TOPO_NVLINK);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 2, 2), TOPO_PCIE_P2P);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 1, 2, 2), TOPO_PCIE_P2P);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 3), TOPO_NO_P2P);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 4), TOPO_NO_P2P);
}

TEST(Topology, EightPesNvswitchWithOneBrokenPair) {
    auto t = parse_ok(matrix(8, "NV18", {{3, 7, "-"}, {0, 5, "PIX"}}));
    ASSERT_EQ(t->n_pes, 8);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 8), TOPO_NO_P2P);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 2, 4), TOPO_NVLINK) << "PEs 0 2 4 6";
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 1, 2, 4), TOPO_NO_P2P) << "PEs 1 3 5 7";
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 5, 2), TOPO_PCIE_P2P) << "PEs 0 5";
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 3, 4, 2), TOPO_NO_P2P) << "PEs 3 7";
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 1, 1, 2), TOPO_NVLINK);
}

TEST(Topology, SameGpuAndUnknownLinkCount) {
    auto t = parse_ok("3\nX SAME NV0\nSAME X NV0\nNV0 NV0 X\n");
    EXPECT_EQ(t->link[0][1].cls, TOPO_SAME_GPU);
    EXPECT_EQ(t->link[0][2].cls, TOPO_NVLINK);
    EXPECT_EQ(t->link[0][2].nvlinks, 0);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 2), TOPO_SAME_GPU);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 3), TOPO_NVLINK);
}

TEST(Topology, FormatShowsEveryCell) {
    auto t = parse_ok("4\n"
                      "X    NV4  PIX  -\n"
                      "NV4  X    SAME PIX\n"
                      "PIX  SAME X    NV12\n"
                      "-    PIX  NV12 X\n");
    std::string text = formatted(*t);
    const char *const rows[4][4] = {{"X", "NV4", "PIX", "-"},
                                    {"NV4", "X", "SAME", "PIX"},
                                    {"PIX", "SAME", "X", "NV12"},
                                    {"-", "PIX", "NV12", "X"}};
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    for (int j = 0; j < 4; j++)
        EXPECT_NE(line.find("PE" + std::to_string(j)), std::string::npos) << line;
    for (int i = 0; i < 4; i++) {
        ASSERT_TRUE(std::getline(lines, line)) << text;
        std::istringstream cells(line);
        std::string name, cell, bus;
        cells >> name;
        EXPECT_EQ(name, "PE" + std::to_string(i)) << line;
        for (int j = 0; j < 4; j++) {
            cells >> cell;
            EXPECT_EQ(cell, rows[i][j]) << "row " << i << " column " << j << ": " << line;
        }
        cells >> bus;
        EXPECT_EQ(bus, t->bus_id[i]) << line;
    }
}

TEST(Topology, FormatTruncatesSafely) {
    auto t = parse_ok(matrix(8, "NV18"));
    std::string full = formatted(*t);
    char small[40];
    std::memset(small, '#', sizeof small);
    EXPECT_EQ(symcoll_topology_format(t.get(), small, sizeof small), full.size());
    EXPECT_EQ(small[sizeof small - 1], '\0');
    EXPECT_EQ(std::string(small), full.substr(0, sizeof small - 1));
}

TEST(Topology, WriteIsWhatParseReads) {
    std::string text = "3\nX NV18 PIX\nNV18 X -\nPIX SAME X\n";
    auto t = parse_ok(text);
    size_t need = symcoll_topology_write(t.get(), nullptr, 0);
    std::string written(need + 1, '\0');
    EXPECT_EQ(symcoll_topology_write(t.get(), written.data(), written.size()), need);
    written.resize(need);
    auto again = parse_ok(written);
    EXPECT_EQ(written, "3\nX NV18 PIX\nNV18 X -\nPIX SAME X\n");
    EXPECT_EQ(std::memcmp(again->link, t->link, sizeof t->link), 0);
}

// NET: a PE of another node (no load/store path), written and read back as such; the nodes
// it splits the PEs into, as runs of contiguous ranks.
TEST(Topology, NetLinksSplitThePesIntoNodes) {
    std::string text = "4\nX NV4 NET NET\nNV4 X NET NET\nNET NET X NV4\nNET NET NV4 X\n";
    auto t = parse_ok(text);
    EXPECT_EQ(t->link[0][2].cls, TOPO_NO_P2P);
    EXPECT_EQ(t->link[0][2].other_node, 1);
    EXPECT_EQ(t->link[0][1].other_node, 0);
    EXPECT_EQ(symcoll_topology_team_class(t.get(), 0, 1, 4), TOPO_NO_P2P);
    size_t need = symcoll_topology_write(t.get(), nullptr, 0);
    std::string written(need + 1, '\0');
    symcoll_topology_write(t.get(), written.data(), written.size());
    written.resize(need);
    EXPECT_EQ(written, text);
    EXPECT_NE(formatted(*t).find("NET = another node"), std::string::npos) << formatted(*t);
    int leaders[SYMCOLL_TOPO_MAX_PES];
    ASSERT_EQ(symcoll_topology_nodes(t.get(), leaders), 2);
    EXPECT_EQ(leaders[0], 0);
    EXPECT_EQ(leaders[1], 2);
    ASSERT_EQ(symcoll_topology_nodes(parse_ok(matrix(3, "NET")).get(), leaders), 3);
    EXPECT_EQ(leaders[2], 2);
    EXPECT_EQ(symcoll_topology_nodes(parse_ok(matrix(3, "NV18", {{1, 2, "-"}})).get(), leaders), 1)
        << "no P2P inside a node is not another node";
    EXPECT_EQ(symcoll_topology_nodes(
                  parse_ok("4\nX NET NV4 NET\nNET X NET NV4\nNV4 NET X NET\nNET NV4 NET X\n").get(),
                  leaders),
              0)
        << "nodes {0, 2} and {1, 3} are not contiguous in rank";
}

TEST(Topology, ClassNames) {
    EXPECT_STREQ(symcoll_topo_class_name(TOPO_SAME_GPU), "same-gpu");
    EXPECT_STREQ(symcoll_topo_class_name(TOPO_NVLINK), "nvlink");
    EXPECT_STREQ(symcoll_topo_class_name(TOPO_PCIE_P2P), "pcie-p2p");
    EXPECT_STREQ(symcoll_topo_class_name(TOPO_NO_P2P), "no-p2p");
}

TEST(Topology, BadInputIsExplained) {
    const struct {
        std::string text, says;
    } cases[] = {
        {"", "first entry must be the PE count"},
        {"0\n", "first entry must be the PE count (1..64), got \"0\""},
        {"65\n", "got \"65\""},
        {"two\nX\n", "got \"two\""},
        {"2\nX NV18\nNV18\n", "row 1 has fewer than 2 entries"},
        {"2\nX NVx\nNV18 X\n", "row 0 column 1: \"NVx\""},
        {"2\nX NV\nNV X\n", "row 0 column 1: \"NV\""},
        {"2\nX NV-1\nNV-1 X\n", "row 0 column 1: \"NV-1\""},
        {"2\nX PCI\nPIX X\n", "row 0 column 1: \"PCI\""},
        {"2\nNV4 NV4\nNV4 X\n", "row 0 column 0: \"NV4\""},
        {"2\nX X\nX X\n", "row 0 column 1: \"X\""},
        {"2\nX NV4\nNV4 X\nPIX\n", "unexpected entry \"PIX\" after 2 rows"},
        {"2\nX NET\nNV4 X\n", "row 0 column 1 is NET, row 1 column 0 is not"},
        {"3\nX NV4 NET\nNV4 X NV4\nNET NV4 X\n", "NET must split the PEs into nodes"},
    };
    for (const auto &c : cases) {
        std::string err = parse_error(c.text);
        EXPECT_NE(err.find(c.says), std::string::npos)
            << "input:\n"
            << c.text << "\nmessage: " << err << "\nwanted: " << c.says;
    }
    char err[64] = "";
    auto t = std::make_unique<symcoll_topology_t>();
    EXPECT_EQ(symcoll_topology_parse(nullptr, t.get(), err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("PE count"), std::string::npos) << err;
}

// A bootstrap whose peers all agree with this PE, counting the exchanges it joins.
struct CountingBootstrap {
    symcoll_bootstrap_t b{};
    int exchanges = 0;
    CountingBootstrap() {
        b.name = "counting";
        b.rank = 0;
        b.size = 2;
        b.allgather = allgather;
        b.impl = this;
    }
    static symcoll_status_t allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                      size_t bytes) {
        static_cast<CountingBootstrap *>(b->impl)->exchanges++;
        for (int pe = 0; pe < b->size; pe++)
            std::memcpy(static_cast<char *>(all) + pe * bytes, mine, bytes);
        return SYMCOLL_SUCCESS;
    }
};

// A PE whose GPU query fails (device 1000 exists nowhere) still joins the bus id exchange, so
// that its peers learn of the failure instead of waiting for it until the init timeout.
TEST(TopologyProbe, FailedQueryStillJoinsTheExchange) {
    CountingBootstrap boot;
    const unsigned long long hosts[2] = {7, 7};
    auto t = std::make_unique<symcoll_topology_t>();
    EXPECT_NE(symcoll_topology_probe(&boot.b, 1000, hosts, t.get()), SYMCOLL_SUCCESS);
    EXPECT_NE(std::string(symcoll_last_error()).find("cudaDeviceGetPCIBusId"), std::string::npos)
        << symcoll_last_error();
    EXPECT_EQ(boot.exchanges, 1);
}

} // namespace
