#include "mh_fed.h"

#include "gateways.h"
#include "mh_spawn.h"
#include "parts_ctl.h"
#include "rdv_link.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "util.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A RANKS received: a part spawned anywhere in the job. Invariant: the records are in the
 * server's order, bases contiguous from the world's size on. */
typedef struct fed_part {
    uint32_t tag, base, count;
    char kvsname[RDV_KVSNAME_MAX + 1];
    int asked;        /* the helper (index into m->host) a GW_RANKS went to; -1: none */
    int site;         /* the site whose mpirun started it */
    int has_kvs;      /* another part's: its static space */
    kvs_t kvs;
} fed_part_t;

/* A message to another site's mpirun awaiting its answer, for a rank here. Invariant: ids
 * are unique (next_id only grows); every entry is answered exactly once: by the answer, by
 * the server's UNREACHED or GONE, or when the connection is lost. */
typedef struct fed_wait {
    uint32_t id;
    int site;
    int get;          /* a get (answer: a get_result line); else a spawn (answer: RESULT) */
    char *key;        /* the get's key */
    spawn_origin_t o;
} fed_wait_t;

struct mh_fed {
    mh_spawn_t *s;
    mh_t *m;
    rdv_link_t *l;
    int lost;
    char why[600];
    fed_part_t *p;
    uint32_t n;
    uint32_t next;    /* the base the next RANKS must have */
    int early;        /* frames came with the layout: read them at the first round of the
                       * loop (after the helpers have their JOB), announced by POLLOUT */
    fed_wait_t *w;    /* the messages awaiting an answer */
    uint32_t nw, next_id;
};

/* The RELAY kinds between the parts' mpiruns (rendezvous/rdv_wire.h carries them):
 *   SPAWN    fields = { the asking part's world kvsname, parent, the request as
 *            parts_req_encode writes it }: start a part at your site for one of my ranks
 *   SPAWNED  fields = { kvsname, size } or { "", why }: the answer to SPAWN id
 *   GET      fields = { kvsname, key }: a key of a part you started (or your node 0's)
 *   GOT      fields = { value } or {} (not there): the answer to GET id */
enum { FED_SPAWN = RDV_RELAY_KINDS, FED_SPAWNED, FED_GET, FED_GOT };

static void finish(mh_fed_t *f, uint32_t i, const char *kvsname, const char *size_or_why);

static void on_link(void *arg, int fd, short revents);

static void watch(mh_fed_t *f)
{
    if (!f->lost)
        ev_watch(&f->m->loop, rdv_link_fd(f->l),
                 (short)(POLLIN | (rdv_link_wants_out(f->l) || f->early ? POLLOUT : 0)),
                 on_link, f);
}

/* The connection is of no further use: the job runs on, spawning fails from now on. */
static void lose(mh_fed_t *f, const char *why)
{
    if (f->lost)
        return;
    f->lost = 1;
    snprintf(f->why, sizeof f->why, "%s; spawning is not possible any more in this federated "
             "job", why);
    ev_unwatch(&f->m->loop, rdv_link_fd(f->l));
    if (!f->m->job.condemned && !f->m->gateways_ended)
        util_msg("site %s of job %s: %s", f->m->opts->site_name, f->m->opts->job_id, f->why);
    mh_spawn_fed_lost(f->s, f->why);
    while (f->nw)   /* no answer can come any more */
        finish(f, f->nw - 1, NULL, f->why);
}

mh_fed_t *mh_fed_new(mh_spawn_t *s, mh_t *m, rdv_link_t *l)
{
    mh_fed_t *f = util_xmalloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->s = s;
    f->m = m;
    f->l = l;
    f->next = (uint32_t)m->plan->size;
    f->early = l->inlen > 0;
    watch(f);
    return f;
}

