/* The segments of UCX's TCP transport, for symcoll's own context. UCX over TCP emulates a put in
 * software, one send per TX_SEG_SIZE (8 KiB by default); with 256 KiB segments a put over
 * loopback moved 2.5-3x the bytes (perf/NOTES.md, v0.17). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ucx_internal.h"

/* A receive segment must hold a sent one: both sizes are symcoll's, or both UCX's or the
 * user's. */
static const struct {
    const char *name, *value;
} tcp_segments[] = {{"TX_SEG_SIZE", "256k"}, {"RX_SEG_SIZE", "1m"}};

bool symcoll_ucx_may_use_tcp(const char *tls, const char *net_devices) {
    if (net_devices && strcmp(net_devices, "all") != 0)
        return false;
    if (!tls)
        return true;
    bool excluding = tls[0] == '^';
    char *list = strdup(excluding ? tls + 1 : tls);
    if (!list)
        return false; /* unsure: UCX's own segments, and no warning */
    bool listed = false;
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
        listed = listed || strcmp(name, "tcp") == 0 || strcmp(name, "all") == 0;
    free(list);
    return excluding != listed;
}

/* A transport's setting is named bare (TX_SEG_SIZE) before UCX 1.17 and with the transport's
 * prefix (TCP_TX_SEG_SIZE) from 1.17; each refuses the other's form, with a warning. */
static const char *tcp_prefix(const symcoll_ucx_t *t) {
    unsigned major = 0, minor = 0, release = 0;
    t->lib.ucp_get_version(&major, &minor, &release);
    return major > 1 || minor >= 17 ? "TCP_" : "";
}

symcoll_status_t symcoll_ucx_set_tcp_segments(symcoll_ucx_t *t, ucp_config_t *config) {
    t->caps.tcp_segments = !getenv("UCX_TCP_TX_SEG_SIZE") && !getenv("UCX_TCP_RX_SEG_SIZE") &&
                           symcoll_ucx_may_use_tcp(getenv("UCX_TLS"), getenv("UCX_NET_DEVICES"));
    for (size_t i = 0; t->caps.tcp_segments && i < sizeof tcp_segments / sizeof *tcp_segments;
         i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%s", tcp_prefix(t), tcp_segments[i].name);
        ucs_status_t status = t->lib.ucp_config_modify(config, name, tcp_segments[i].value);
        if (status != UCS_OK)
            return symcoll_ucx_fail(&t->lib, "ucp_config_modify", status, "%s=%s", name,
                                    tcp_segments[i].value);
    }
    return SYMCOLL_SUCCESS;
}
