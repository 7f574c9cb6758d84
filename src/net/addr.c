#include "net/addr.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1".."65535" (0 with zero_ok) in decimal, nothing after it: the port, or -1. */
static int parse_port(const char *s, int zero_ok)
{
    long v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (++digits > 5)
            return -1;
        v = 10 * v + (*s - '0');
    }
    if (!digits || *s || v > 65535 || (v == 0 && !zero_ok))
        return -1;
    return (int)v;
}

/* A numeric IPv6 address with an optional "%zone" (an interface name or index). */
static int parse_v6(const char *s, int zone_ok, struct sockaddr_in6 *v6)
{
    char buf[NET_ADDR_HOST_TEXT + IF_NAMESIZE + 2];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *pct = strchr(buf, '%');
    if (pct && !zone_ok)
        return -1;
    if (pct)
        *pct++ = '\0';
    *v6 = (struct sockaddr_in6){ .sin6_family = AF_INET6 };
    if (inet_pton(AF_INET6, buf, &v6->sin6_addr) != 1)
        return -1;
    if (pct) {
        unsigned idx = if_nametoindex(pct);
        char *end;
        unsigned long n = strtoul(pct, &end, 10);
        if (!idx && (!*pct || *end || n == 0 || n > UINT32_MAX))
            return -1;
        v6->sin6_scope_id = idx ? idx : (uint32_t)n;
    }
    return 0;
}

static const char *resolve(const char *host, net_addr_t *a, char *why, size_t whycap)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    int g = getaddrinfo(host, NULL, &hints, &ai);
    if (g != 0) {
        if (why)
            snprintf(why, whycap, "%s", gai_strerror(g));
        return "the host name does not resolve";
    }
    int rc = -1;
    for (struct addrinfo *i = ai; i && rc != 0; i = i->ai_next)
        rc = net_addr_from_sockaddr(a, i->ai_addr);
    freeaddrinfo(ai);
    return rc == 0 ? NULL : "the host name has no IPv4 or IPv6 address";
}

const char *net_addr_parse(const char *s, int flags, int default_port, net_addr_t *a,
                           char *why, size_t whycap)
{
    char host[256];
    const char *port = NULL;
    *a = (net_addr_t){ .len = 0 };
    if (why && whycap)
        why[0] = '\0';
    if (!s || !*s)
        return "the address is empty";
    int bracketed = s[0] == '[', colons = 0;
    for (const char *p = s; *p; p++)
        colons += *p == ':';
    size_t hl;
    if (bracketed) {
        const char *close = strchr(s, ']');
        if (!close)
            return "'[' without ']'";
        if (close[1] && close[1] != ':')
            return "junk after ']' (expected ]:PORT)";
        hl = (size_t)(close - s - 1);
        if (close[1])
            port = close + 2;
        s++;
    } else if (colons == 1) {
        port = strchr(s, ':') + 1;
        hl = (size_t)(port - 1 - s);
    } else {
        hl = strlen(s);  /* no colon: v4 or a name; two or more: a bare v6 */
    }
    if (hl == 0)
        return "the address is empty";
    if (hl >= sizeof host)
        return "the address is too long";
    memcpy(host, s, hl);
    host[hl] = '\0';

    int p;
    if (port) {
        p = parse_port(port, flags & NET_ADDR_PORT_ZERO);
        if (p < 0)
            return flags & NET_ADDR_PORT_ZERO ? "the port is not 0..65535"
                                              : "the port is not 1..65535";
    } else if (flags & NET_ADDR_PORT_OPTIONAL) {
        p = default_port;
    } else {
        return colons >= 2 && !bracketed ? "no port (an IPv6 address with a port is [v6]:PORT)"
                                         : "no port (expected ADDRESS:PORT)";
    }

    if (bracketed || colons >= 2) {
        if (parse_v6(host, !(flags & NET_ADDR_NUMERIC), &a->u.v6) != 0)
            return "not an IPv6 address";
        a->len = sizeof a->u.v6;
    } else if (inet_pton(AF_INET, host, &a->u.v4.sin_addr) == 1) {
        a->u.v4.sin_family = AF_INET;
        a->len = sizeof a->u.v4;
    } else {
        int looks_v4 = strspn(host, "0123456789.") == hl;
        if (looks_v4)
            return "not an IPv4 address (a.b.c.d)";
        if (flags & NET_ADDR_NUMERIC)
            return "not a numeric IPv4 or IPv6 address";
        const char *bad = resolve(host, a, why, whycap);
        if (bad)
            return bad;
    }
    net_addr_set_port(a, p);
    return NULL;
}

void net_addr_host_text(const net_addr_t *a, char *out, size_t cap)
{
    char ip[INET6_ADDRSTRLEN];
    if (a->len && a->u.sa.sa_family == AF_INET)
        inet_ntop(AF_INET, &a->u.v4.sin_addr, ip, sizeof ip);
    else if (a->len && a->u.sa.sa_family == AF_INET6)
        inet_ntop(AF_INET6, &a->u.v6.sin6_addr, ip, sizeof ip);
    else
        snprintf(ip, sizeof ip, "?");
    snprintf(out, cap, "%s", ip);
}