void mh_fed_free(mh_fed_t *f)
{
    if (!f)
        return;
    if (!f->lost)
        ev_unwatch(&f->m->loop, rdv_link_fd(f->l));
    for (uint32_t i = 0; i < f->n; i++)
        if (f->p[i].has_kvs)
            kvs_free(&f->p[i].kvs);
    free(f->p);
    for (uint32_t i = 0; i < f->nw; i++)
        free(f->w[i].key);
    free(f->w);
    free(f);
}

const char *mh_fed_broken(const mh_fed_t *f)
{
    return f->lost ? f->why : NULL;
}

int mh_fed_ask(mh_fed_t *f, const char *kvsname, const int *site_of, int n, char *why,
               size_t cap)
{
    if (f->lost) {
        snprintf(why, cap, "%s", f->why);
        return -1;
    }
    char *sites = gateways_rank_sites(site_of, n);
    char err[600];
    int rc = rdv_link_numbers(f->l, kvsname, (uint32_t)n, sites, err, sizeof err);
    free(sites);
    if (rc != 0) {
        lose(f, err);
        snprintf(why, cap, "%s", f->why);
        return -1;
    }
    watch(f);
    return 0;
}

/* "S*N,S*N,...": the sites of count ranks, each below nsites. A new array, or NULL. */
static int *decode_sites(const char *text, uint32_t count, int nsites)
{
    int *site_of = util_xmalloc((size_t)count * sizeof *site_of);
    uint32_t r = 0;
    const char *p = text;
    while (*p) {
        char *end;
        unsigned long s = strtoul(p, &end, 10);
        if (end == p || *end != '*' || s >= (unsigned long)nsites)
            break;
        p = end + 1;
        unsigned long k = strtoul(p, &end, 10);
        if (end == p || k == 0 || k > count - r)
            break;
        for (unsigned long i = 0; i < k; i++)
            site_of[r++] = (int)s;
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            break;
    }
    if (*p || r != count) {
        free(site_of);
        return NULL;
    }
    return site_of;
}

/* Another part's static space: what a rank here reads when it meets those ranks. */
static void foreign_space(mh_fed_t *f, fed_part_t *p, const int *site_of)
{
    const mpirun_opts_t *o = f->m->opts;
    kvs_init(&p->kvs);
    p->has_kvs = 1;
    char v[32];
    snprintf(v, sizeof v, "%u", p->base);
    kvs_put(&p->kvs, "metampi.part.base", v);
    const char **names = util_xmalloc((size_t)o->mc.nsites * sizeof *names);
    for (int i = 0; i < o->mc.nsites; i++)
        names[i] = o->mc.site[i].name;
    char **pairs = NULL;
    int n = sitemap_encode(o->mc.nsites, names, site_of, (int)p->count,
                           PMI_WIRE_VALLEN_MAX - 1, &pairs);
    for (int i = 0; i < n; i++)
        kvs_put(&p->kvs, pairs[2 * i], pairs[2 * i + 1]);
    if (n > 0)
        sitemap_free_kv(pairs, n);
    free(names);
    const mh_plan_t *plan = f->m->plan;
    for (int i = 0; i < plan->nkv; i++)   /* the site gateways' addresses */
        if (strncmp(plan->kv[2 * i], "metampi.gw.", 11) == 0)
            kvs_put(&p->kvs, plan->kv[2 * i], plan->kv[2 * i + 1]);
}

static void answer(mh_fed_t *f, fed_part_t *p, const char *why)
{
    char err[600];
    if (!f->lost && rdv_link_gw_ok(f->l, p->base, (uint32_t)f->m->opts->site, why, err,
                                   sizeof err) != 0)
        lose(f, err);
    watch(f);
}

