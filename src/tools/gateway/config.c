#include "config.h"

#include "net/gw_wire.h"
#include "zc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole decimal number in min..max; -1 when s is not one. */
static long number(const char *s, long min, long max)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < min || v > max)
        return -1;
    return v;
}

/* Splits a copy of s at commas; returns the count (items point into *copy). */
static int split(const char *s, char **copy, char ***items)
{
    *copy = strdup(s);
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    *items = malloc((size_t)n * sizeof **items);
    if (!*copy || !*items)
        return -1;
    char *p = *copy;
    for (int i = 0; i < n; i++) {
        (*items)[i] = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
    }
    return n;
}

const char *gw_rank_sites_decode(const char *s, int nsites, long max, int **sites, int *n)
{
    char *copy, **items;
    int nitems = split(s, &copy, &items);
    const char *why = nitems > 0 ? NULL : "out of memory";
    int *out = NULL;
    long len = 0;
    for (int i = 0; !why && i < nitems; i++) {
        char *star = strchr(items[i], '*');
        if (star)
            *star = '\0';
        long site = number(items[i], 0, nsites - 1);
        long count = star ? number(star + 1, 1, GW_RANKS_MAX) : 1;
        if (site < 0) {
            why = "a bad site";
        } else if (count < 0) {
            why = "a bad count";
        } else if (count > max - len) {
            why = "more sites than ranks";
        } else {
            int *r = realloc(out, (size_t)(len + count) * sizeof *r);
            if (!r) {
                why = "out of memory";
                break;
            }
            out = r;
            for (long k = 0; k < count; k++)
                out[len++] = (int)site;
        }
    }
    free(copy);
    free(items);
    if (why) {
        free(out);
        return why;
    }
    *sites = out;
    *n = (int)len;
    return NULL;
}

