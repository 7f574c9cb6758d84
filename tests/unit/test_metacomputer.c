/*
 * The metacomputer description parser (tools/mpirun/metacomputer.c, mc_parse): good
 * descriptions give the sites, hosts and settings they say; each bad one gives exactly the
 * expected one-line message with the right line number. Run under ASan too.
 */
#include "exec_prefix.h"
#include "metacomputer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static int parse(const char *text, metacomputer_t *mc, char *err, size_t errlen)
{
    /* an exact-size heap copy, so ASan sees any read past the end */
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    memcpy(copy, text, n);
    int rc = mc_parse(copy, "t.ini", mc, err, errlen);
    free(copy);
    return rc;
}

/* mc against expect: "site:host/slots,host/slots;site:...|gateway,gateway|wan,wan|streams,
 * compression,congestion[,plain][,outage=S]" (plain: encrypt = off; outage when given); frees
 * mc. */
static void summary(metacomputer_t *p, const char *text, const char *expect)
{
    metacomputer_t mc = *p;
    char got[4096];
    size_t len = 0;
    for (int s = 0; s < mc.nsites; s++) {
        const mc_site_t *st = &mc.site[s];
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s:", s ? ";" : "", st->name);
        for (int h = 0; h < st->nhosts; h++) {
            const host_entry_t *e = &mc.hosts.h[st->first_host + h];
            CHECK(mc.host_site[st->first_host + h] == s);
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%s/%d", h ? "," : "",
                                    e->name, e->slots);
        }
    }
    len += (size_t)snprintf(got + len, sizeof got - len, "|");
    for (int s = 0; s < mc.nsites; s++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", s ? "," : "",
                                mc.hosts.h[mc.site[s].gateway].name);
    len += (size_t)snprintf(got + len, sizeof got - len, "|");
    for (int s = 0; s < mc.nsites; s++) {
        if (mc.site[s].has_wan)
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", s ? "," : "",
                                    mc.site[s].wan);
        else
            len += (size_t)snprintf(got + len, sizeof got - len, "%s-", s ? "," : "");
    }
    len += (size_t)snprintf(got + len, sizeof got - len, "|%d,%s,%s%s", mc.streams,
                            mc_compression_name(mc.compression), mc.congestion,
                            mc.plaintext ? ",plain" : "");
    if (mc.outage >= 0)
        snprintf(got + len, sizeof got - len, ",outage=%d", mc.outage);
    if (strcmp(got, expect) != 0) {
        fprintf(stderr, "for\n%s\nexpected %s\n     got %s\n", text, expect, got);
        failures++;
    }
    int total = 0;
    for (int s = 0; s < mc.nsites; s++)
        total += mc.site[s].nhosts;
    CHECK(total == mc.hosts.n);
    mc_free(&mc);
}

static void good(const char *text, const char *expect)
{
    metacomputer_t mc;
    char err[1024];
    if (parse(text, &mc, err, sizeof err) != 0) {
        fprintf(stderr, "unexpected error for\n%s\n-> %s\n", text, err);
        failures++;
        return;
    }
    summary(&mc, text, expect);
}

static void bad(const char *text, const char *expect)
{
    metacomputer_t mc;
    char err[1024];
    if (parse(text, &mc, err, sizeof err) == 0) {
        fprintf(stderr, "no error for\n%s\n(expected: %s)\n", text, expect);
        failures++;
        mc_free(&mc);
        return;
    }
    CHECK(mc.nsites == 0 && mc.hosts.n == 0 && mc.site == NULL);
    CHECK(strchr(err, '\n') == NULL);
    if (strcmp(err, expect) != 0) {
        fprintf(stderr, "for\n%s\nexpected %s\n     got %s\n", text, expect, err);
        failures++;
    }
}