/* This site's gateway learns the ranks (in the order of the RANKS), or is answered for. */
static void to_gateway(mh_fed_t *f, fed_part_t *p, const char *sites)
{
    mh_t *m = f->m;
    int k = -1;
    for (int i = 0; i < m->nhost && k < 0; i++)
        if (m->host[i].ngw_args && mh_live(&m->host[i]))
            k = i;
    if (k < 0 || m->gateways_ended) {
        /* every rank here has exited and the gateway has ended: nobody here to reach */
        char why[200];
        snprintf(why, sizeof why, "site %s has lost its gateway's host", m->opts->site_name);
        answer(f, p, m->gateways_ended ? "" : why);
        return;
    }
    strv_t fl = { 0 };
    strv_pushf(&fl, "%u", p->base);
    strv_pushf(&fl, "%u", p->count);
    strv_push(&fl, sites);
    p->asked = k;
    if (parts_ctl_send(&m->host[k].ch, CTL_PARTS_GW_RANKS, p->tag, 0,
                       (const char *const *)fl.v, fl.n) != 0) {
        p->asked = -1;
        answer(f, p, "the spawned ranks' sites do not fit a control frame");
    }
    strv_free(&fl);
}

static void on_ranks(mh_fed_t *f, const rdv_ranks_t *r)
{
    const mpirun_opts_t *o = f->m->opts;
    int ours = r->site == (uint32_t)o->site;
    if (*r->why) {
        if (!ours) {
            lose(f, "the rendezvous server sent another part's refusal");
            return;
        }
        mh_spawn_numbered(f->s, r->kvsname, 0, 0, r->why);
        return;
    }
    int *site_of = r->base == f->next ? decode_sites(r->sites, r->count, o->mc.nsites) : NULL;
    if (!site_of) {
        char why[200];
        snprintf(why, sizeof why, "the rendezvous server sent numbers %u.. (expected %u..) or "
                 "sites that are not the job's", r->base, f->next);
        lose(f, why);
        return;
    }
    f->next += r->count;
    f->p = util_xrealloc(f->p, (f->n + 1) * sizeof *f->p);
    fed_part_t *p = &f->p[f->n++];
    memset(p, 0, sizeof *p);
    p->tag = 0x40000000u + f->n;   /* nonzero, apart from this mpirun's own part ids */
    p->base = r->base;
    p->count = r->count;
    p->asked = -1;
    p->site = (int)r->site;
    snprintf(p->kvsname, sizeof p->kvsname, "%s", r->kvsname);
    if (!ours)
        foreign_space(f, p, site_of);
    free(site_of);
    if (ours)
        mh_spawn_numbered(f->s, p->kvsname, p->base, r->parts, "");
    if (!f->lost)   /* r points into the link's input, unchanged until we return */
        to_gateway(f, &f->p[f->n - 1], r->sites);
}

static void on_relay(mh_fed_t *f, const rdv_relay_t *msg);

static void on_frame(void *ctx, uint8_t type, const rdv_ranks_t *r, const rdv_relay_t *msg)
{
    mh_fed_t *f = ctx;
    if (f->lost)
        return;
    if (type == RDV_RELAY) {
        on_relay(f, msg);
    } else if (type == RDV_RANKS) {
        on_ranks(f, r);
    } else if (r->site >= (uint32_t)f->m->opts->mc.nsites) {
        lose(f, "the rendezvous server named a site the job does not have");
    } else {
        mh_spawn_gw_answer(f->s, r->base, f->m->opts->mc.site[r->site].name, r->why);
    }
}

static void on_link(void *arg, int fd, short revents)
{
    (void)fd;
    mh_fed_t *f = arg;
    char err[600];
    if ((revents & POLLOUT) && rdv_link_flush(f->l, err, sizeof err) != 0) {
        lose(f, err);
        return;
    }
    int early = f->early;
    f->early = 0;
    if ((revents & (POLLIN | POLLHUP | POLLERR) || early) &&
        rdv_link_read(f->l, on_frame, f, err, sizeof err) != 0) {
        lose(f, err);
        return;
    }
    watch(f);
}