void net_addr_format(const net_addr_t *a, char *out, size_t cap)
{
    char ip[NET_ADDR_HOST_TEXT];
    net_addr_host_text(a, ip, sizeof ip);
    if (!a->len)
        snprintf(out, cap, "?");
    else if (a->u.sa.sa_family == AF_INET6)
        snprintf(out, cap, "[%s]:%d", ip, net_addr_port(a));
    else
        snprintf(out, cap, "%s:%d", ip, net_addr_port(a));
}

int net_addr_from_sockaddr(net_addr_t *a, const struct sockaddr *sa)
{
    *a = (net_addr_t){ .len = 0 };
    if (sa && sa->sa_family == AF_INET) {
        memcpy(&a->u.v4, sa, sizeof a->u.v4);
        a->len = sizeof a->u.v4;
    } else if (sa && sa->sa_family == AF_INET6) {
        memcpy(&a->u.v6, sa, sizeof a->u.v6);
        a->len = sizeof a->u.v6;
    } else {
        return -1;
    }
    return 0;
}

int net_addr_family(const net_addr_t *a)
{
    return a->len ? a->u.sa.sa_family : AF_UNSPEC;
}

const char *net_addr_family_name(int family)
{
    return family == AF_INET ? "IPv4" : family == AF_INET6 ? "IPv6" : "no family";
}

int net_addr_port(const net_addr_t *a)
{
    if (!a->len)
        return 0;
    return ntohs(a->u.sa.sa_family == AF_INET6 ? a->u.v6.sin6_port : a->u.v4.sin_port);
}

void net_addr_set_port(net_addr_t *a, int port)
{
    if (a->len && a->u.sa.sa_family == AF_INET6)
        a->u.v6.sin6_port = htons((uint16_t)port);
    else if (a->len)
        a->u.v4.sin_port = htons((uint16_t)port);
}

int net_addr_is_wildcard(const net_addr_t *a)
{
    if (net_addr_family(a) == AF_INET)
        return a->u.v4.sin_addr.s_addr == htonl(INADDR_ANY);
    return net_addr_family(a) == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&a->u.v6.sin6_addr);
}

int net_addr_is_unicast(const net_addr_t *a)
{
    if (net_addr_family(a) == AF_INET) {
        uint32_t h = ntohl(a->u.v4.sin_addr.s_addr);
        return h != 0 && h != 0xffffffffu && (h >> 28) != 0xe;
    }
    return net_addr_family(a) == AF_INET6 && !IN6_IS_ADDR_UNSPECIFIED(&a->u.v6.sin6_addr) &&
           !IN6_IS_ADDR_MULTICAST(&a->u.v6.sin6_addr);
}

int net_addr_is_link_local(const net_addr_t *a)
{
    return net_addr_family(a) == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a->u.v6.sin6_addr);
}

int net_addr_is_loopback(const net_addr_t *a)
{
    if (net_addr_family(a) == AF_INET)
        return (ntohl(a->u.v4.sin_addr.s_addr) >> 24) == 127;
    return net_addr_family(a) == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&a->u.v6.sin6_addr);
}

/* The address bytes of a (network order) and how many. */
static const unsigned char *addr_bytes(const net_addr_t *a, int *n)
{
    if (net_addr_family(a) == AF_INET) {
        *n = 4;
        return (const unsigned char *)&a->u.v4.sin_addr;
    }
    *n = 16;
    return (const unsigned char *)&a->u.v6.sin6_addr;
}

int net_addr_same_prefix(const net_addr_t *a, const net_addr_t *b, int bits)
{
    if (!a->len || net_addr_family(a) != net_addr_family(b))
        return 0;
    int n;
    const unsigned char *x = addr_bytes(a, &n), *y = addr_bytes(b, &n);
    if (bits < 0 || bits > 8 * n)
        return 0;
    for (int i = 0; i < bits / 8; i++)
        if (x[i] != y[i])
            return 0;
    unsigned char m = (unsigned char)(0xff00u >> (bits % 8));
    return bits % 8 == 0 || (x[bits / 8] & m) == (y[bits / 8] & m);
}

int net_addr_mask_bits(const struct sockaddr *mask)
{
    net_addr_t m;
    if (!mask || net_addr_from_sockaddr(&m, mask) != 0)
        return -1;
    int n, bits = 0;
    const unsigned char *p = addr_bytes(&m, &n);
    for (int i = 0; i < n && p[i] == 0xff; i++)
        bits += 8;
    if (bits < 8 * n)
        for (unsigned char c = p[bits / 8]; c & 0x80; c = (unsigned char)(c << 1))
            bits++;
    return bits;
}

int net_host_has_family(int family)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return -1;
    int found = 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        net_addr_t a;
        found = (i->ifa_flags & IFF_UP) && net_addr_from_sockaddr(&a, i->ifa_addr) == 0 &&
                net_addr_family(&a) == family && !net_addr_is_loopback(&a) &&
                !net_addr_is_link_local(&a);
    }
    freeifaddrs(ifs);
    return found;
}
