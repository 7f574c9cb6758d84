#include "transport/tcp/card.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether interface (name, a) matches one comma-separated entry of spec: a name, or a subnet
 * ADDRESS/BITS of either family. */
static int matches(const char *spec, const char *name, const net_addr_t *a)
{
    char buf[256];
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        if (n && n < sizeof buf) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            char *slash = strchr(buf, '/');
            if (!slash) {
                if (strcmp(buf, name) == 0)
                    return 1;
            } else {
                *slash = '\0';
                net_addr_t net;
                char *end;
                long bits = strtol(slash + 1, &end, 10);
                if (!net_addr_parse(buf, NET_ADDR_NUMERIC | NET_ADDR_PORT_OPTIONAL, 0, &net,
                                    NULL, 0) &&
                    slash[1] && !*end && net_addr_same_prefix(a, &net, (int)bits))
                    return 1;
            }
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Appends a to out[0..*n) (at most max), IPv4 before IPv6 so that a card lists them so. */
static void add(tcp_addr_t *out, int *n, int max, const tcp_addr_t *a)
{
    if (*n >= max)
        return;
    int at = *n;
    if (net_addr_family(&a->a) == AF_INET)
        while (at > 0 && net_addr_family(&out[at - 1].a) != AF_INET)
            at--;
    memmove(out + at + 1, out + at, (size_t)(*n - at) * sizeof *out);
    out[at] = *a;
    (*n)++;
}

int tcp_local_addrs(const char *spec, tcp_addr_t *out, int max, char *err, int errlen)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0) {
        snprintf(err, (size_t)errlen, "cannot list the network interfaces");
        return -1;
    }
    int n = 0, nloop = 0;
    tcp_addr_t loop[1];
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        tcp_addr_t a;
        if (!(i->ifa_flags & IFF_UP) || net_addr_from_sockaddr(&a.a, i->ifa_addr) != 0 ||
            net_addr_is_link_local(&a.a))
            continue;
        net_addr_set_port(&a.a, 0);
        a.prefix = net_addr_mask_bits(i->ifa_netmask);
        if (spec && *spec) {
            if (matches(spec, i->ifa_name, &a.a))
                add(out, &n, max, &a);
        } else if (i->ifa_flags & IFF_LOOPBACK) {
            if (!nloop || (net_addr_family(&a.a) == AF_INET &&
                           net_addr_family(&loop[0].a) != AF_INET)) {
                loop[0] = a;  /* 127.0.0.1 rather than ::1 */
                nloop = 1;
            }
        } else {
            add(out, &n, max, &a);
        }
    }
    freeifaddrs(ifs);
    if (n == 0 && spec && *spec) {
        snprintf(err, (size_t)errlen, "no network interface matches METAMPI_TCP_IF=%s (names, "
                 "a.b.c.d/bits or v6/bits)", spec);
        return -1;
    }
    if (n == 0 && nloop && max > 0)
        out[n++] = loop[0];
    if (n == 0) {
        snprintf(err, (size_t)errlen, "no IPv4 or IPv6 network interface is up");
        return -1;
    }
    return n;
}

int tcp_card_format(const char *host, const tcp_addr_t *addrs, int naddr, char *out)
{
    int len = snprintf(out, TCP_CARD_LEN, "%s|", host);
    if (len < 0 || len >= TCP_CARD_LEN)
        return -1;
    for (int i = 0; i < naddr; i++) {
        char a[NET_ADDR_TEXT];
        net_addr_format(&addrs[i].a, a, sizeof a);
        int m = snprintf(out + len, (size_t)(TCP_CARD_LEN - len), "%s%s", i ? "," : "", a);
        if (m < 0 || m >= TCP_CARD_LEN - len)
            return -1;
        len += m;
    }
    return 0;
}

const char *tcp_card_parse(const char *s, tcp_card_t *c)
{
    const char *bar = strchr(s, '|');
    if (!bar)
        return "no '|' after the host name";
    size_t hl = (size_t)(bar - s);
    if (hl == 0 || hl >= sizeof c->host)
        return "host name empty or too long";
    memcpy(c->host, s, hl);
    c->host[hl] = '\0';
    c->naddr = 0;
    for (const char *p = bar + 1;;) {
        char one[NET_ADDR_TEXT];
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof one)
            return "an address is empty or too long";
        if (c->naddr == TCP_CARD_MAX_ADDRS)
            return "too many addresses";
        memcpy(one, p, n);
        one[n] = '\0';
        tcp_addr_t *a = &c->addr[c->naddr];
        a->prefix = -1;
        if (net_addr_parse(one, NET_ADDR_NUMERIC, 0, &a->a, NULL, 0) ||
            !net_addr_is_unicast(&a->a))
            return "an address is not a.b.c.d:port or [v6]:port (port 1..65535)";
        c->naddr++;
        p += n;
        if (*p == '\0')
            return NULL;
        p++;
    }
}

void tcp_card_order(tcp_card_t *c, const tcp_addr_t *local, int nlocal)
{
    tcp_addr_t near[TCP_CARD_MAX_ADDRS], far[TCP_CARD_MAX_ADDRS];
    int nn = 0, nf = 0;
    for (int i = 0; i < c->naddr; i++) {
        int same = 0;
        for (int j = 0; j < nlocal && !same; j++)
            same = local[j].prefix > 0 &&
                   net_addr_same_prefix(&c->addr[i].a, &local[j].a, local[j].prefix);
        if (same)
            near[nn++] = c->addr[i];
        else
            far[nf++] = c->addr[i];
    }
    memcpy(c->addr, near, (size_t)nn * sizeof *near);
    memcpy(c->addr + nn, far, (size_t)nf * sizeof *far);
}
