#include "runtime/sitemap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sitemap_valid_name(const char *s, size_t len)
{
    if (len == 0 || len > SITEMAP_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

/* ---- encoding ----------------------------------------------------------------------------- */

/* Items joined by commas into parts of at most maxval characters. */
typedef struct parts {
    char **p;
    int n;
    size_t maxval;
    int bad;
} parts_t;

static void parts_add(parts_t *ps, const char *item)
{
    size_t il = strlen(item);
    if (ps->bad || il == 0 || il > ps->maxval) {
        ps->bad = 1;
        return;
    }
    size_t have = ps->n ? strlen(ps->p[ps->n - 1]) : 0;
    if (ps->n == 0 || have + 1 + il > ps->maxval) {
        char **np = realloc(ps->p, (size_t)(ps->n + 1) * sizeof *np);
        char *s = malloc(ps->maxval + 1);
        if (!np || !s) {
            free(s);
            if (np)
                ps->p = np;
            ps->bad = 1;
            return;
        }
        ps->p = np;
        ps->p[ps->n++] = s;
        s[0] = '\0';
        have = 0;
    }
    char *s = ps->p[ps->n - 1];
    if (have)
        s[have++] = ',';
    memcpy(s + have, item, il + 1);
}

static void parts_free(parts_t *ps)
{
    for (int i = 0; i < ps->n; i++)
        free(ps->p[i]);
    free(ps->p);
}

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

/* Moves the parts into kv as base, base.1, base.2, ... */
static int emit(char **kv, int at, const char *base, parts_t *ps)
{
    for (int i = 0; i < ps->n; i++) {
        char key[SITEMAP_KEY_MAX];
        if (i == 0)
            snprintf(key, sizeof key, "%s", base);
        else
            snprintf(key, sizeof key, "%s.%d", base, i);
        kv[at] = dup_str(key);
        kv[at + 1] = ps->p[i];
        ps->p[i] = NULL;
        if (!kv[at])
            return -1;
        at += 2;
    }
    return at;
}

int sitemap_encode(int nsites, const char *const *names, const int *site_of, int size,
                   size_t maxval, char ***kv)
{
    *kv = NULL;
    if (nsites < 1 || nsites > SITEMAP_SITES_MAX || size < 1 || maxval < 16)
        return -1;
    for (int s = 0; s < nsites; s++) {
        if (!sitemap_valid_name(names[s], strlen(names[s])))
            return -1;
        for (int o = 0; o < s; o++)
            if (strcmp(names[o], names[s]) == 0)
                return -1;
    }
    parts_t pn = { .maxval = maxval }, pr = { .maxval = maxval };
    for (int s = 0; s < nsites; s++)
        parts_add(&pn, names[s]);
    for (int r = 0; r < size && !pr.bad;) {
        int s = site_of[r], run = 1;
        if (s < 0 || s >= nsites) {
            pr.bad = 1;
            break;
        }
        while (r + run < size && site_of[r + run] == s)
            run++;
        char item[32];
        if (run == 1)
            snprintf(item, sizeof item, "%d", s);
        else
            snprintf(item, sizeof item, "%d*%d", s, run);
        parts_add(&pr, item);
        r += run;
    }
    int n = -1;
    if (!pn.bad && !pr.bad && pn.n <= SITEMAP_PARTS_MAX && pr.n <= SITEMAP_PARTS_MAX) {
        n = 1 + pn.n + pr.n;
        char **v = calloc((size_t)(2 * n), sizeof *v);
        char count[64];
        snprintf(count, sizeof count, "%d,%d,%d", nsites, pn.n, pr.n);
        int at = -1;
        if (v) {
            v[0] = dup_str(SITEMAP_KEY_SITES);
            v[1] = dup_str(count);
            at = v[0] && v[1] ? emit(v, 2, SITEMAP_KEY_NAMES, &pn) : -1;
            if (at >= 0)
                at = emit(v, at, SITEMAP_KEY_RANKS, &pr);
        }
        if (at < 0) {
            sitemap_free_kv(v, n);
            n = -1;
        } else {
            *kv = v;
        }
    }
    parts_free(&pn);
    parts_free(&pr);
    return n;
}

void sitemap_free_kv(char **kv, int n)
{
    if (!kv)
        return;
    for (int i = 0; i < 2 * n; i++)
        free(kv[i]);
    free(kv);
}

/* ---- decoding ----------------------------------------------------------------------------- */

typedef struct dec {
    sitemap_get_fn *get;
    void *ctx;
    char *buf;
    int vallen;
    char *err;
    int errlen;
    const char *key;    /* the key being read, for messages */
    char keybuf[SITEMAP_KEY_MAX];
    /* names */
    int nsites;
    char **names;
    int nnames;
    /* ranks */
    int size;
    int *site_of;
    int nranks;
    int grows;          /* site_of is malloc'ed and grows with the runs (size: the bound) */
    int cap;
} dec_t;

static int dec_fail(dec_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dec_fail(dec_t *d, const char *fmt, ...)
{
    int n = snprintf(d->err, (size_t)d->errlen, "malformed site layout in the job's key-value "
                     "space: %s: ", d->key);
    if (n >= 0 && n < d->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->err + n, (size_t)(d->errlen - n), fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A decimal number of 1..9 digits in s[0..len) within [min, max]. */
static int number(const char *s, size_t len, long min, long max, long *v)
{
    if (len == 0 || len > 9)
        return -1;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return x >= min && x <= max ? 0 : -1;
}

static int name_item(dec_t *d, const char *s, size_t len)
{
    if (d->nnames == d->nsites)
        return dec_fail(d, "more than %d site names", d->nsites);
    if (!sitemap_valid_name(s, len))
        return dec_fail(d, "invalid site name '%.*s'", (int)(len < 80 ? len : 80), s);
    for (int i = 0; i < d->nnames; i++)
        if (strlen(d->names[i]) == len && memcmp(d->names[i], s, len) == 0)
            return dec_fail(d, "site name '%.*s' appears twice", (int)len, s);
    char *c = malloc(len + 1);
    if (!c)
        return dec_fail(d, "out of memory");
    memcpy(c, s, len);
    c[len] = '\0';
    d->names[d->nnames++] = c;
    return 0;
}

static int run_item(dec_t *d, const char *s, size_t len)
{
    const char *star = memchr(s, '*', len);
    size_t sl = star ? (size_t)(star - s) : len;
    long site, count = 1;
    if (number(s, sl, 0, d->nsites - 1, &site) != 0 ||
        (star && number(star + 1, len - sl - 1, 1, d->size, &count) != 0))
        return dec_fail(d, "invalid run '%.*s' (expected SITE or SITE*COUNT, SITE below %d)",
                        (int)(len < 80 ? len : 80), s, d->nsites);
    if (count > d->size - d->nranks)
        return dec_fail(d, "the runs cover more than the job's %d ranks", d->size);
    if (d->grows && d->nranks + count > d->cap) {
        long cap = d->nranks + count > 2L * d->cap ? d->nranks + count : 2L * d->cap;
        int *n = realloc(d->site_of, (size_t)cap * sizeof *n);
        if (!n)
            return dec_fail(d, "out of memory");
        d->site_of = n;
        d->cap = (int)cap;
    }
    for (long i = 0; i < count; i++)
        d->site_of[d->nranks++] = (int)site;
    return 0;
}

/* Reads the parts base, base.1, ... and hands each comma-separated item to item(). */
static int read_list(dec_t *d, const char *base, int nparts,
                     int (*item)(dec_t *, const char *, size_t))
{
    for (int i = 0; i < nparts; i++) {
        if (i == 0)
            snprintf(d->keybuf, sizeof d->keybuf, "%s", base);
        else
            snprintf(d->keybuf, sizeof d->keybuf, "%s.%d", base, i);
        d->key = d->keybuf;
        int g = d->get(d->ctx, d->keybuf, d->buf, d->vallen, d->err, d->errlen);
        if (g < 0)
            return -1;
        if (g > 0)
            return dec_fail(d, "missing (%s announces %d parts)", SITEMAP_KEY_SITES, nparts);
        const char *p = d->buf;
        for (;;) {
            size_t len = strcspn(p, ",");
            if (len == 0)
                return dec_fail(d, "an empty item in '%.80s'", d->buf);
            if (item(d, p, len) != 0)
                return -1;
            if (!p[len])
                break;
            p += len + 1;
        }
    }
    return 0;
}

static int decode(dec_t *dp, int *nsites, char ***names);

int sitemap_decode(sitemap_get_fn *get, void *ctx, int size, int vallen, int *site_of,
                   int *nsites, char ***names, char *err, int errlen)
{
    dec_t d = { .get = get, .ctx = ctx, .vallen = vallen, .err = err, .errlen = errlen,
                .key = SITEMAP_KEY_SITES, .size = size, .site_of = site_of };
    if (vallen < 2 || size < 1) {
        snprintf(err, (size_t)errlen, "sitemap_decode: invalid arguments");
        return -1;
    }
    return decode(&d, nsites, names);
}

int sitemap_decode_any(sitemap_get_fn *get, void *ctx, int vallen, int **site_of, int *size,
                       int *nsites, char ***names, char *err, int errlen)
{
    dec_t d = { .get = get, .ctx = ctx, .vallen = vallen, .err = err, .errlen = errlen,
                .key = SITEMAP_KEY_SITES, .size = SITEMAP_RANKS_MAX, .grows = 1 };
    if (vallen < 2) {
        snprintf(err, (size_t)errlen, "sitemap_decode_any: invalid arguments");
        return -1;
    }
    int rc = decode(&d, nsites, names);
    if (rc == 0 && d.nranks == 0) {
        sitemap_free_names(*names, *nsites);
        snprintf(err, (size_t)errlen, "malformed site layout in the job's key-value space: %s: "
                 "no rank", SITEMAP_KEY_RANKS);
        rc = -1;
    }
    if (rc != 0) {
        free(d.site_of);
        return rc;
    }
    *site_of = d.site_of;
    *size = d.nranks;
    return 0;
}

/* The body of both decoders: d->size is the job's size, or (d->grows) a bound. */
static int decode(dec_t *dp, int *nsites, char ***names)
{
    dec_t d = *dp;   /* copied back at the end (the grown site_of) */
    sitemap_get_fn *get = d.get;
    void *ctx = d.ctx;
    int vallen = d.vallen, errlen = d.errlen, size = d.size;
    char *err = d.err;
    d.buf = malloc((size_t)vallen);
    if (!d.buf) {
        snprintf(err, (size_t)errlen, "out of memory for the site layout");
        return -1;
    }
    int rc = get(ctx, SITEMAP_KEY_SITES, d.buf, vallen, err, errlen);
    if (rc != 0) {
        free(d.buf);
        return rc;  /* 1: no layout published, -1: error */
    }
    long v[3];
    const char *p = d.buf;
    for (int i = 0; i < 3 && rc == 0; i++) {
        size_t len = strcspn(p, ",");
        long max = i == 0 ? SITEMAP_SITES_MAX : SITEMAP_PARTS_MAX;
        if (number(p, len, 1, max, &v[i]) != 0 || (i < 2 ? p[len] != ',' : p[len] != '\0'))
            rc = dec_fail(&d, "'%.80s' is not SITES,NAME_PARTS,RANK_PARTS (sites 1..%d, "
                          "parts 1..%d)", d.buf, SITEMAP_SITES_MAX, SITEMAP_PARTS_MAX);
        p += len + 1;
    }
    if (rc == 0) {
        d.nsites = (int)v[0];
        d.names = calloc((size_t)d.nsites, sizeof *d.names);
        if (!d.names)
            rc = dec_fail(&d, "out of memory");
    }
    if (rc == 0)
        rc = read_list(&d, SITEMAP_KEY_NAMES, (int)v[1], name_item);
    if (rc == 0 && d.nnames != d.nsites)
        rc = dec_fail(&d, "%d site names for %d sites", d.nnames, d.nsites);
    if (rc == 0)
        rc = read_list(&d, SITEMAP_KEY_RANKS, (int)v[2], run_item);
    if (rc == 0 && !d.grows && d.nranks != size)
        rc = dec_fail(&d, "the runs cover %d ranks, the job has %d", d.nranks, size);
    free(d.buf);
    *dp = d;
    if (rc != 0) {
        sitemap_free_names(d.names, d.nnames);
        return -1;
    }
    *nsites = d.nsites;
    *names = d.names;
    return 0;
}

void sitemap_free_names(char **names, int nsites)
{
    if (!names)
        return;
    for (int i = 0; i < nsites; i++)
        free(names[i]);
    free(names);
}