void mh_fed_gw_ready(mh_fed_t *f, mhost_t *h, const ctl_frame_t *fr)
{
    ctl_strs_t fl = fr->u.parts.fields;
    int k = (int)(h - f->m->host);
    fed_part_t *p = NULL;
    for (uint32_t i = 0; i < f->n && !p; i++)
        if (f->p[i].tag == fr->u.parts.node)
            p = &f->p[i];
    if (!p || p->asked != k || fl.n != 1) {
        mh_protocol_error(h, "a GW_READY for ranks its gateway was not asked about");
        return;
    }
    p->asked = -1;
    answer(f, p, ctl_strs_next(&fl));
}

const kvs_t *mh_fed_space(const mh_fed_t *f, const char *kvsname)
{
    for (uint32_t i = 0; f && i < f->n; i++)
        if (f->p[i].has_kvs && strcmp(f->p[i].kvsname, kvsname) == 0)
            return &f->p[i].kvs;
    return NULL;
}

/* ---- messages between the sites' mpiruns ------------------------------------------------ */

/* Sends one; 0, or -1 (the connection is lost: lose() has answered every waiting rank). */
static int relay(mh_fed_t *f, int site, uint32_t kind, uint32_t id, const char *const *v,
                 uint32_t n)
{
    char err[600];
    if (f->lost)
        return -1;
    if (rdv_link_relay(f->l, (uint32_t)site, kind, id, v, n, err, sizeof err) != 0) {
        lose(f, err);
        return -1;
    }
    watch(f);
    return 0;
}

static void tell_rank(const spawn_origin_t *o, uint8_t op, const char *const *v, uint32_t n)
{
    if (mh_live(o->h) && parts_ctl_send(&o->h->ch, op, o->node, o->rank, v, n) != 0)
        job_fail(&o->h->mh->job, 1, 0, "host %s: an answer about spawned ranks exceeds %u "
                 "bytes", o->h->name, CTL_MAX_FRAME);
}

/* Answers waiting entry i and forgets it: a spawn's RESULT (kvsname and size; kvsname NULL:
 * refused, why), or a get's line (kvsname NULL: not found; else the value). */
static void finish(mh_fed_t *f, uint32_t i, const char *kvsname, const char *size_or_why)
{
    fed_wait_t w = f->w[i];
    f->w[i] = f->w[--f->nw];
    if (w.get) {
        static char line[PMI_WIRE_MAXLINE];
        if (kvsname)
            snprintf(line, sizeof line, "cmd=get_result rc=0 msg=success value=%s",
                     size_or_why);
        else
            snprintf(line, sizeof line, "cmd=get_result rc=-1 msg=key_%s_not_found", w.key);
        const char *v[1] = { line };
        tell_rank(&w.o, CTL_PARTS_ANSWER, v, 1);
    } else {
        const char *v[2] = { kvsname ? kvsname : "", size_or_why };
        tell_rank(&w.o, CTL_PARTS_RESULT, v, 2);
    }
    free(w.key);
}

static int waiting(const mh_fed_t *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->nw; i++)
        if (f->w[i].id == id)
            return (int)i;
    return -1;
}

static uint32_t await(mh_fed_t *f, int site, int get, const char *key, const spawn_origin_t *o)
{
    f->w = util_xrealloc(f->w, (f->nw + 1) * sizeof *f->w);
    f->w[f->nw++] = (fed_wait_t){ .id = ++f->next_id, .site = site, .get = get,
                                  .key = key ? util_xstrdup(key) : NULL, .o = *o };
    return f->next_id;
}

int mh_fed_spawn_at(mh_fed_t *f, int site, const spawn_origin_t *o, const char *world,
                    const char *parent, const pmi_spawn_req_t *req, char *why, size_t cap)
{
    if (f->lost) {
        snprintf(why, cap, "%s", f->why);
        return -1;
    }
    strv_t v = { 0 };
    strv_push(&v, world);
    strv_push(&v, parent);
    parts_req_encode(req, &v);
    uint32_t id = await(f, site, 0, NULL, o);
    /* on failure lose() has answered the rank already: nothing more to do for the caller */
    relay(f, site, FED_SPAWN, id, (const char *const *)v.v, v.n);
    strv_free(&v);
    (void)why;
    return 0;
}