static void good_cases(void)
{
    /* the proposed format, with comments everywhere */
    good("[wan]                       ; link settings\n"
         "streams = 4                 ; parallel streams\n"
         "compression = auto\n"
         "\n"
         "# the first site\n"
         "[site stuttgart]\n"
         "hosts = s1h1:2, s1h2:2\n"
         "gateway = s1h1\n"
         "wan = 10.0.1.1:7000\n"
         "[site berlin]   ; the second\n"
         "hosts = s2h1:2,s2h2\n"
         "gateway = s2h2\n"
         "wan = 10.0.2.1:7000\n",
         "stuttgart:s1h1/2,s1h2/2;berlin:s2h1/2,s2h2/1|s1h1,s2h2|10.0.1.1:7000,10.0.2.1:7000|4,auto,auto");
    /* minimal: defaults (gateway = first host, no wan, streams not given (0), auto) */
    good("[site a]\nhosts = h1\n", "a:h1/1|h1|-|0,auto,auto");
    /* [wan] after the sites, CRLF line ends, a byte order mark, ':' as separator */
    good("\xEF\xBB\xBF[site a.b-c_1]\r\nhosts: x:3\r\n[wan]\r\ncompression = off\r\n",
         "a.b-c_1:x/3|x|-|0,off,auto");
    /* a host list continued on indented lines, with or without trailing commas, and empty
     * first line */
    good("[site big]\n"
         "hosts =\n"
         "    n01:4, n02:4,\n"
         "    n03:4\n"
         "\t n04:4 ; the last\n"
         "gateway = n03\n"
         "[site small]\n"
         "  hosts = m1     ; indented key right after a header is a key\n",
         "big:n01/4,n02/4,n03/4,n04/4;small:m1/1|n03,m1|-,-|0,auto,auto");
    /* blank lines and comment lines do not end a continued list */
    good("[site a]\nhosts = a1,\n\n  ; a comment\n   a2\n", "a:a1/1,a2/1|a1|-|0,auto,auto");
    /* the limits */
    good("[wan]\nstreams = 64\ncompression = on\n[site s]\nhosts = h:4096\nwan = 1.2.3.4:65535\n",
         "s:h/4096|h|1.2.3.4:65535|64,on,auto");
    /* IPv6 gateways, written as inet_ntop writes them; one site of each family */
    good("[site a]\nhosts = h\nwan = [FD00:0:0:1::0001]:7000\n[site b]\nhosts = i\n"
         "wan = 10.0.2.1:7000\n", "a:h/1;b:i/1|h,i|[fd00:0:0:1::1]:7000,10.0.2.1:7000|0,auto,auto");
    /* the congestion control: a kernel's name, system, auto; the longest name */
    good("[wan]\ncongestion = cubic\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,cubic");
    good("[site s]\nhosts = h\n[wan]\ncongestion = system\n", "s:h/1|h|-|0,auto,system");
    good("[wan]\ncongestion = auto\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,auto");
    /* TLS on the WAN streams: on by default, off only when asked */
    good("[wan]\nencrypt = on\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,auto");
    good("[wan]\nencrypt = off\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,auto,plain");
    good("[wan]\noutage = 0\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,auto,outage=0");
    good("[wan]\noutage = 86400\n[site s]\nhosts = h\n", "s:h/1|h|-|0,auto,auto,outage=86400");
    good("[wan]\ncongestion = abcdefghij_1234\n[site s]\nhosts = h\n",
         "s:h/1|h|-|0,auto,abcdefghij_1234");
    /* three sites, uneven */
    good("[site one]\nhosts = a\n[site two]\nhosts = b:2\n[site three]\nhosts = c, d:2\n",
         "one:a/1;two:b/2;three:c/1,d/2|a,b,c|-,-,-|0,auto,auto");
    /* a long site name; a section header with trailing comment */
    good("[site abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234] ; x\nhosts = h\n",
         "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234:h/1|h|-|0,auto,auto");
}