int gw_config_parse(int argc, char **argv, gw_config_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->site = -1;
    c->streams = GW_STREAMS_DEFAULT;
    c->compression = GW_Z_AUTO;
    strcpy(c->congestion, "auto");
    c->timeout_ms = GW_TIMEOUT_DEFAULT_MS;
    c->outage_ms = GW_OUTAGE_DEFAULT_MS;
    c->encrypt = 1;
    c->report_fd = 2;
    c->control_fd = -1;
    const char *gateways = NULL, *ranks = NULL, *names = NULL, *unreachable = NULL;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            snprintf(err, errlen, "option %s needs a value", o);
            goto bad;
        }
        i++;
        long n;
        if (strcmp(o, "--site") == 0) {
            if ((c->site = (int)number(v, 0, GW_SITES_MAX - 1)) < 0) {
                snprintf(err, errlen, "--site: '%s' is not a site index", v);
                goto bad;
            }
        } else if (strcmp(o, "--gateways") == 0) {
            gateways = v;
        } else if (strcmp(o, "--rank-sites") == 0) {
            ranks = v;
        } else if (strcmp(o, "--names") == 0) {
            names = v;
        } else if (strcmp(o, "--unreachable") == 0) {
            unreachable = v;
        } else if (strcmp(o, "--streams") == 0) {
            if ((n = number(v, 1, GW_STREAMS_MAX)) < 0) {
                snprintf(err, errlen, "--streams: '%s' is not a number of streams (1..%d)", v,
                         GW_STREAMS_MAX);
                goto bad;
            }
            c->streams = (int)n;
        } else if (strcmp(o, "--compression") == 0) {
            if (strcmp(v, "auto") == 0)
                c->compression = GW_Z_AUTO;
            else if (strcmp(v, "on") == 0)
                c->compression = GW_Z_ON;
            else if (strcmp(v, "off") == 0)
                c->compression = GW_Z_OFF;
            else {
                snprintf(err, errlen, "--compression: '%s' is not auto, on or off", v);
                goto bad;
            }
        } else if (strcmp(o, "--stats") == 0) {
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
                snprintf(err, errlen, "--stats: '%s' is not on or off", v);
                goto bad;
            }
            c->stats = strcmp(v, "on") == 0;
        } else if (strcmp(o, "--encrypt") == 0) {
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
                snprintf(err, errlen, "--encrypt: '%s' is not on or off", v);
                goto bad;
            }
            c->encrypt = strcmp(v, "on") == 0;
        } else if (strcmp(o, "--congestion") == 0) {
            if (!net_congestion_name_ok(v)) {
                snprintf(err, errlen, "--congestion: '%s' is not auto, system or the name of a "
                         "TCP congestion control", v);
                goto bad;
            }
            snprintf(c->congestion, sizeof c->congestion, "%s", v);
        } else if (strcmp(o, "--timeout") == 0) {
            if ((n = number(v, 100, 3600000)) < 0) {
                snprintf(err, errlen, "--timeout: '%s' is not a time in ms (100..3600000)", v);
                goto bad;
            }
            c->timeout_ms = (int)n;
        } else if (strcmp(o, "--outage") == 0) {
            if ((n = number(v, 0, GW_OUTAGE_MAX_MS)) < 0) {
                snprintf(err, errlen, "--outage: '%s' is not a time in ms (0..%d)", v,
                         GW_OUTAGE_MAX_MS);
                goto bad;
            }
            c->outage_ms = (int)n;
        } else if (strcmp(o, "--cert") == 0) {
            c->cert = v;
        } else if (strcmp(o, "--key") == 0) {
            c->key = v;
        } else if (strcmp(o, "--ca") == 0) {
            c->ca = v;
        } else if (strcmp(o, "--crl") == 0) {
            c->crl = v;
        } else if (strcmp(o, "--control-fd") == 0) {
            if ((n = number(v, 0, 1 << 20)) < 0) {
                snprintf(err, errlen, "--control-fd: '%s' is not a file descriptor", v);
                goto bad;
            }
            c->control_fd = (int)n;
        } else if (strcmp(o, "--report-fd") == 0) {
            if ((n = number(v, 0, 1 << 20)) < 0) {
                snprintf(err, errlen, "--report-fd: '%s' is not a file descriptor", v);
                goto bad;
            }
            c->report_fd = (int)n;
        } else {
            snprintf(err, errlen, "unknown option %s", o);
            goto bad;
        }
    }
    if (c->site < 0 || !gateways || !ranks) {
        snprintf(err, errlen, "--site, --gateways and --rank-sites are required");
        goto bad;
    }
    if ((c->cert || c->key || c->ca || c->crl) && !(c->cert && c->key && c->ca && c->encrypt)) {
        snprintf(err, errlen, "--cert, --key and --ca go together, with --encrypt on (and "
                 "--crl with them)");
        goto bad;
    }
    char *copy, **items;
    int n = split(gateways, &copy, &items);
    if (n < 2 || n > GW_SITES_MAX || !(c->addr = calloc((size_t)n, sizeof *c->addr))) {
        if (n > 0)
            snprintf(err, errlen, "--gateways: %d addresses (2..%d sites)", n, GW_SITES_MAX);
        free(copy);
        free(items);
        goto bad;
    }
    c->nsites = n;
    for (int i = 0; i < n; i++) {
        const char *why = gw_addr_parse(items[i], &c->addr[i]);
        if (why) {
            snprintf(err, errlen, "--gateways: site %d's '%s' is not IPv4:PORT or [IPv6]:PORT: %s",
                     i, items[i], why);
            free(copy);
            free(items);
            goto bad;
        }
    }
    free(copy);
    free(items);
    if (c->site >= c->nsites) {
        snprintf(err, errlen, "--site %d: there are %d sites", c->site, c->nsites);
        goto bad;
    }
    if (!(c->unreachable = calloc((size_t)c->nsites, 1)))
        goto bad;
    if (unreachable) {
        n = split(unreachable, &copy, &items);
        for (int i = 0; i < n; i++) {
            long s = number(items[i], 0, c->nsites - 1);
            if (s < 0) {
                snprintf(err, errlen, "--unreachable: '%s' is not a site index (0..%d)",
                         items[i], c->nsites - 1);
                free(copy);
                free(items);
                goto bad;
            }
            c->unreachable[s] = 1;
        }
        free(copy);
        free(items);
    }
    const char *why = gw_rank_sites_decode(ranks, c->nsites, GW_RANKS_MAX, &c->rank_site,
                                           &c->size);
    if (why) {
        snprintf(err, errlen, "--rank-sites '%s': %s", ranks, why);
        goto bad;
    }
    c->names = calloc((size_t)c->nsites, sizeof *c->names);
    if (!c->names)
        goto bad;
    if (names) {
        n = split(names, &copy, &items);
        if (n != c->nsites) {
            snprintf(err, errlen, "--names: %d names for %d sites", n, c->nsites);
            free(copy);
            free(items);
            goto bad;
        }
        for (int i = 0; i < n; i++)
            c->names[i] = strdup(items[i]);
        free(copy);
        free(items);
    }
    for (int i = 0; i < c->nsites; i++) {
        if (!c->names[i]) {
            char b[32];
            snprintf(b, sizeof b, "site%d", i);
            c->names[i] = strdup(b);
        }
        if (!c->names[i])
            goto bad;
    }
    return 0;
bad:
    gw_config_free(c);
    return -1;
}

void gw_config_free(gw_config_t *c)
{
    for (int i = 0; c->names && i < c->nsites; i++)
        free(c->names[i]);
    free(c->names);
    free(c->addr);
    free(c->rank_site);
    free(c->unreachable);
    memset(c, 0, sizeof *c);
}

int gw_config_dialer(const gw_config_t *c, int a, int b)
{
    if (c->unreachable[a] != c->unreachable[b])
        return c->unreachable[a] ? a : b;
    return a < b ? a : b;
}

void gw_config_addr_text(const gw_config_t *c, int s, char *out, size_t cap)
{
    net_addr_format(&c->addr[s], out, cap);
}
