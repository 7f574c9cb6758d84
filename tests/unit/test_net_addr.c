/* Addresses of either family (net/addr.h) and the TCP transport's cards that carry them:
 *   - the parser: [v6]:PORT, bare v6, v4:PORT, v4, host names (localhost), ports 0..65535,
 *     zones, and bad input each with its reason;
 *   - the text form: written the same as it is read, brackets for IPv6 only;
 *   - prefixes, netmasks, wildcard/unicast/link-local, the families this host has;
 *   - a listener on the IPv6 wildcard takes IPv4 and IPv6 clients (dual stack), one on ::1
 *     only IPv6 ones;
 *   - cards: IPv4 and IPv6 addresses in one card, formatted and parsed back, ordered by the
 *     local prefixes of either family, and malformed cards refused. */
#include "net/addr.h"
#include "net/sock.h"
#include "transport/tcp/card.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

/* s parses with flags into the text form `text` (family fam). */
static void good(const char *s, int flags, int def, int fam, const char *text)
{
    net_addr_t a;
    char why[128], out[NET_ADDR_TEXT];
    const char *bad = net_addr_parse(s, flags, def, &a, why, sizeof why);
    if (bad) {
        fprintf(stderr, "'%s': refused: %s %s\n", s, bad, why);
        failures++;
        return;
    }
    net_addr_format(&a, out, sizeof out);
    if (net_addr_family(&a) != fam || strcmp(out, text) != 0) {
        fprintf(stderr, "'%s': got %s (%s), expected %s\n", s, out,
                net_addr_family_name(net_addr_family(&a)), text);
        failures++;
    }
}

/* s is refused with flags, for a reason containing `reason`. */
static void refused(const char *s, int flags, const char *reason)
{
    net_addr_t a;
    const char *bad = net_addr_parse(s, flags, 0, &a, NULL, 0);
    if (!bad || !strstr(bad, reason)) {
        fprintf(stderr, "'%s': expected refusal '%s', got %s\n", s ? s : "(null)", reason,
                bad ? bad : "accepted");
        failures++;
    }
}

static void parser(void)
{
    const int N = NET_ADDR_NUMERIC, OPT = NET_ADDR_PORT_OPTIONAL, Z = NET_ADDR_PORT_ZERO;
    good("10.0.0.1:7000", N, 0, AF_INET, "10.0.0.1:7000");
    good("[fd00::1]:7000", N, 0, AF_INET6, "[fd00::1]:7000");
    good("[FD00:0:0::0001]:65535", N, 0, AF_INET6, "[fd00::1]:65535");
    good("[::ffff:10.0.0.3]:9", N, 0, AF_INET6, "[::ffff:10.0.0.3]:9");
    good("fd00::1", N | OPT, 80, AF_INET6, "[fd00::1]:80");
    good("fd00::1:80", N | OPT, 5, AF_INET6, "[fd00::1:80]:5");  /* a bare v6 has no port */
    good("[fd00::2]", N | OPT, 6, AF_INET6, "[fd00::2]:6");
    good("192.0.2.1", N | OPT, 7, AF_INET, "192.0.2.1:7");
    good("[::]:0", N | Z, 0, AF_INET6, "[::]:0");
    good("0.0.0.0:0", N | Z, 0, AF_INET, "0.0.0.0:0");
    good("[fe80::1%lo]:7", 0, 0, AF_INET6, "[fe80::1]:7");
    good("[fe80::1%1]:7", 0, 0, AF_INET6, "[fe80::1]:7");
    net_addr_t a;
    EXPECT(net_addr_parse("localhost:7000", 0, 0, &a, NULL, 0) == NULL &&
           net_addr_is_loopback(&a) && net_addr_port(&a) == 7000);

    refused(NULL, N, "empty");
    refused("", N, "empty");
    refused(":7000", N, "empty");
    refused("[]:7000", N, "empty");
    refused("10.0.0.1", N, "no port");
    refused("fd00::1", N, "[v6]:PORT");
    refused("[fd00::1]", N, "no port");
    refused("10.0.0.1:0", N, "1..65535");
    refused("10.0.0.1:0", N | OPT, "1..65535");
    refused("10.0.0.1:65536", N, "1..65535");
    refused("10.0.0.1:123456", N | Z, "0..65535");
    refused("10.0.0.1:-1", N, "1..65535");
    refused("10.0.0.1:+80", N, "1..65535");
    refused("10.0.0.1:80x", N, "1..65535");
    refused("10.0.0.1: 80", N, "1..65535");
    refused("10.0.0.256:80", N, "not an IPv4");
    refused("10.0.1:80", N, "not an IPv4");
    refused("10.0.01.1:80", N, "not an IPv4");
    refused("[10.0.0.1]:80", N, "not an IPv6");
    refused("[fd00::1", N, "without ']'");
    refused("[fd00::1]80", N, "junk after ']'");
    refused("[fd00::1]:", N, "1..65535");
    refused("[fd00:::1]:80", N, "not an IPv6");
    refused("[fd00::g]:80", N, "not an IPv6");
    refused("[fe80::1%lo]:80", N, "not an IPv6");          /* no zones from another process */
    refused("[fe80::1%nosuchif0]:80", 0, "not an IPv6");
    refused("node1:7000", N, "not a numeric");
    refused("no..such.invalid:7000", 0, "does not resolve");  /* an empty label: no query sent */
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    refused(long_name, N | OPT, "too long");
}