static void bad_cases(void)
{
    const char *P = "metacomputer 't.ini', line ";
    char e[1024];
#define BAD(text, line, msg) do { snprintf(e, sizeof e, "%s%d: %s", P, line, msg); bad(text, e); } while (0)
    BAD("[site a]\nhosts = h\n[sites b]\n", 3,
        "unknown section [sites b] (expected [wan], [rendezvous] or [site NAME])");
    BAD("[wan]\nstreams = 2\n[wan]\n", 3, "[wan] appears twice (first on line 1)");
    BAD("[site]\nhosts = h\n", 1, "a site needs a name: [site NAME]");
    BAD("[site a b]\n", 1,
        "invalid site name 'a b' (expected 1 to 64 letters, digits, '.', '-' or '_')");
    BAD("[site abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij12345]\n", 1,
        "invalid site name 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij12345' "
        "(expected 1 to 64 letters, digits, '.', '-' or '_')");
    BAD("[site a]\nhosts = h\n[site a]\nhosts = g\n", 3,
        "site 'a' is described twice (first on line 1)");
    BAD("[site a] x\n", 1, "unexpected 'x' after the section header");
    BAD("[site a\nhosts = h\n", 1, "a section header without its closing ']'");
    BAD("[site a]\nhosts h\n", 2,
        "expected KEY = VALUE, a section header ([wan], [site NAME]) or a comment (';' or '#')");
    BAD("hosts = h\n[site a]\n", 1,
        "'hosts' outside a section (expected [wan], [rendezvous] or [site NAME] before it)");
    BAD("[site a]\nhosts = h\nslots = 4\n", 3,
        "unknown key 'slots' in [site a] (expected hosts, gateway, wan, exec_prefix, "
        "reachable, cert, key, ca or crl)");
    BAD("[site a]\nhosts = h\nreachable = maybe\n", 3,
        "invalid reachable 'maybe' (expected yes, or no: the site's gateway accepts no "
        "connection from other sites and opens its links itself)");
    BAD("[site a]\nhosts = h\nreachable = no\n[site b]\nhosts = g\n[site c]\nhosts = f\n"
        "reachable = no\n", 8,
        "sites 'a' (line 3) and 'c' are both unreachable: their gateways could not open the "
        "link between them (of every two sites, one must be reachable)");
    BAD("[wan]\nrate = 1g\n", 2,
        "unknown key 'rate' in [wan] (expected streams, compression, congestion, encrypt or "
        "outage)");
#define OUTAGE_EXPECTED "(expected 0 to 86400 seconds a broken WAN link may stay down before " \
                        "the job ends)"
    BAD("[wan]\noutage = 86401\n", 2, "invalid outage '86401' " OUTAGE_EXPECTED);
    BAD("[wan]\noutage = -1\n", 2, "invalid outage '-1' " OUTAGE_EXPECTED);
    BAD("[wan]\noutage = 1m\n", 2, "invalid outage '1m' " OUTAGE_EXPECTED);
    BAD("[wan]\noutage = 5\noutage = 6\n", 3, "'outage' appears twice (first on line 2)");
#define CC_EXPECTED "(expected auto, system or the name of a TCP congestion control such as " \
                    "cubic or bbr: up to 15 of a-z, 0-9, _)"
    BAD("[wan]\ncongestion = Cubic\n", 2, "invalid congestion 'Cubic' " CC_EXPECTED);
    BAD("[wan]\ncongestion = bbr cubic\n", 2, "invalid congestion 'bbr cubic' " CC_EXPECTED);
    BAD("[wan]\ncongestion = abcdefghij_12345\n", 2,
        "invalid congestion 'abcdefghij_12345' " CC_EXPECTED);
    BAD("[wan]\ncongestion =\n", 2, "invalid congestion '' " CC_EXPECTED);
    BAD("[wan]\ncongestion = reno\ncongestion = cubic\n", 3,
        "'congestion' appears twice (first on line 2)");
    BAD("[wan]\nstreams = 0\n", 2,
        "invalid streams '0' (expected 1 to 64 parallel TCP streams per pair of sites)");
    BAD("[wan]\nstreams = 65\n", 2,
        "invalid streams '65' (expected 1 to 64 parallel TCP streams per pair of sites)");
    BAD("[wan]\nstreams = 4x\n", 2,
        "invalid streams '4x' (expected 1 to 64 parallel TCP streams per pair of sites)");
    BAD("[wan]\nstreams = 2\nstreams = 3\n", 3, "'streams' appears twice (first on line 2)");
    BAD("[wan]\ncompression = yes\n", 2, "invalid compression 'yes' (expected auto, on or off)");
    BAD("[wan]\nencrypt = yes\n", 2, "invalid encrypt 'yes' (expected on or off)");
    BAD("[wan]\nencrypt = on\nencrypt = off\n", 3, "'encrypt' appears twice (first on line 2)");
    BAD("[site a]\nhosts = h:0\n", 2,
        "invalid host 'h:0' (expected NAME or NAME:SLOTS, SLOTS from 1 to 4096; NAME of "
        "letters, digits, '.', '-', '_')");
    BAD("[site a]\nhosts = h:4097\n", 2,
        "invalid host 'h:4097' (expected NAME or NAME:SLOTS, SLOTS from 1 to 4096; NAME of "
        "letters, digits, '.', '-', '_')");
    BAD("[site a]\nhosts = a/b\n", 2,
        "invalid host 'a/b' (expected NAME or NAME:SLOTS, SLOTS from 1 to 4096; NAME of "
        "letters, digits, '.', '-', '_')");
    BAD("[site a]\nhosts = a,,b\n", 2, "an empty entry in the list of hosts of site 'a'");
    BAD("[site a]\nhosts = x, y, x:2\n", 2,
        "host 'x' is listed twice in site 'a' (give its slots once, as NAME:SLOTS)");
    BAD("[site a]\nhosts = x\n[site b]\nhosts = y,\n  x\n", 5,
        "host 'x' is in two sites, 'a' (line 2) and 'b'");
    BAD("[site a]\nhosts = x\nhosts = y\n", 3, "'hosts' appears twice (first on line 2)");
    BAD("[site a]\nhosts = x\ngateway = y\n", 3, "gateway 'y' is not one of the hosts of site 'a'");
    BAD("[site a]\nhosts = x\n[site b]\nhosts = y\ngateway = x\n", 5,
        "gateway 'x' is not one of the hosts of site 'b'");
    BAD("[site a]\nhosts = x\ngateway = x:2\n", 3,
        "invalid gateway 'x:2' (expected the name of one of the site's hosts)");
    BAD("[site a]\nhosts = x\ngateway = x\ngateway = x\n", 4,
        "'gateway' appears twice (first on line 3)");
    BAD("[site a]\nhosts = x\nwan = 10.0.0.1\n", 3,
        "site 'a': invalid wan '10.0.0.1': no port (expected ADDRESS:PORT) (expected IPv4:PORT or [IPv6]:PORT where "
        "other sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = 10.0.0.1:0\n", 3,
        "site 'a': invalid wan '10.0.0.1:0': the port is not 1..65535 (expected IPv4:PORT or [IPv6]:PORT where "
        "other sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = 10.0.0.256:7\n", 3,
        "site 'a': invalid wan '10.0.0.256:7': not an IPv4 address (a.b.c.d) (expected IPv4:PORT or [IPv6]:PORT where "
        "other sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = 0.0.0.0:7000\n", 3,
        "site 'a': invalid wan '0.0.0.0:7000': not an address other hosts can reach (unspecified, multicast or broadcast) (expected IPv4:PORT or [IPv6]:PORT where "
        "other sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = node1:7000\n", 3,
        "site 'a': invalid wan 'node1:7000': not a numeric IPv4 or IPv6 address (expected IPv4:PORT or [IPv6]:PORT where "
        "other sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = fd00::1:7000\n", 3,
        "site 'a': invalid wan 'fd00::1:7000': no port (an IPv6 address with a port is "
        "[v6]:PORT) (expected IPv4:PORT or [IPv6]:PORT where other sites reach this site's "
        "gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = [::]:7000\n", 3,
        "site 'a': invalid wan '[::]:7000': not an address other hosts can reach (unspecified, "
        "multicast or broadcast) (expected IPv4:PORT or [IPv6]:PORT where other sites reach "
        "this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = [ff02::1]:7000\n", 3,
        "site 'a': invalid wan '[ff02::1]:7000': not an address other hosts can reach "
        "(unspecified, multicast or broadcast) (expected IPv4:PORT or [IPv6]:PORT where other "
        "sites reach this site's gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = [fe80::1]:7000\n", 3,
        "site 'a': invalid wan '[fe80::1]:7000': an IPv6 link-local address means nothing at "
        "another site (expected IPv4:PORT or [IPv6]:PORT where other sites reach this site's "
        "gateway, e.g. 192.0.2.1:7000 or [2001:db8::1]:7000)");
    BAD("[site a]\nhosts = x\nwan = [fd00::1]:7000\n[site b]\nhosts = y\nwan = [fd00:0::1]:7000\n", 6,
        "wan [fd00::1]:7000 is also the address of site 'a' (line 3)");
    BAD("[site a]\nhosts = x\nwan = 10.0.0.1:7000\n[site b]\nhosts = y\nwan = 10.0.0.1:7000\n", 6,
        "wan 10.0.0.1:7000 is also the address of site 'a' (line 3)");
    BAD("[site a]\nhosts = x\n[site b]\n", 3,
        "site 'b' has no hosts (expected hosts = NAME[:SLOTS], ...)");
    BAD("[site a]\nhosts =\ngateway = x\n", 1,
        "site 'a' has no hosts (expected hosts = NAME[:SLOTS], ...)");
    BAD("[site a]\nhosts = x\ngateway = x\n   y\n", 4,
        "an indented line continues the value of 'gateway' (only a list of hosts continues on "
        "indented lines; keys start at the beginning of a line)");
    BAD("[site a]\nhosts = x\n  wan = 1.2.3.4:5\n", 3,
        "invalid host 'wan = 1.2.3.4:5' (expected NAME or NAME:SLOTS, SLOTS from 1 to 4096; "
        "NAME of letters, digits, '.', '-', '_')");
    /* the first error in file order wins: a syntax error before a meaning error ... */
    BAD("[site a]\nnonsense\nslots = 1\n", 2,
        "expected KEY = VALUE, a section header ([wan], [site NAME]) or a comment (';' or '#')");
    /* ... and a meaning error before a syntax error */
    BAD("[site a]\nslots = 1\nnonsense\n", 2,
        "unknown key 'slots' in [site a] (expected hosts, gateway, wan, exec_prefix, "
        "reachable, cert, key, ca or crl)");
    bad("", "metacomputer 't.ini': describes no site (expected at least one [site NAME] section "
            "with hosts = NAME[:SLOTS], ...)");
    bad("; only a comment\n[wan]\nstreams = 2\n",
        "metacomputer 't.ini': describes no site (expected at least one [site NAME] section "
        "with hosts = NAME[:SLOTS], ...)");
    /* a line longer than inih's buffer is refused, not split */
    char big[600];
    int n = snprintf(big, sizeof big, "[site a]\nhosts = ");
    for (int i = 0; n < 500; i++)
        n += snprintf(big + n, sizeof big - (size_t)n, "host%03d:1, ", i);
    snprintf(big + n, sizeof big - (size_t)n, "x\n");
    metacomputer_t mc;
    char err[1024];
    CHECK(parse(big, &mc, err, sizeof err) == -1);
    CHECK(strstr(err, "metacomputer 't.ini', line 2: the line is longer than ") == err);
    CHECK(strstr(err, "(a long list of hosts continues on indented lines)") != NULL);
    /* unprintable text is shown escaped */
    CHECK(parse("[site a]\nhosts = h\x01x\n", &mc, err, sizeof err) == -1);
    CHECK(strchr(err, '\x01') == NULL);
    /* a small error buffer truncates, never overflows */
    char small[16];
    CHECK(parse("[site a]\n", &mc, small, sizeof small) == -1 && strlen(small) == 15);
#undef BAD
}

