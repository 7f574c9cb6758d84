#include "transport/tcp/card.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether interface (name, ip) matches one comma-separated entry of spec. */
static int matches(const char *spec, const char *name, struct in_addr ip)
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
                struct in_addr net;
                char *end;
                long bits = strtol(slash + 1, &end, 10);
                if (inet_pton(AF_INET, buf, &net) == 1 && !*end && bits >= 0 && bits <= 32) {
                    uint32_t m = bits ? htonl(~0u << (32 - bits)) : 0;
                    if ((ip.s_addr & m) == (net.s_addr & m))
                        return 1;
                }
            }
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
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
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        tcp_addr_t a = { .ip = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr };
        if (i->ifa_netmask)
            a.mask = ((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr;
        if (spec && *spec) {
            if (matches(spec, i->ifa_name, a.ip) && n < max)
                out[n++] = a;
        } else if (i->ifa_flags & IFF_LOOPBACK) {
            if (!nloop)
                loop[nloop++] = a;
        } else if (n < max) {
            out[n++] = a;
        }
    }
    freeifaddrs(ifs);
    if (n == 0 && spec && *spec) {
        snprintf(err, (size_t)errlen,
                 "no network interface matches METAMPI_TCP_IF=%s (names or a.b.c.d/bits)", spec);
        return -1;
    }
    if (n == 0 && nloop && max > 0)
        out[n++] = loop[0];
    if (n == 0) {
        snprintf(err, (size_t)errlen, "no IPv4 network interface is up");
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
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &addrs[i].ip, ip, sizeof ip);
        int m = snprintf(out + len, (size_t)(TCP_CARD_LEN - len), "%s%s:%u", i ? "," : "", ip,
                         (unsigned)addrs[i].port);
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
        char ip[INET_ADDRSTRLEN];
        size_t n = strcspn(p, ":,");
        if (n == 0 || n >= sizeof ip || p[n] != ':')
            return "address is not a.b.c.d:port";
        memcpy(ip, p, n);
        ip[n] = '\0';
        if (c->naddr == TCP_CARD_MAX_ADDRS)
            return "too many addresses";
        tcp_addr_t *a = &c->addr[c->naddr];
        memset(a, 0, sizeof *a);
        if (inet_pton(AF_INET, ip, &a->ip) != 1)
            return "address is not IPv4 a.b.c.d";
        p += n + 1;
        unsigned long port = 0;
        int digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
            port = port * 10 + (unsigned long)(*p - '0');
        if (!digits || port == 0 || port > 65535)
            return "port is not 1..65535";
        a->port = (uint16_t)port;
        c->naddr++;
        if (*p == '\0')
            return NULL;
        if (*p != ',')
            return "junk after a port";
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
            same = local[j].mask.s_addr &&
                   (c->addr[i].ip.s_addr & local[j].mask.s_addr) ==
                       (local[j].ip.s_addr & local[j].mask.s_addr);
        if (same)
            near[nn++] = c->addr[i];
        else
            far[nf++] = c->addr[i];
    }
    memcpy(c->addr, near, (size_t)nn * sizeof *near);
    memcpy(c->addr + nn, far, (size_t)nf * sizeof *far);
}