static void properties(void)
{
    net_addr_t a, b;
    const int F = NET_ADDR_NUMERIC | NET_ADDR_PORT_OPTIONAL | NET_ADDR_PORT_ZERO;
    net_addr_parse("::", F, 0, &a, NULL, 0);
    EXPECT(net_addr_is_wildcard(&a) && !net_addr_is_unicast(&a));
    net_addr_parse("0.0.0.0", F, 0, &a, NULL, 0);
    EXPECT(net_addr_is_wildcard(&a) && !net_addr_is_unicast(&a));
    net_addr_parse("ff02::1", F, 0, &a, NULL, 0);
    EXPECT(!net_addr_is_unicast(&a));
    net_addr_parse("224.0.0.1", F, 0, &a, NULL, 0);
    EXPECT(!net_addr_is_unicast(&a));
    net_addr_parse("255.255.255.255", F, 0, &a, NULL, 0);
    EXPECT(!net_addr_is_unicast(&a));
    net_addr_parse("fe80::5", F, 0, &a, NULL, 0);
    EXPECT(net_addr_is_unicast(&a) && net_addr_is_link_local(&a));
    net_addr_parse("fd00::1:2", F, 0, &a, NULL, 0);
    net_addr_parse("fd00::1:3", F, 0, &b, NULL, 0);
    EXPECT(net_addr_same_prefix(&a, &b, 64) && net_addr_same_prefix(&a, &b, 126) &&
           !net_addr_same_prefix(&a, &b, 128) && !net_addr_same_prefix(&a, &b, 129));
    net_addr_parse("10.1.2.3", F, 0, &b, NULL, 0);
    EXPECT(!net_addr_same_prefix(&a, &b, 0));  /* families differ */
    net_addr_parse("10.1.200.3", F, 0, &a, NULL, 0);
    EXPECT(net_addr_same_prefix(&a, &b, 16) && !net_addr_same_prefix(&a, &b, 17));
    net_addr_parse("255.255.240.0", F, 0, &a, NULL, 0);
    EXPECT(net_addr_mask_bits(&a.u.sa) == 20);
    net_addr_parse("ffff:ffff:ffff:ffff::", F, 0, &a, NULL, 0);
    EXPECT(net_addr_mask_bits(&a.u.sa) == 64);
    net_addr_parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", F, 0, &a, NULL, 0);
    EXPECT(net_addr_mask_bits(&a.u.sa) == 128);
    net_addr_t none = { .len = 0 };
    char out[NET_ADDR_TEXT];
    net_addr_format(&none, out, sizeof out);
    EXPECT(strcmp(out, "?") == 0);
    EXPECT(strcmp(net_addr_family_name(AF_INET6), "IPv6") == 0);
}

/* A client of family `client` reaches a listener on `where`: 1, or 0. */
static int reaches(const char *where, const char *client)
{
    net_addr_t l, c;
    const int F = NET_ADDR_NUMERIC | NET_ADDR_PORT_ZERO;
    if (net_addr_parse(where, F, 0, &l, NULL, 0))
        return 0;
    int lfd = net_listen(&l, 4, 0);
    if (lfd < 0)
        return -1;
    char text[NET_ADDR_TEXT];
    snprintf(text, sizeof text, "%s:%d", client, net_addr_port(&l));
    int ok = 0;
    if (!net_addr_parse(text, NET_ADDR_NUMERIC, 0, &c, NULL, 0)) {
        int fd = net_socket_for(&c, 0);
        ok = fd >= 0 && connect(fd, &c.u.sa, c.len) == 0;
        if (fd >= 0)
            close(fd);
    }
    close(lfd);
    return ok;
}