/* Many sites and hosts: 256 sites are fine, 257 are not; 1024 hosts fine, 1025 not. */
static void limits(void)
{
    size_t cap = 1 << 20, len = 0;
    char *t = malloc(cap);
    for (int s = 0; s < 256; s++)
        len += (size_t)snprintf(t + len, cap - len, "[site s%d]\nhosts = a%d:1, b%d:2, c%d:3, d%d\n",
                                s, s, s, s, s);
    metacomputer_t mc;
    char err[1024];
    CHECK(parse(t, &mc, err, sizeof err) == 0);
    CHECK(mc.nsites == 256 && mc.hosts.n == 1024 && mc.host_site[1023] == 255);
    CHECK(hostlist_slots(&mc.hosts) == 256 * 7);
    mc_free(&mc);
    snprintf(t + len, cap - len, "[site s256]\nhosts = z\n");
    CHECK(parse(t, &mc, err, sizeof err) == -1);
    CHECK(strcmp(err, "metacomputer 't.ini', line 513: more than 256 sites") == 0);
    len = 0;
    for (int s = 0; s < 2; s++) {
        len += (size_t)snprintf(t + len, cap - len, "[site s%d]\nhosts =\n", s);
        for (int h = 0; h < 513; h++)
            len += (size_t)snprintf(t + len, cap - len, "  s%dh%d\n", s, h);
    }
    CHECK(parse(t, &mc, err, sizeof err) == -1);
    CHECK(strcmp(err, "metacomputer 't.ini', line 1029: more than 1024 hosts") == 0);
    free(t);
}

