/*
 * The metacomputer description, parsed with inih (Debian: libinih-dev).
 *
 * inih does the INI syntax: comments (';' or '#' at the start of a line, ';' after a blank
 * inside one), "[section]" lines, "key = value" (or "key: value") pairs, and values that
 * continue on indented lines (the handler is called again with the same key). Three things
 * it does not tell its handler are needed here, so the reader that feeds it the text line by
 * line watches for them, following inih's own rules:
 *   - section headers: inih calls the handler only for key lines, so an empty [site NAME]
 *     would go unseen; and it cuts section names at 50 bytes. The reader recognises every
 *     header itself (a line whose first non-blank character is '[', unless it continues a
 *     value) and the handler uses the reader's section, not inih's;
 *   - line numbers: the handler is called while inih works on the line the reader gave it
 *     last;
 *   - over-long lines: inih reads into a fixed buffer and would silently split a longer line
 *     in two; the reader refuses it instead (long host lists continue on indented lines).
 * The first error (in file order) is the one reported; the reader then ends the input.
 */
#include "metacomputer.h"

#include "exec_prefix.h"

#include "util.h"

#include "runtime/tunables.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MC_FILE_MAX (1u << 20)
#define SHOWN_MAX 80   /* characters of user text quoted in a message */

typedef enum { SEC_NONE, SEC_WAN, SEC_RDV, SEC_SITE, SEC_BAD } section_t;

/* What the parser remembers of a site beyond mc_site_t. */
typedef struct site_state {
    int hosts_line, gateway_line, wan_line, exec_prefix_line, reachable_line, x509_line[MC_X509_KEYS];
    char *gateway;
} site_state_t;

typedef struct parser {
    const char *name;          /* file name, for messages */
    const char *next;          /* the text not yet given to inih */
    int lineno;                /* of the line inih works on */
    const char *line;          /* that line in the text, and its length without '\n' */
    size_t line_len;
    metacomputer_t *mc;
    site_state_t *ss;          /* per site */
    int *host_line;            /* per host: the line that listed it */
    section_t sec;
    int site;                  /* SEC_SITE: index */
    char prev_key[64];         /* the key an indented line continues; "" after a header */
    int wan_line, streams_line, compression_line, congestion_line, encrypt_line, outage_line;
    int rdv_line, rdv_x509_line[MC_X509_KEYS]; /* [rendezvous] and its keys */
    int failed, err_line;
    char *err;
    size_t errlen;
} parser_t;