static void listeners(void)
{
    net_addr_t probe;
    net_addr_parse("[::1]:0", NET_ADDR_NUMERIC | NET_ADDR_PORT_ZERO, 0, &probe, NULL, 0);
    int fd = net_listen(&probe, 1, 0);
    if (fd < 0) {
        printf("no IPv6 on this host (%s): listener checks skipped\n", strerror(errno));
        return;
    }
    close(fd);
    EXPECT(reaches("[::]:0", "127.0.0.1") == 1);  /* the wildcard is dual-stack */
    EXPECT(reaches("[::]:0", "[::1]") == 1);
    EXPECT(reaches("[::1]:0", "[::1]") == 1);
    EXPECT(reaches("[::1]:0", "127.0.0.1") == 0);
    EXPECT(reaches("127.0.0.1:0", "127.0.0.1") == 1);
}

static void cards(void)
{
    tcp_addr_t addrs[3];
    const int F = NET_ADDR_NUMERIC;
    net_addr_parse("10.0.0.1:4000", F, 0, &addrs[0].a, NULL, 0);
    net_addr_parse("[fd00::1]:4001", F, 0, &addrs[1].a, NULL, 0);
    net_addr_parse("[2001:db8::7]:4002", F, 0, &addrs[2].a, NULL, 0);
    char card[TCP_CARD_LEN];
    EXPECT(tcp_card_format("h1", addrs, 3, card) == 0);
    EXPECT(strcmp(card, "h1|10.0.0.1:4000,[fd00::1]:4001,[2001:db8::7]:4002") == 0);
    tcp_card_t c;
    EXPECT(tcp_card_parse(card, &c) == NULL && c.naddr == 3 && strcmp(c.host, "h1") == 0 &&
           net_addr_port(&c.addr[2].a) == 4002);

    /* from a host on 2001:db8::/64 only, the matching IPv6 address comes first */
    tcp_addr_t local[1] = { { .prefix = 64 } };
    net_addr_parse("2001:db8::9", F | NET_ADDR_PORT_OPTIONAL, 0, &local[0].a, NULL, 0);
    tcp_card_order(&c, local, 1);
    char first[NET_ADDR_TEXT];
    net_addr_format(&c.addr[0].a, first, sizeof first);
    EXPECT(strcmp(first, "[2001:db8::7]:4002") == 0);
    net_addr_format(&c.addr[1].a, first, sizeof first);
    EXPECT(strcmp(first, "10.0.0.1:4000") == 0);

    EXPECT(tcp_card_parse("h|10.0.0.1:1", &c) == NULL);
    EXPECT(tcp_card_parse("h|[fd00::1]:1", &c) == NULL);
    EXPECT(tcp_card_parse("h|fd00::1:1", &c) != NULL);      /* a v6 port needs brackets */
    EXPECT(tcp_card_parse("h|[fd00::1]:0", &c) != NULL);
    EXPECT(tcp_card_parse("h|[::]:7", &c) != NULL);         /* not an address to dial */
    EXPECT(tcp_card_parse("h|[fe80::1%lo]:7", &c) != NULL);
    EXPECT(tcp_card_parse("h|10.0.0.1:1,", &c) != NULL);
    EXPECT(tcp_card_parse("h|", &c) != NULL);
    EXPECT(tcp_card_parse("|10.0.0.1:1", &c) != NULL);
    EXPECT(tcp_card_parse("h|[fd00::1]:1,[fd00::2]:2x", &c) != NULL);

    /* the local list: every address is of a family, none link-local, IPv4 ones first */
    tcp_addr_t mine[TCP_CARD_MAX_ADDRS];
    char err[200];
    int n = tcp_local_addrs(NULL, mine, TCP_CARD_MAX_ADDRS, err, sizeof err);
    EXPECT(n >= 1);
    int seen_v6 = 0;
    for (int i = 0; i < n; i++) {
        EXPECT(!net_addr_is_link_local(&mine[i].a));
        if (net_addr_family(&mine[i].a) == AF_INET6)
            seen_v6 = 1;
        else
            EXPECT(!seen_v6);
    }
    /* net_host_has_family agrees with the list (loopback only when nothing else is up) */
    for (int fam = AF_INET; fam <= AF_INET6; fam += AF_INET6 - AF_INET) {
        int listed = 0;
        for (int i = 0; i < n; i++)
            listed |= net_addr_family(&mine[i].a) == fam && !net_addr_is_loopback(&mine[i].a);
        EXPECT(net_host_has_family(fam) == listed);
    }
    EXPECT(tcp_local_addrs("::1/128", mine, TCP_CARD_MAX_ADDRS, err, sizeof err) <= 1);
    EXPECT(tcp_local_addrs("203.0.113.0/24,2001:db8:ffff::/48", mine, TCP_CARD_MAX_ADDRS, err,
                           sizeof err) == -1 && strstr(err, "v6/bits"));
}

int main(void)
{
    parser();
    properties();
    listeners();
    cards();
    return expect_done("net_addr");
}