/* The example of examples/ (argv[1]) says what docs/metacomputer.md says it does. */
static void example(const char *path)
{
    metacomputer_t mc;
    char err[1024];
    if (mc_read_file(path, &mc, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        failures++;
        return;
    }
    summary(&mc, path, "stuttgart:s1n1/2,s1n2/2;berlin:b1/2,b2/2|s1n1,b1|"
                       "192.0.2.10:7000,198.51.100.20:7000|4,auto,auto,outage=60");
    /* a file that is not there, and one with a NUL byte */
    CHECK(mc_read_file("/nonexistent/mc.ini", &mc, err, sizeof err) == -1);
    CHECK(strcmp(err, "cannot open metacomputer description '/nonexistent/mc.ini': No such "
                      "file or directory") == 0);
    char tmp[] = "/tmp/test_metacomputer.XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, "[site a]\nhosts = h\0\n", 20) == 20);
        close(fd);
        CHECK(mc_read_file(tmp, &mc, err, sizeof err) == -1);
        char want[256];
        snprintf(want, sizeof want, "metacomputer '%s', line 2: contains a NUL byte", tmp);
        CHECK(strcmp(err, want) == 0);
        unlink(tmp);
    }
}

/* A site's exec_prefix (exec_prefix.h): kept as written, per site; the rank's argv is its
 * words, then the program's. */
