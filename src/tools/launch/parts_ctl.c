#include "parts_ctl.h"

#include "runtime/pmi_wire.h"
#include "util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strv_push(strv_t *s, const char *str)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        s->v = util_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = util_xstrdup(str);
}

void strv_pushf(strv_t *s, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    strv_push(s, buf);
}

void strv_free(strv_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int parts_ctl_send(chan_t *ch, uint8_t op, uint32_t node, uint32_t rank,
                   const char *const *fields, uint32_t n)
{
    ctl_buf_t *b = chan_out(ch);
    ctl_begin(b, CTL_PARTS);
    ctl_put_u8(b, op);
    ctl_put_u32(b, node);
    ctl_put_u32(b, rank);
    ctl_put_strs(b, fields, n);
    if (ctl_end(b) != 0)
        return -1;
    chan_send(ch);
    return 0;
}

/* ---- decoding ------------------------------------------------------------------------ */

typedef struct cursor {
    ctl_strs_t s;
    uint32_t left;
    int bad;
} cursor_t;

static const char *next(cursor_t *c)
{
    if (c->bad || c->left == 0) {
        c->bad = 1;
        return "";
    }
    c->left--;
    return ctl_strs_next(&c->s);
}

static int next_int(cursor_t *c, int min, int max)
{
    const char *t = next(c);
    char *end;
    long v = strtol(t, &end, 10);
    if (c->bad || !*t || *end || v < min || v > max) {
        c->bad = 1;
        return min;
    }
    return (int)v;
}

static char *next_dup(cursor_t *c)
{
    return util_xstrdup(next(c));
}

/* ---- the spawn request ------------------------------------------------------------------ */

void parts_req_encode(const pmi_spawn_req_t *r, strv_t *out)
{
    strv_pushf(out, "%d", r->napps);
    for (int a = 0; a < r->napps; a++) {
        const pmi_spawn_app_t *app = &r->app[a];
        strv_push(out, app->execname);
        strv_pushf(out, "%d", app->maxprocs);
        strv_pushf(out, "%d", app->argc);
        for (int i = 0; i < app->argc; i++)
            strv_push(out, app->argv[i]);
        strv_pushf(out, "%d", app->ninfo);
        for (int i = 0; i < 2 * app->ninfo; i++)
            strv_push(out, app->info[i]);
    }
    strv_pushf(out, "%d", r->npreput);
    for (int i = 0; i < 2 * r->npreput; i++)
        strv_push(out, r->preput[i]);
}

static char **dup_list(cursor_t *c, int n)
{
    char **v = util_xmalloc(((size_t)n + 1) * sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = next_dup(c);
    v[n] = NULL;
    return v;
}

int parts_req_decode(ctl_strs_t f, pmi_spawn_req_t *r)
{
    cursor_t c = { .s = f, .left = f.n };
    memset(r, 0, sizeof *r);
    r->napps = next_int(&c, 1, PMI_SPAWN_MAX_APPS);
    if (c.bad || (uint32_t)r->napps > c.left)
        return r->napps = 0, -1;
    r->app = util_xmalloc((size_t)r->napps * sizeof *r->app);
    memset(r->app, 0, (size_t)r->napps * sizeof *r->app);
    for (int a = 0; a < r->napps && !c.bad; a++) {
        pmi_spawn_app_t *app = &r->app[a];
        app->execname = next_dup(&c);
        app->maxprocs = next_int(&c, 1, PMI_SPAWN_MAX_PROCS);
        r->nprocs += app->maxprocs;
        int argc = next_int(&c, 0, (int)c.left);
        if (c.bad)
            break;
        app->argv = dup_list(&c, argc);
        app->argc = argc;
        int ninfo = next_int(&c, 0, (int)c.left / 2);
        if (c.bad)
            break;
        app->info = dup_list(&c, 2 * ninfo);
        app->ninfo = ninfo;
    }
    int npre = next_int(&c, 0, (int)c.left / 2);
    if (!c.bad) {
        r->preput = dup_list(&c, 2 * npre);
        r->npreput = npre;
        for (int i = 0; i < 2 * npre && !c.bad; i++)
            if (i % 2 ? !pmi_wire_valid_value(r->preput[i]) : !pmi_wire_valid_key(r->preput[i]))
                c.bad = 1;
    }
    if (c.bad || c.left || r->nprocs > PMI_SPAWN_MAX_PROCS) {
        pmi_spawn_free(r);
        return -1;
    }
    return 0;
}

/* ---- a part's share of a host ---------------------------------------------------------- */

void parts_def_encode(const parts_def_t *d, strv_t *out)
{
    strv_push(out, d->kvsname);
    strv_pushf(out, "%d", d->size);
    strv_pushf(out, "%d", d->base);
    strv_push(out, d->mapping);
    strv_pushf(out, "%d", d->nlocal);
    for (int i = 0; i < d->nlocal; i++) {
        strv_pushf(out, "%d", d->rank[i]);
        strv_pushf(out, "%d", d->app[i]);
    }
    strv_pushf(out, "%d", d->napps);
    for (int a = 0; a < d->napps; a++) {
        const parts_app_t *p = &d->apps[a];
        strv_push(out, p->execname);
        strv_push(out, p->pathdir);
        strv_push(out, p->wdir);
        strv_pushf(out, "%d", p->argc);
        for (int i = 0; i < p->argc; i++)
            strv_push(out, p->argv[i]);
    }
    strv_pushf(out, "%d", d->nkv);
    for (int i = 0; i < 2 * d->nkv; i++)
        strv_push(out, d->kv[i]);
}

int parts_def_decode(ctl_strs_t f, parts_def_t *d)
{
    cursor_t c = { .s = f, .left = f.n };
    memset(d, 0, sizeof *d);
    d->kvsname = next_dup(&c);
    d->size = next_int(&c, 1, CTL_MAX_RANKS);
    d->base = next_int(&c, 1, (int)(CTL_MAX_RANK_ID - 1));
    if (!c.bad && d->size > (int)CTL_MAX_RANK_ID - d->base)
        c.bad = 1;   /* its numbers pass CTL_MAX_RANK_ID */
    d->mapping = next_dup(&c);
    d->nlocal = next_int(&c, 1, c.bad ? 1 : d->size);
    if (c.bad || (uint32_t)d->nlocal > c.left / 2) {
        d->nlocal = 0;
        parts_def_free(d);
        return -1;
    }
    d->rank = util_xmalloc((size_t)d->nlocal * sizeof *d->rank);
    d->app = util_xmalloc((size_t)d->nlocal * sizeof *d->app);
    for (int i = 0; i < d->nlocal; i++) {
        d->rank[i] = next_int(&c, 0, d->size - 1);
        d->app[i] = next_int(&c, 0, PMI_SPAWN_MAX_APPS - 1);
        if (i > 0 && d->rank[i] <= d->rank[i - 1])
            c.bad = 1;
    }
    int napps = next_int(&c, 1, PMI_SPAWN_MAX_APPS);
    if (!c.bad && (uint32_t)napps <= c.left) {
        d->apps = util_xmalloc((size_t)napps * sizeof *d->apps);
        memset(d->apps, 0, (size_t)napps * sizeof *d->apps);
        d->napps = napps;
        for (int a = 0; a < napps && !c.bad; a++) {
            parts_app_t *p = &d->apps[a];
            p->execname = next_dup(&c);
            p->pathdir = next_dup(&c);
            p->wdir = next_dup(&c);
            int argc = next_int(&c, 0, (int)c.left);
            if (c.bad)
                break;
            p->argv = dup_list(&c, argc);
            p->argc = argc;
        }
    } else {
        c.bad = 1;
    }
    int nkv = next_int(&c, 0, (int)c.left / 2);
    if (!c.bad) {
        d->kv = dup_list(&c, 2 * nkv);
        d->nkv = nkv;
        for (int i = 0; i < 2 * nkv && !c.bad; i++)
            if (i % 2 ? !pmi_wire_valid_value(d->kv[i]) : !pmi_wire_valid_key(d->kv[i]))
                c.bad = 1;
    }
    for (int i = 0; i < d->nlocal && !c.bad; i++)
        if (d->app[i] >= d->napps)
            c.bad = 1;
    if (c.bad || c.left || !*d->kvsname || strlen(d->kvsname) > PMI_WIRE_KVSNAME_MAX) {
        parts_def_free(d);
        return -1;
    }
    return 0;
}

static void free_list(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void parts_def_free(parts_def_t *d)
{
    free(d->kvsname);
    free(d->mapping);
    free(d->rank);
    free(d->app);
    for (int a = 0; a < d->napps; a++) {
        free(d->apps[a].execname);
        free(d->apps[a].pathdir);
        free(d->apps[a].wdir);
        free_list(d->apps[a].argv, d->apps[a].argc);
    }
    free(d->apps);
    free_list(d->kv, 2 * d->nkv);
    memset(d, 0, sizeof *d);
}
