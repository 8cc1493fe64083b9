// When symcoll gives its UCX context TCP segments: only where UCX may open a TCP interface
// under UCX_TLS and UCX_NET_DEVICES as UCX parsed them (UCX warns of a setting that no
// interface takes, at every init).
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include "transport/ucx/ucx_transport.h"

namespace {

// This test's host: eth0 and lo are network interfaces, nothing else is.
bool fake_netdev(const char *name, size_t len) {
    std::string n(name, len);
    return n == "eth0" || n == "lo";
}

bool may(const char *tls, const char *net_devices = "all") {
    return symcoll_ucx_may_use_tcp(tls, net_devices, fake_netdev);
}

} // namespace

TEST(UcxTcpSegments, UcxTlsAsUcxReadsIt) {
    EXPECT_TRUE(may("all"));
    EXPECT_TRUE(may("tcp"));
    EXPECT_TRUE(may("rc,sm,tcp"));
    EXPECT_TRUE(may("^sm"));
    EXPECT_TRUE(may("^all")); // UCX keeps every transport: none is named "all"
    EXPECT_FALSE(may("sm"));
    EXPECT_FALSE(may("rc,sm,self"));
    EXPECT_FALSE(may("sm,all")); // "all" counts only as the whole list
    EXPECT_FALSE(may("^tcp"));
    EXPECT_FALSE(may("^sm,tcp"));
    EXPECT_FALSE(may("tcpx"));
    EXPECT_FALSE(may("tcp:aux"));
}

TEST(UcxTcpSegments, UcxNetDevicesNameANetworkInterface) {
    EXPECT_TRUE(may("tcp", "all"));
    EXPECT_TRUE(may("tcp", "mlx5_0:1,all"));
    EXPECT_TRUE(may("tcp", "^mlx5_0:1"));
    EXPECT_TRUE(may("tcp", "eth0"));
    EXPECT_TRUE(may("all", "mlx5_0:1,eth0"));
    EXPECT_FALSE(may("all", "mlx5_0:1"));
    EXPECT_FALSE(may("all", "mlx5_0:1,mlx5_1:1"));
    EXPECT_FALSE(may("sm", "eth0"));
}