static void exec_prefix_cases(void)
{
    metacomputer_t mc;
    char err[1024];
    const char *text = "[site a]\nhosts = h\n[site b]\nhosts = g\n"
                       "exec_prefix =  qemu-s390x\t -L /usr/s390x-linux-gnu \n";
    CHECK(parse(text, &mc, err, sizeof err) == 0);
    if (mc.nsites == 2) {
        CHECK(mc.site[0].exec_prefix == NULL);
        CHECK(mc.site[1].exec_prefix &&
              strcmp(mc.site[1].exec_prefix, "qemu-s390x\t -L /usr/s390x-linux-gnu") == 0);
        char *prog[] = { "./app", "-n", "3", NULL };
        char **argv = exec_prefix_argv(mc.site[1].exec_prefix, prog);
        const char *want[] = { "qemu-s390x", "-L", "/usr/s390x-linux-gnu", "./app", "-n", "3" };
        for (int i = 0; i < 6; i++)
            CHECK(argv[i] && strcmp(argv[i], want[i]) == 0);
        CHECK(argv[6] == NULL);
        free(argv);
        argv = exec_prefix_argv(NULL, prog);
        CHECK(argv[0] == prog[0] && argv[3] == NULL);
        free(argv);
        mc_free(&mc);
    }
    bad("[site a]\nhosts = h\nexec_prefix = qemu-s390x\nexec_prefix = numactl\n",
        "metacomputer 't.ini', line 4: 'exec_prefix' appears twice (first on line 3)");
    bad("[site a]\nhosts = h\nexec_prefix = sh -c 'x y'\n",
        "metacomputer 't.ini', line 3: invalid exec_prefix 'sh -c 'x y'': contains a quote or "
        "backslash ('): words are separated by blanks, nothing is quoted");
    bad("[site a]\nhosts = h\nexec_prefix = \\\\x\n",
        "metacomputer 't.ini', line 3: invalid exec_prefix '\\\\x': contains a quote or "
        "backslash (\\): words are separated by blanks, nothing is quoted");
}