int mh_fed_get_at(mh_fed_t *f, const char *kvsname, const char *key, const spawn_origin_t *o)
{
    const fed_part_t *p = NULL;
    for (uint32_t i = 0; f && i < f->n && !p; i++)
        if (f->p[i].has_kvs && strcmp(f->p[i].kvsname, kvsname) == 0)
            p = &f->p[i];
    if (!p || f->lost || p->site == f->m->opts->site)
        return 0;
    const char *v[2] = { kvsname, key };
    uint32_t id = await(f, p->site, 1, key, o);
    relay(f, p->site, FED_GET, id, v, 2);
    return 1;
}

void mh_fed_spawned(mh_fed_t *f, int site, uint32_t id, const char *kvsname, int size,
                    const char *why)
{
    char n[16];
    snprintf(n, sizeof n, "%d", size);
    const char *v[2] = { kvsname ? kvsname : "", kvsname ? n : why };
    relay(f, site, FED_SPAWNED, id, v, 2);
}

static int valid_kvsname(const char *k)
{
    return *k && strlen(k) <= PMI_WIRE_KVSNAME_MAX &&
           strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
               strlen(k);
}

static void on_relay(mh_fed_t *f, const rdv_relay_t *msg)
{
    const mpirun_opts_t *o = f->m->opts;
    rdv_strs_t fl = msg->fields;
    const char *a = fl.n > 0 ? rdv_strs_next(&fl) : "", *b = fl.n > 1 ? rdv_strs_next(&fl) : "";
    int i = waiting(f, msg->id);
    if (msg->site >= (uint32_t)o->mc.nsites || msg->site == (uint32_t)o->site) {
        lose(f, "the rendezvous server relayed a message from a site the job does not have");
        return;
    }
    switch (msg->kind) {
    case RDV_RELAY_UNREACHED:
        if (i >= 0)
            finish(f, (uint32_t)i, NULL, a);
        return;
    case RDV_RELAY_GONE:
        for (uint32_t k = f->nw; k-- > 0;)
            if (f->w[k].site == (int)msg->site)
                finish(f, k, NULL, a);
        return;
    case FED_SPAWN: {
        if (fl.n < 3 || !valid_kvsname(a) || strlen(b) > PMI_WIRE_KVSNAME_MAX + 16 ||
            !pmi_wire_valid_value(b)) {
            mh_fed_spawned(f, (int)msg->site, msg->id, NULL, 0, "a malformed spawn request");
            return;
        }
        /* the rest is the request as parts_req_encode wrote it: a RELAY's strings are
         * encoded as a control frame's (u32 length with the NUL, the bytes) */
        ctl_strs_t req = { .p = fl.p, .n = fl.n - 2 };
        mh_spawn_remote(f->s, (int)msg->site, msg->id, a, b, req);
        return;
    }
    case FED_SPAWNED:
        if (i >= 0 && !f->w[i].get) {
            char text[700];
            int ok = fl.n == 2 && *a && valid_kvsname(a) && strspn(b, "0123456789") ==
                     strlen(b) && *b;
            if (!ok)
                snprintf(text, sizeof text, "site %s: %s", o->mc.site[msg->site].name,
                         fl.n == 2 && !*a ? b : "its mpirun sent a malformed answer");
            finish(f, (uint32_t)i, ok ? a : NULL, ok ? b : text);
        }
        return;
    case FED_GET: {
        const kvs_t *space = fl.n == 2 ? mh_spawn_own_space(f->s, a) : NULL;
        const char *v = space && pmi_wire_valid_key(b) ? kvs_get(space, b) : NULL;
        relay(f, (int)msg->site, FED_GOT, msg->id, &v, v ? 1 : 0);
        return;
    }
    case FED_GOT:
        if (i >= 0 && f->w[i].get)
            finish(f, (uint32_t)i, fl.n == 1 ? "" : NULL, a);
        return;
    default:
        lose(f, "the rendezvous server relayed a message of a kind this mpirun does not know");
    }
}
