/* Parsers of what the report is made from: a rank's line and a gateway's counters. Both are
 * bytes of other processes: every number and index is checked before use. */
#include "report_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct cur {
    const char *p;
    int bad;
} cur_t;

static uint64_t num(cur_t *c)
{
    if (c->bad || *c->p < '0' || *c->p > '9') {
        c->bad = 1;
        return 0;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(c->p, &end, 10);
    if (errno) {
        c->bad = 1;
        return 0;
    }
    c->p = end;
    return v;
}

static void expect(cur_t *c, const char *s)
{
    size_t n = strlen(s);
    if (c->bad || strncmp(c->p, s, n) != 0)
        c->bad = 1;
    else
        c->p += n;
}

static rp_sum_t sum(cur_t *c)
{
    rp_sum_t s;
    s.messages = num(c);
    expect(c, ".");
    s.bytes = num(c);
    return s;
}

int rp_parse_rank(const char *line, int rank, int size, int nsites, rp_rank_t *r, char *why,
                  size_t cap)
{
    cur_t c = { line, 0 };
    memset(r, 0, sizeof *r);
    r->to_site = calloc((size_t)nsites, sizeof *r->to_site);
    r->peer = malloc((size_t)size * sizeof *r->peer);
    if (!r->to_site || !r->peer) {
        snprintf(why, cap, "out of memory");
        goto bad;
    }
    expect(&c, "v1;r");
    uint64_t v = num(&c);
    if (!c.bad && v != (uint64_t)rank) {
        snprintf(why, cap, "it says it is rank %llu", (unsigned long long)v);
        goto bad;
    }
    expect(&c, ";s");
    v = num(&c);
    if (!c.bad && v >= (uint64_t)nsites) {
        snprintf(why, cap, "site %llu of %d", (unsigned long long)v, nsites);
        goto bad;
    }
    r->site = (int)v;
    expect(&c, ";L");
    for (int l = 0; l < RP_LEVELS; l++) {
        if (l)
            expect(&c, ",");
        r->level[l] = sum(&c);
    }
    expect(&c, ";W");
    for (int l = 0; l <= RP_LEVELS; l++) {
        if (l)
            expect(&c, ",");
        r->wait_ns[l] = num(&c);
    }
    expect(&c, ";S");
    for (int last = -1; !c.bad && *c.p != ';';) {
        if (last >= 0)
            expect(&c, ",");
        v = num(&c);
        if (!c.bad && ((int64_t)v <= last || v >= (uint64_t)nsites)) {
            snprintf(why, cap, "destination site %llu out of order or range",
                     (unsigned long long)v);
            goto bad;
        }
        last = (int)v;
        expect(&c, ":");
        r->to_site[last] = sum(&c);
    }
    expect(&c, ";P");
    while (!c.bad && *c.p != ';') {
        if (r->npeers)
            expect(&c, ",");
        v = num(&c);
        if (!c.bad && (v >= (uint64_t)size ||
                       (r->npeers && (int)v <= r->peer[r->npeers - 1].rank))) {
            snprintf(why, cap, "destination rank %llu out of order or range",
                     (unsigned long long)v);
            goto bad;
        }
        expect(&c, ":");
        r->peer[r->npeers].rank = (int)v;
        r->peer[r->npeers].sent = sum(&c);
        if (!c.bad)
            r->npeers++;
    }
    expect(&c, ";O");
    r->other = sum(&c);
    if (c.bad || *c.p) {
        snprintf(why, cap, "malformed at character %zu", (size_t)(c.p - line));
        goto bad;
    }
    r->have = 1;
    return 0;
bad:
    free(r->to_site);
    free(r->peer);
    memset(r, 0, sizeof *r);
    return -1;
}

/* "name=" followed by digits, anywhere after a space. */
static int field(const char *line, const char *name, uint64_t *v)
{
    size_t n = strlen(name);
    for (const char *p = strchr(line, ' '); p; p = strchr(p + 1, ' '))
        if (strncmp(p + 1, name, n) == 0 && p[1 + n] == '=') {
            cur_t c = { p + 2 + n, 0 };
            *v = num(&c);
            return c.bad || (*c.p && *c.p != ' ') ? -1 : 0;
        }
    return -1;
}

static char *word(const char *line, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strchr(line, ' '); p; p = strchr(p + 1, ' '))
        if (strncmp(p + 1, name, n) == 0 && p[1 + n] == '=') {
            const char *v = p + 2 + n;
            size_t len = strcspn(v, " ");
            if (!len || len > 255)
                return NULL;
            return strndup(v, len);
        }
    return NULL;
}

int rp_parse_link(const char *line, rp_link_t *l)
{
    memset(l, 0, sizeof *l);
    if (strncmp(line, "metampi-gateway-stats ", 22) != 0)
        return -1;
    l->site = word(line, "site");
    l->to = word(line, "to");
    if (!l->site || !l->to || field(line, "rank_frames", &l->rank_frames) ||
        field(line, "wan_frames", &l->wan_frames) || field(line, "wan_bytes", &l->wan_bytes) ||
        field(line, "raw_bytes", &l->raw_bytes) ||
        field(line, "rank_frames_in", &l->rank_frames_in) ||
        field(line, "wan_frames_in", &l->wan_frames_in)) {
        free(l->site);
        free(l->to);
        memset(l, 0, sizeof *l);
        return -1;
    }
    return 0;
}
