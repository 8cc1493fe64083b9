/* The segments of UCX's TCP transport, for symcoll's own context. UCX over TCP emulates a put in
 * software, one send per TX_SEG_SIZE (8 KiB by default); with 256 KiB segments a put over
 * loopback moved 2.5-3x the bytes (perf/NOTES.md, v0.17). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "ucx_internal.h"

/* A receive segment must hold a sent one: both sizes are symcoll's, or both UCX's or the
 * user's. A send segment is 256 KiB and 256 bytes, room for UCX's headers (some 22 bytes of a
 * put's each send): the proxy's chunks are 256 KiB (or a multiple), and with 256 KiB segments
 * each took a second send of a few bytes. */
static const struct {
    const char *name, *value;
} tcp_segments[] = {{"TX_SEG_SIZE", "262400"}, {"RX_SEG_SIZE", "1m"}};

/* The next item of the comma-separated list at *p (len bytes at *item); false past its end. */
static bool next_item(const char **p, const char **item, size_t *len) {
    if (!*p)
        return false;
    *item = *p;
    *len = strcspn(*p, ",");
    *p = (*p)[*len] ? *p + *len + 1 : NULL;
    return true;
}

static bool listed(const char *list, const char *name) {
    const char *item;
    size_t len;
    while (next_item(&list, &item, &len))
        if (len == strlen(name) && strncmp(item, name, len) == 0)
            return true;
    return false;
}

bool symcoll_ucx_may_use_tcp(const char *tls, const char *net_devices,
                             bool (*is_netdev)(const char *name, size_t len)) {
    /* UCX takes "all" only as the whole list, and an exclusion keeps every transport it does
     * not name. */
    bool tcp =
        tls[0] == '^' ? !listed(tls + 1, "tcp") : strcmp(tls, "all") == 0 || listed(tls, "tcp");
    if (!tcp)
        return false;
    if (net_devices[0] == '^' || listed(net_devices, "all"))
        return true;
    /* TCP's devices are network interfaces; an InfiniBand port is dev:port. */
    const char *item;
    size_t len;
    while (next_item(&net_devices, &item, &len))
        if (len && is_netdev(item, len))
            return true;
    return false;
}

static bool is_netdev(const char *name, size_t len) {
    char path[128];
    if (memchr(name, '/', len) || len > 64)
        return false;
    snprintf(path, sizeof path, "/sys/class/net/%.*s", (int)len, name);
    return access(path, F_OK) == 0;
}

/* The value of UCX_<key> as UCX parsed it (its environment and ucx.conf files); NULL where UCX
 * does not print it. The caller frees it. */
static char *parsed_value(const symcoll_ucx_t *t, const ucp_config_t *config, const char *key) {
    char *text = NULL, *value = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    t->lib.ucp_config_print(config, f, NULL, UCS_CONFIG_PRINT_CONFIG);
    char line_start[64];
    snprintf(line_start, sizeof line_start, "UCX_%s=", key);
    size_t n = strlen(line_start);
    for (const char *line = fclose(f) == 0 ? text : NULL; line && !value;) {
        if (strncmp(line, line_start, n) == 0)
            value = strndup(line + n, strcspn(line + n, "\n"));
        const char *end = strchr(line, '\n');
        line = end ? end + 1 : NULL;
    }
    free(text);
    return value;
}

/* A transport's setting is named bare (TX_SEG_SIZE) before UCX 1.17 and with the transport's
 * prefix (TCP_TX_SEG_SIZE) from 1.17; each refuses the other's form, with a warning. */
static const char *tcp_prefix(const symcoll_ucx_t *t) {
    unsigned major = 0, minor = 0, release = 0;
    t->lib.ucp_get_version(&major, &minor, &release);
    return major > 1 || minor >= 17 ? "TCP_" : "";
}

symcoll_status_t symcoll_ucx_set_tcp_segments(symcoll_ucx_t *t, ucp_config_t *config) {
    char *tls = parsed_value(t, config, "TLS");
    char *net_devices = parsed_value(t, config, "NET_DEVICES");
    t->caps.tcp_segments = !getenv("UCX_TCP_TX_SEG_SIZE") && !getenv("UCX_TCP_RX_SEG_SIZE") &&
                           tls && net_devices &&
                           symcoll_ucx_may_use_tcp(tls, net_devices, is_netdev);
    free(tls);
    free(net_devices);
    const char *prefix = tcp_prefix(t);
    for (size_t i = 0; t->caps.tcp_segments && i < sizeof tcp_segments / sizeof *tcp_segments;
         i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%s", prefix, tcp_segments[i].name);
        ucs_status_t status = t->lib.ucp_config_modify(config, name, tcp_segments[i].value);
        if (status != UCS_OK) {
            t->caps.tcp_segments = false;
            return symcoll_ucx_fail(&t->lib, "ucp_config_modify", status, "%s=%s", name,
                                    tcp_segments[i].value);
        }
    }
    return SYMCOLL_SUCCESS;
}
