#include "mh_fed_int.h"

#include "gateways.h"
#include "mh_spawn.h"
#include "parts_ctl.h"
#include "rdv_link.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "runtime/tunables.h"
#include "util.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_link(void *arg, int fd, short revents);

void mh_fed_watch(mh_fed_t *f)
{
    if (!f->lost)
        ev_watch(&f->m->loop, rdv_link_fd(f->l),
                 (short)(POLLIN | (rdv_link_wants_out(f->l) || f->early ? POLLOUT : 0)),
                 on_link, f);
}

/* The connection is of no further use: the job runs on, spawning fails from now on. */
void mh_fed_lose(mh_fed_t *f, const char *why)
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
    mh_fed_relay_lost(f);
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
    f->timeout_ms = (long long)tun_time(TUN_FED_TIMEOUT) * 1000;   /* checked at the start */
    f->idle = calloc((size_t)m->opts->mc.nsites, 1);
    f->gone = calloc((size_t)m->opts->mc.nsites, 1);
    if (!f->idle || !f->gone)
        util_xmalloc((size_t)-1);
    mh_fed_relay_start(f);
    mh_fed_watch(f);
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
    free(f->idle);
    free(f->gone);
    mh_fed_relay_free(f);
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
        mh_fed_lose(f, err);
        snprintf(why, cap, "%s", f->why);
        return -1;
    }
    mh_fed_watch(f);
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
        mh_fed_lose(f, err);
    mh_fed_watch(f);
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
            mh_fed_lose(f, "the rendezvous server sent another part's refusal");
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
        mh_fed_lose(f, why);
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

static void on_frame(void *ctx, uint8_t type, const rdv_ranks_t *r, const rdv_relay_t *msg)
{
    mh_fed_t *f = ctx;
    if (f->lost)
        return;
    if (type == RDV_RELAY) {
        mh_fed_on_relay(f, msg);
    } else if (type == RDV_RANKS) {
        on_ranks(f, r);
    } else if (r->site >= (uint32_t)f->m->opts->mc.nsites) {
        mh_fed_lose(f, "the rendezvous server named a site the job does not have");
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
        mh_fed_lose(f, err);
        return;
    }
    int early = f->early;
    f->early = 0;
    if ((revents & (POLLIN | POLLHUP | POLLERR) || early) &&
        rdv_link_read(f->l, on_frame, f, err, sizeof err) != 0) {
        mh_fed_lose(f, err);
        return;
    }
    mh_fed_watch(f);
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