static void fail_at(parser_t *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_at(parser_t *p, int line, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    p->err_line = line;
    int n = line > 0 ? snprintf(p->err, p->errlen, "metacomputer '%s', line %d: ", p->name, line)
                     : snprintf(p->err, p->errlen, "metacomputer '%s': ", p->name);
    if (n < 0 || (size_t)n >= p->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* s[0..len) made printable for a message. */
static const char *shown(char *buf, size_t cap, const char *s, size_t len)
{
    util_sanitize(buf, cap, s, len, SHOWN_MAX);
    return buf;
}

static int blank(char c)
{
    return isspace((unsigned char)c);
}

static int valid_site_name(const char *s, size_t len)
{
    if (len == 0 || len > MC_SITE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
            return 0;
    return 1;
}

/* ---- the reader: feeds inih one line at a time and sees the section headers ---------- */

static void new_site(parser_t *p, const char *name, size_t len)
{
    char tmp[SHOWN_MAX * 4 + 8];
    metacomputer_t *mc = p->mc;
    for (int s = 0; s < mc->nsites; s++)
        if (strlen(mc->site[s].name) == len && memcmp(mc->site[s].name, name, len) == 0) {
            fail_at(p, p->lineno, "site '%s' is described twice (first on line %d)",
                    shown(tmp, sizeof tmp, name, len), mc->site[s].line);
            return;
        }
    if (mc->nsites == MC_SITES_MAX) {
        fail_at(p, p->lineno, "more than %d sites", MC_SITES_MAX);
        return;
    }
    mc->site = util_xrealloc(mc->site, (size_t)(mc->nsites + 1) * sizeof *mc->site);
    p->ss = util_xrealloc(p->ss, (size_t)(mc->nsites + 1) * sizeof *p->ss);
    mc_site_t *st = &mc->site[mc->nsites];
    memset(st, 0, sizeof *st);
    st->name = util_xmalloc(len + 1);
    memcpy(st->name, name, len);
    st->name[len] = '\0';
    st->line = p->lineno;
    st->first_host = mc->hosts.n;
    st->gateway = -1;
    memset(&p->ss[mc->nsites], 0, sizeof p->ss[mc->nsites]);
    p->site = mc->nsites++;
    p->sec = SEC_SITE;
}

/* A header line: the text between '[' and ']' is c[0..n), after the ']' comes rest. */
static void header(parser_t *p, const char *c, size_t n, const char *rest, const char *end)
{
    char tmp[SHOWN_MAX * 4 + 8];
    p->prev_key[0] = '\0';
    p->sec = SEC_BAD;
    while (rest < end && blank(*rest))
        rest++;
    if (rest < end && *rest != ';' && *rest != '#') {
        fail_at(p, p->lineno, "unexpected '%s' after the section header",
                shown(tmp, sizeof tmp, rest, (size_t)(end - rest)));
        return;
    }
    while (n && blank(*c))
        c++, n--;
    while (n && blank(c[n - 1]))
        n--;
    if (n == 3 && memcmp(c, "wan", 3) == 0) {
        if (p->wan_line)
            fail_at(p, p->lineno, "[wan] appears twice (first on line %d)", p->wan_line);
        p->wan_line = p->lineno;
        p->sec = SEC_WAN;
    } else if (n == 10 && memcmp(c, "rendezvous", 10) == 0) {
        if (p->rdv_line)
            fail_at(p, p->lineno, "[rendezvous] appears twice (first on line %d)", p->rdv_line);
        p->rdv_line = p->lineno;
        p->sec = SEC_RDV;
    } else if (n >= 4 && memcmp(c, "site", 4) == 0 && (n == 4 || blank(c[4]))) {
        const char *name = c + 4;
        size_t len = n - 4;
        while (len && blank(*name))
            name++, len--;
        if (len == 0)
            fail_at(p, p->lineno, "a site needs a name: [site NAME]");
        else if (!valid_site_name(name, len))
            fail_at(p, p->lineno, "invalid site name '%s' (expected 1 to %d letters, digits, "
                    "'.', '-' or '_')", shown(tmp, sizeof tmp, name, len), MC_SITE_NAME_MAX);
        else
            new_site(p, name, len);
    } else {
        fail_at(p, p->lineno, "unknown section [%s] (expected [wan], [rendezvous] or [site NAME])",
                shown(tmp, sizeof tmp, c, n));
    }
}

/* Classifies the line just read the way inih will: comment or blank, continuation of a
 * value, section header, or key line (the handler's business). */
static void see_line(parser_t *p)
{
    const char *line = p->line, *s = line, *end = line + p->line_len;
    if (p->lineno == 1 && p->line_len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;  /* a UTF-8 byte order mark */
    while (end > s && blank(end[-1]))
        end--;
    while (s < end && blank(*s))
        s++;
    if (s == end || *s == ';' || *s == '#')
        return;
    if (p->prev_key[0] && s > line)
        return;  /* continues the previous key's value */
    if (*s != '[')
        return;
    /* inih's rule: the header ends at ']', unless a ';' after a blank starts a comment */
    const char *q = s + 1;
    int was_space = 0;
    while (q < end && *q != ']' && !(was_space && *q == ';')) {
        was_space = blank(*q);
        q++;
    }
    if (q < end && *q == ']')
        header(p, s + 1, (size_t)(q - s - 1), q + 1, end);
    else
        p->sec = SEC_BAD;  /* inih reports this line as malformed */
}

static char *reader(char *buf, int num, void *stream)
{
    parser_t *p = stream;
    if (p->failed || !*p->next)
        return NULL;
    const char *s = p->next;
    size_t len = strcspn(s, "\n");
    size_t with_nl = len + (s[len] == '\n');
    p->lineno++;
    p->line = s;
    p->line_len = len;
    p->next = s + with_nl;
    if (num < 3 || with_nl > (size_t)num - 1) {
        fail_at(p, p->lineno, "the line is longer than %d characters (a long list of hosts "
                "continues on indented lines)", num < 3 ? 0 : num - 2);
        return NULL;
    }
    memcpy(buf, s, with_nl);
    buf[with_nl] = '\0';
    see_line(p);
    return buf;
}

/* ---- values ----------------------------------------------------------------------------- */

static int parse_int(const char *s, long min, long max, long *v)
{
    if (!*s || strlen(s) > 9)
        return -1;
    for (const char *q = s; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    *v = strtol(s, NULL, 10);
    return *v >= min && *v <= max ? 0 : -1;
}

/* "a.b.c.d:PORT" or "[v6]:PORT", numeric (the gateways of other sites read it without a
 * resolver of this site's) -> its text form in out[NET_ADDR_TEXT]; an address others can
 * reach (not unspecified, multicast or broadcast). NULL, or what is wrong. */
static const char *parse_wan(const char *s, char *out, size_t cap)
{
    net_addr_t a;
    const char *why = net_addr_parse(s, NET_ADDR_NUMERIC, 0, &a, NULL, 0);
    if (!why && !net_addr_is_unicast(&a))
        why = "not an address other hosts can reach (unspecified, multicast or broadcast)";
    if (!why && net_addr_is_link_local(&a))
        why = "an IPv6 link-local address means nothing at another site";
    if (!why)
        net_addr_format(&a, out, cap);
    return why;
}

/* Checks that key appears once in its section: *line is where it was first seen. */
static int once(parser_t *p, const char *key, int *line)
{
    if (*line) {
        fail_at(p, p->lineno, "'%s' appears twice (first on line %d)", key, *line);
        return -1;
    }
    *line = p->lineno;
    return 0;
}

/* One line's part of a list of hosts: "a:2, b:2" (a trailing comma when it continues). */
static void add_hosts(parser_t *p, const char *value)
{
    metacomputer_t *mc = p->mc;
    mc_site_t *st = &mc->site[p->site];
    char tmp[SHOWN_MAX * 4 + 8], tmp2[SHOWN_MAX * 4 + 8];
    /* inih versions differ in cutting inline comments off continuation lines: cut here */
    size_t total = 0;
    while (value[total] && !(value[total] == ';' && total && blank(value[total - 1])))
        total++;
    while (total && blank(value[total - 1]))
        total--;
    if (total && value[total - 1] == ',')
        total--;
    if (!total)
        return;  /* "hosts =" with the list on the following lines */
    const char *v = value, *stop = value + total;
    for (;;) {
        const char *e = memchr(v, ',', (size_t)(stop - v));
        if (!e)
            e = stop;
        const char *a = v, *b = e;
        while (a < b && blank(*a))
            a++;
        while (b > a && blank(b[-1]))
            b--;
        const char *name;
        size_t nlen;
        int slots;
        if (a == b) {
            fail_at(p, p->lineno, "an empty entry in the list of hosts of site '%s'", st->name);
            return;
        }
        if (hostlist_parse_entry(a, (size_t)(b - a), &name, &nlen, &slots) != 0) {
            fail_at(p, p->lineno, "invalid host '%s' (expected NAME or NAME:SLOTS, SLOTS from 1 "
                    "to %d; NAME of letters, digits, '.', '-', '_')",
                    shown(tmp, sizeof tmp, a, (size_t)(b - a)), MPIRUN_MAX_RANKS);
            return;
        }
        int known = hostlist_find(&mc->hosts, name, nlen);
        if (known >= 0) {
            int other = mc->host_site[known];
            if (other == p->site)
                fail_at(p, p->lineno, "host '%s' is listed twice in site '%s' (give its slots "
                        "once, as NAME:SLOTS)", shown(tmp, sizeof tmp, name, nlen), st->name);
            else
                fail_at(p, p->lineno, "host '%s' is in two sites, '%s' (line %d) and '%s'",
                        shown(tmp, sizeof tmp, name, nlen),
                        shown(tmp2, sizeof tmp2, mc->site[other].name,
                              strlen(mc->site[other].name)),
                        p->host_line[known], st->name);
            return;
        }
        char why[128];
        if (hostlist_add(&mc->hosts, name, nlen, slots, why, sizeof why) != 0) {
            fail_at(p, p->lineno, "%s", why);
            return;
        }
        int n = mc->hosts.n;
        mc->host_site = util_xrealloc(mc->host_site, (size_t)n * sizeof *mc->host_site);
        p->host_line = util_xrealloc(p->host_line, (size_t)n * sizeof *p->host_line);
        mc->host_site[n - 1] = p->site;
        p->host_line[n - 1] = p->lineno;
        st->nhosts++;
        if (e == stop)
            return;
        v = e + 1;
    }
}

static void wan_key(parser_t *p, const char *key, const char *value)
{
    char tmp[SHOWN_MAX * 4 + 8];
    long v;
    if (strcmp(key, "streams") == 0) {
        if (once(p, key, &p->streams_line) != 0)
            return;
        if (parse_int(value, 1, MC_STREAMS_MAX, &v) != 0)
            fail_at(p, p->lineno, "invalid streams '%s' (expected 1 to %d parallel TCP "
                    "streams per pair of sites)", shown(tmp, sizeof tmp, value, strlen(value)),
                    MC_STREAMS_MAX);
        else
            p->mc->streams = (int)v;
    } else if (strcmp(key, "compression") == 0) {
        if (once(p, key, &p->compression_line) != 0)
            return;
        if (strcmp(value, "auto") == 0)
            p->mc->compression = MC_COMPRESSION_AUTO;
        else if (strcmp(value, "on") == 0)
            p->mc->compression = MC_COMPRESSION_ON;
        else if (strcmp(value, "off") == 0)
            p->mc->compression = MC_COMPRESSION_OFF;
        else
            fail_at(p, p->lineno, "invalid compression '%s' (expected auto, on or off)",
                    shown(tmp, sizeof tmp, value, strlen(value)));
    } else if (strcmp(key, "congestion") == 0) {
        if (once(p, key, &p->congestion_line) != 0)
            return;
        if (net_congestion_name_ok(value))
            snprintf(p->mc->congestion, sizeof p->mc->congestion, "%s", value);
        else
            fail_at(p, p->lineno, "invalid congestion '%s' (expected auto, system or the name "
                    "of a TCP congestion control such as cubic or bbr: up to %d of a-z, 0-9, _)",
                    shown(tmp, sizeof tmp, value, strlen(value)), MC_CONGESTION_MAX - 1);
    } else if (strcmp(key, "encrypt") == 0) {
        if (once(p, key, &p->encrypt_line) != 0)
            return;
        if (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)
            p->mc->plaintext = strcmp(value, "off") == 0;
        else
            fail_at(p, p->lineno, "invalid encrypt '%s' (expected on or off)",
                    shown(tmp, sizeof tmp, value, strlen(value)));
    } else if (strcmp(key, "outage") == 0) {
        if (once(p, key, &p->outage_line) != 0)
            return;
        if (parse_int(value, 0, 86400, &v) != 0)
            fail_at(p, p->lineno, "invalid outage '%s' (expected 0 to 86400 seconds a broken "
                    "WAN link may stay down before the job ends)",
                    shown(tmp, sizeof tmp, value, strlen(value)));
        else
            p->mc->outage = (int)v;
    } else {
        fail_at(p, p->lineno, "unknown key '%s' in [wan] (expected streams, compression, "
                "congestion, encrypt or outage)", shown(tmp, sizeof tmp, key, strlen(key)));
    }
}

static const char *const X509_KEYS[MC_X509_KEYS] = { "cert", "key", "ca", "crl" };

static int x509_key(const char *key)
{
    for (int k = 0; k < MC_X509_KEYS; k++)
        if (strcmp(key, X509_KEYS[k]) == 0)
            return k;
    return -1;
}

/* path as the gateway opens it: a relative one is beside the description (name). */
static char *beside(const char *name, const char *path)
{
    const char *slash = strrchr(name, '/');
    if (path[0] == '/' || !slash)
        return util_xstrdup(path);
    size_t d = (size_t)(slash - name) + 1, l = strlen(path);
    char *out = util_xmalloc(d + l + 1);
    memcpy(out, name, d);
    memcpy(out + d, path, l + 1);
    return out;
}

static void site_key(parser_t *p, const char *key, const char *value, int cont)
{
    char tmp[SHOWN_MAX * 4 + 8];
    mc_site_t *st = &p->mc->site[p->site];
    site_state_t *ss = &p->ss[p->site];
    if (strcmp(key, "hosts") == 0) {
        if (cont || once(p, key, &ss->hosts_line) == 0)
            add_hosts(p, value);
    } else if (strcmp(key, "gateway") == 0) {
        if (once(p, key, &ss->gateway_line) != 0)
            return;
        const char *name;
        size_t nlen;
        int slots;
        if (hostlist_parse_entry(value, strlen(value), &name, &nlen, &slots) != 0 ||
            nlen != strlen(value))
            fail_at(p, p->lineno, "invalid gateway '%s' (expected the name of one of the site's "
                    "hosts)", shown(tmp, sizeof tmp, value, strlen(value)));
        else
            ss->gateway = util_xstrdup(value);
    } else if (strcmp(key, "wan") == 0) {
        if (once(p, key, &ss->wan_line) != 0)
            return;
        const char *why = parse_wan(value, st->wan, sizeof st->wan);
        if (why)
            fail_at(p, p->lineno, "site '%s': invalid wan '%s': %s (expected IPv4:PORT or "
                    "[IPv6]:PORT where other sites reach this site's gateway, e.g. "
                    "192.0.2.1:7000 or [2001:db8::1]:7000)", st->name,
                    shown(tmp, sizeof tmp, value, strlen(value)), why);
        else
            st->has_wan = 1;
    } else if (strcmp(key, "exec_prefix") == 0) {
        char why[160];
        if (once(p, key, &ss->exec_prefix_line) != 0)
            return;
        if (exec_prefix_check(value, why, sizeof why) != 0)
            fail_at(p, p->lineno, "invalid exec_prefix '%s': %s",
                    shown(tmp, sizeof tmp, value, strlen(value)), why);
        else
            st->exec_prefix = util_xstrdup(value);
    } else if (x509_key(key) >= 0) {
        int k = x509_key(key);
        if (once(p, key, &ss->x509_line[k]) != 0)
            return;
        if (!value[0])
            fail_at(p, p->lineno, "site '%s': %s is empty (expected the path of a PEM file on "
                    "the gateway's host)", st->name, key);
        else
            st->x509[k] = beside(p->name, value);
    } else if (strcmp(key, "reachable") == 0) {
        if (once(p, key, &ss->reachable_line) != 0)
            return;
        if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0)
            st->unreachable = strcmp(value, "no") == 0;
        else
            fail_at(p, p->lineno, "invalid reachable '%s' (expected yes, or no: the site's "
                    "gateway accepts no connection from other sites and opens its links itself)",
                    shown(tmp, sizeof tmp, value, strlen(value)));
    } else {
        fail_at(p, p->lineno, "unknown key '%s' in [site %s] (expected hosts, gateway, wan, "
                "exec_prefix, reachable, cert, key, ca or crl)",
                shown(tmp, sizeof tmp, key, strlen(key)), st->name);
    }
}

/* [rendezvous]: the server's certificate files (paths on the server's host). */
static void rdv_key(parser_t *p, const char *key, const char *value)
{
    char tmp[SHOWN_MAX * 4 + 8];
    int k = x509_key(key);
    if (k < 0) {
        fail_at(p, p->lineno, "unknown key '%s' in [rendezvous] (expected cert, key, ca or crl)",
                shown(tmp, sizeof tmp, key, strlen(key)));
        return;
    }
    if (once(p, key, &p->rdv_x509_line[k]) != 0)
        return;
    if (!value[0])
        fail_at(p, p->lineno, "[rendezvous]: %s is empty (expected the path of a PEM file on "
                "the rendezvous server's host)", key);
    else
        p->mc->rdv_x509[k] = beside(p->name, value);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parser_t *p = user;
    char tmp[SHOWN_MAX * 4 + 8];
    (void)section;  /* the reader's p->sec: inih cuts long names and skips empty sections */
    if (p->failed)
        return 0;
    /* inih's rule: an indented line after a key line continues that key's value */
    int cont = p->prev_key[0] && blank(p->line[0]);
    if (!cont)
        snprintf(p->prev_key, sizeof p->prev_key, "%s", name[0] ? name : "=");
    if (cont && !(p->sec == SEC_SITE && strcmp(name, "hosts") == 0)) {
        fail_at(p, p->lineno, "an indented line continues the value of '%s' (only a list of "
                "hosts continues on indented lines; keys start at the beginning of a line)",
                shown(tmp, sizeof tmp, name, strlen(name)));
        return 0;
    }
    switch (p->sec) {
    case SEC_NONE:
        fail_at(p, p->lineno, "'%s' outside a section (expected [wan], [rendezvous] or "
                "[site NAME] before it)",
                shown(tmp, sizeof tmp, name, strlen(name)));
        break;
    case SEC_WAN:
        wan_key(p, name, value);
        break;
    case SEC_RDV:
        rdv_key(p, name, value);
        break;
    case SEC_SITE:
        site_key(p, name, value, cont);
        break;
    case SEC_BAD:
        break;  /* the header's error is reported */
    }
    return !p->failed;
}

/* ---- the whole description -------------------------------------------------------------- */

/* The start of line n (1-based) of text, for inih's syntax errors. */
static const char *line_at(const char *text, int n)
{
    while (--n > 0 && *text) {
        const char *nl = strchr(text, '\n');
        text = nl ? nl + 1 : text + strlen(text);
    }
    return text;
}

static void checks(parser_t *p)
{
    metacomputer_t *mc = p->mc;
    char tmp[SHOWN_MAX * 4 + 8];
    if (mc->nsites == 0) {
        fail_at(p, 0, "describes no site (expected at least one [site NAME] section with "
                "hosts = NAME[:SLOTS], ...)");
        return;
    }
    for (int s = 0; s < mc->nsites && !p->failed; s++) {
        mc_site_t *st = &mc->site[s];
        site_state_t *ss = &p->ss[s];
        if (st->nhosts == 0) {
            fail_at(p, st->line, "site '%s' has no hosts (expected hosts = NAME[:SLOTS], ...)",
                    st->name);
            return;
        }
        st->gateway = st->first_host;
        if (ss->gateway) {
            int g = hostlist_find(&mc->hosts, ss->gateway, strlen(ss->gateway));
            if (g < st->first_host || g >= st->first_host + st->nhosts) {
                fail_at(p, ss->gateway_line, "gateway '%s' is not one of the hosts of site '%s'",
                        shown(tmp, sizeof tmp, ss->gateway, strlen(ss->gateway)), st->name);
                return;
            }
            st->gateway = g;
        }
        for (int o = 0; o < s && st->has_wan; o++)
            if (mc->site[o].has_wan && strcmp(mc->site[o].wan, st->wan) == 0) {
                fail_at(p, ss->wan_line, "wan %s is also the address of site '%s' (line %d)",
                        st->wan, mc->site[o].name, p->ss[o].wan_line);
                return;
            }
        /* X.509: the three files at every site, or none (each link needs both ends') */
        int given = !!st->x509[MC_CERT] + !!st->x509[MC_KEY] + !!st->x509[MC_CA];
        if (given && given < 3) {
            fail_at(p, st->line, "site '%s': cert, key and ca go together (%s is missing)",
                    st->name, X509_KEYS[!st->x509[MC_CERT] ? 0 : !st->x509[MC_KEY] ? 1 : 2]);
            return;
        }
        if (st->x509[MC_CRL] && !given) {
            fail_at(p, ss->x509_line[MC_CRL], "site '%s': crl needs cert, key and ca (a CRL "
                    "is checked on links that use X.509)", st->name);
            return;
        }
        if (!given != !mc->site[0].x509[MC_CERT]) {
            const mc_site_t *has = given ? st : &mc->site[0], *lacks = given ? &mc->site[0] : st;
            fail_at(p, st->line, "site '%s' has cert, key and ca but site '%s' has none: "
                    "X.509 is used at every site or at none", has->name, lacks->name);
            return;
        }
        if (st->x509[0] && mc->plaintext) {
            fail_at(p, p->encrypt_line, "encrypt = off with cert, key and ca at the sites: "
                    "certificates need TLS (encrypt = on)");
            return;
        }
        /* every pair of sites has a link, which the unreachable one of them opens */
        for (int o = 0; o < s && st->unreachable; o++)
            if (mc->site[o].unreachable) {
                fail_at(p, ss->reachable_line, "sites '%s' (line %d) and '%s' are both "
                        "unreachable: their gateways could not open the link between them "
                        "(of every two sites, one must be reachable)", mc->site[o].name,
                        p->ss[o].reachable_line, st->name);
                return;
            }
    }
    /* [rendezvous]: the server's certificate, shown to parts that show their sites' */
    if (!p->failed && p->rdv_line) {
        char **r = mc->rdv_x509;
        int given = !!r[MC_CERT] + !!r[MC_KEY] + !!r[MC_CA];
        if (given < 3)
            fail_at(p, p->rdv_line, "[rendezvous]: cert, key and ca go together (%s is "
                    "missing)", X509_KEYS[!r[MC_CERT] ? 0 : !r[MC_KEY] ? 1 : 2]);
        else if (!mc->site[0].x509[MC_CERT])
            fail_at(p, p->rdv_line, "[rendezvous] has cert, key and ca but the sites have "
                    "none: the parts show their sites' certificates to the server");
    }
}

int mc_parse(const char *text, const char *name, metacomputer_t *mc, char *err, size_t errlen)
{
    memset(mc, 0, sizeof *mc);
    mc->streams = 0;
    mc->compression = MC_COMPRESSION_AUTO;
    strcpy(mc->congestion, "auto");
    mc->outage = -1;
    parser_t p = { .name = name, .next = text, .mc = mc, .sec = SEC_NONE, .err = err,
                   .errlen = errlen };
    err[0] = '\0';
    int rc = ini_parse_stream(reader, &p, handler, &p);
    if (rc > 0 && (!p.failed || rc < p.err_line)) {
        /* a line inih could not read (it checks the syntax; the handler the meaning) */
        const char *l = line_at(text, rc);
        while (*l == ' ' || *l == '\t')
            l++;
        p.failed = 0;
        if (*l == '[')
            fail_at(&p, rc, "a section header without its closing ']'");
        else
            fail_at(&p, rc, "expected KEY = VALUE, a section header ([wan], [site NAME]) or a "
                    "comment (';' or '#')");
    } else if (rc < 0 && !p.failed) {
        fail_at(&p, 0, "inih could not parse it (error %d)", rc);
    }
    if (!p.failed)
        checks(&p);
    for (int s = 0; s < mc->nsites; s++)
        free(p.ss[s].gateway);
    free(p.ss);
    free(p.host_line);
    if (p.failed) {
        mc_free(mc);
        return -1;
    }
    return 0;
}

int mc_read_file(const char *path, metacomputer_t *mc, char *err, size_t errlen)
{
    memset(mc, 0, sizeof *mc);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open metacomputer description '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    char *text = util_xmalloc(MC_FILE_MAX + 1);
    size_t n = fread(text, 1, MC_FILE_MAX + 1, f);
    int rc = 0;
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read metacomputer description '%s': %s", path,
                 strerror(errno));
        rc = -1;
    } else if (n > MC_FILE_MAX) {
        snprintf(err, errlen, "metacomputer '%s': larger than %u bytes", path, MC_FILE_MAX);
        rc = -1;
    } else {
        text[n] = '\0';
        const char *nul = memchr(text, '\0', n);
        if (nul) {
            int line = 1;
            for (const char *q = text; q < nul; q++)
                line += *q == '\n';
            snprintf(err, errlen, "metacomputer '%s', line %d: contains a NUL byte", path, line);
            rc = -1;
        }
    }
    fclose(f);
    if (rc == 0)
        rc = mc_parse(text, path, mc, err, errlen);
    free(text);
    return rc;
}

void mc_free(metacomputer_t *mc)
{
    for (int s = 0; s < mc->nsites; s++) {
        free(mc->site[s].name);
        free(mc->site[s].exec_prefix);
        for (int k = 0; k < MC_X509_KEYS; k++)
            free(mc->site[s].x509[k]);
    }
    for (int k = 0; k < MC_X509_KEYS; k++)
        free(mc->rdv_x509[k]);
    free(mc->site);
    free(mc->host_site);
    hostlist_free(&mc->hosts);
    memset(mc, 0, sizeof *mc);
}

int mc_outage(const metacomputer_t *mc)
{
    return mc->outage >= 0 ? mc->outage : tun_int(TUN_WAN_OUTAGE);
}

const char *mc_compression_name(mc_compression_t c)
{
    return c == MC_COMPRESSION_ON ? "on" : c == MC_COMPRESSION_OFF ? "off" : "auto";
}