/* [site] cert, key, ca: paths beside the description, at every site or none, in threes. */
static void x509_cases(void)
{
    const char *two = "[site a]\nhosts = h\ncert = a.pem\nkey = /k/a.key\nca = ../ca.pem\n"
                      "[site b]\nhosts = g\ncert = b.pem\nkey = b.key\nca = ca.pem\n";
    metacomputer_t mc;
    char err[1024];
    if (mc_parse(two, "/etc/mc/t.ini", &mc, err, sizeof err) != 0) {
        fprintf(stderr, "unexpected error: %s\n", err);
        failures++;
    } else {
        CHECK(strcmp(mc.site[0].x509[MC_CERT], "/etc/mc/a.pem") == 0);
        CHECK(strcmp(mc.site[0].x509[MC_KEY], "/k/a.key") == 0);
        CHECK(strcmp(mc.site[0].x509[MC_CA], "/etc/mc/../ca.pem") == 0);
        CHECK(strcmp(mc.site[1].x509[MC_KEY], "/etc/mc/b.key") == 0);
        mc_free(&mc);
    }
    if (mc_parse("[site a]\nhosts = h\n", "t.ini", &mc, err, sizeof err) == 0) {
        CHECK(mc.site[0].x509[MC_CERT] == NULL);
        mc_free(&mc);
    }
    const char *P = "metacomputer 't.ini', line ";
    char e[1024];
#define BAD(text, line, msg) do { snprintf(e, sizeof e, "%s%d: %s", P, line, msg); bad(text, e); } while (0)
    BAD("[site a]\nhosts = h\ncert = a.pem\nca = ca.pem\n", 1,
        "site 'a': cert, key and ca go together (key is missing)");
    BAD("[site a]\nhosts = h\ncert = a.pem\nkey = a.key\nca = c\n[site b]\nhosts = g\n", 6,
        "site 'a' has cert, key and ca but site 'b' has none: X.509 is used at every site or "
        "at none");
    BAD("[site a]\nhosts = h\n[site b]\nhosts = g\nkey = b.key\ncert = b\nca = c\n", 3,
        "site 'b' has cert, key and ca but site 'a' has none: X.509 is used at every site or "
        "at none");
    BAD("[wan]\nencrypt = off\n[site a]\nhosts = h\ncert = a\nkey = k\nca = c\n", 2,
        "encrypt = off with cert, key and ca at the sites: certificates need TLS (encrypt = "
        "on)");
    BAD("[site a]\nhosts = h\nca =\n", 3,
        "site 'a': ca is empty (expected the path of a PEM file on the gateway's host)");
    BAD("[site a]\nhosts = h\nkey = a\nkey = b\n", 4, "'key' appears twice (first on line 3)");
    /* crl: optional, with the three */
    BAD("[site a]\nhosts = h\ncrl = r.pem\n", 3,
        "site 'a': crl needs cert, key and ca (a CRL is checked on links that use X.509)");
    /* [rendezvous]: the server's three (crl optional), with X.509 at the sites */
    const char *rdv = "[site a]\nhosts = h\ncert = a\nkey = k\nca = c\ncrl = r\n"
                      "[rendezvous]\ncert = s.pem\nkey = /s.key\nca = c\ncrl = r2\n";
    if (mc_parse(rdv, "/etc/mc/t.ini", &mc, err, sizeof err) != 0) {
        fprintf(stderr, "unexpected error: %s\n", err);
        failures++;
    } else {
        CHECK(strcmp(mc.site[0].x509[MC_CRL], "/etc/mc/r") == 0);
        CHECK(strcmp(mc.rdv_x509[MC_CERT], "/etc/mc/s.pem") == 0);
        CHECK(strcmp(mc.rdv_x509[MC_KEY], "/s.key") == 0);
        CHECK(strcmp(mc.rdv_x509[MC_CRL], "/etc/mc/r2") == 0);
        mc_free(&mc);
    }
    BAD("[site a]\nhosts = h\ncert = a\nkey = k\nca = c\n[rendezvous]\ncert = s\nca = c\n", 6,
        "[rendezvous]: cert, key and ca go together (key is missing)");
    BAD("[site a]\nhosts = h\n[rendezvous]\ncert = s\nkey = k\nca = c\n", 3,
        "[rendezvous] has cert, key and ca but the sites have none: the parts show their "
        "sites' certificates to the server");
    BAD("[rendezvous]\nlisten = x\n[site a]\nhosts = h\n", 2,
        "unknown key 'listen' in [rendezvous] (expected cert, key, ca or crl)");
    BAD("[rendezvous]\n[rendezvous]\n", 2, "[rendezvous] appears twice (first on line 1)");
    BAD("[site a]\nhosts = h\n[rendezvous]\nkey =\n", 4,
        "[rendezvous]: key is empty (expected the path of a PEM file on the rendezvous "
        "server's host)");
#undef BAD
}

int main(int argc, char **argv)
{
    x509_cases();
    exec_prefix_cases();
    good_cases();
    bad_cases();
    limits();
    if (argc > 1)
        example(argv[1]);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("metacomputer parser: ok\n");
    return 0;
}
