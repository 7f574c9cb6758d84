#include "mh_spawn_int.h"

#include "ctl.h"
#include "gateways.h"
#include "placement.h"
#include "runtime/sitemap.h"
#include "universe.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mh_spawn_t *mh_spawn_new(mh_t *m)
{
    /* one mpirun for the whole job, or a part of a federated job that keeps its connection
     * to the rendezvous server (docs/dynproc.md, "Federated jobs") */
    int fed = m->opts->mc.nsites && m->opts->rendezvous;
    if (fed ? !m->plan->rdv : (m->plan->first != 0 || m->plan->np != m->plan->size))
        return NULL;
    mh_spawn_t *s = util_xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->m = m;
    kvs_init(&s->first);
    /* node 0's space as its ranks see it: the initial pairs (the site layout, which other
     * parts read to place node 0's ranks at their sites), then their puts */
    for (int i = 0; i < m->plan->nkv; i++)
        kvs_put(&s->first, m->plan->kv[2 * i], m->plan->kv[2 * i + 1]);
    s->shared = jobspace_new();
    s->next_id = m->plan->size;
    s->used = calloc((size_t)m->opts->hosts.n, sizeof *s->used);
    if (!s->used)
        util_xmalloc((size_t)-1);
    for (int k = 0; k < m->nhost; k++)
        s->used[m->host[k].index] = m->host[k].nranks;
    if (fed)
        s->fed = mh_fed_new(s, m, m->plan->rdv);
    return s;
}

static void part_free(mh_part_t *p)
{
    free(p->slot);
    free(p->involved);
    free(p->ready);
    free(p->in_barrier);
    free(p->departed);
    free(p->gw_asked);
    free(p->parent);
    pmi_spawn_free(&p->req);
    kvs_free(&p->kvs);
    strv_free(&p->journal);
    free(p);
}

void mh_spawn_free(mh_spawn_t *s)
{
    if (!s)
        return;
    mh_fed_free(s->fed);
    for (int i = 0; i < s->nparts; i++)
        part_free(s->part[i]);
    free(s->part);
    free(s->used);
    kvs_free(&s->first);
    jobspace_free(s->shared);
    free(s);
}

char **mh_spawn_kv(const mh_spawn_t *s, char **kv, int npairs, int *nout)
{
    char **out = util_xmalloc((size_t)(2 * (npairs + 2)) * sizeof *out);
    for (int i = 0; i < 2 * npairs; i++)
        out[i] = util_xstrdup(kv[i]);
    /* the library may spawn and use ports, or why not (runtime/job_spawn.h) */
    out[2 * npairs] = util_xstrdup(s ? "metampi.spawn" : "metampi.nospawn");
    out[2 * npairs + 1] = util_xstrdup(s ? "1" : "sites");
    *nout = npairs + 1;
    return out;
}

static mh_part_t *find(const mh_spawn_t *s, uint32_t id)
{
    for (int i = 0; i < s->nparts; i++)
        if (s->part[i]->id == id)
            return s->part[i];
    return NULL;
}

static void tell(mhost_t *h, uint8_t op, uint32_t node, uint32_t rank, strv_t *f)
{
    if (mh_live(h) && parts_ctl_send(&h->ch, op, node, rank, (const char *const *)f->v,
                                     f->n) != 0)
        job_fail(&h->mh->job, 1, 0, "host %s: a message about spawned ranks exceeds %u bytes",
                 h->name, CTL_MAX_FRAME);
    strv_free(f);
}

void mh_spawn_result(mh_spawn_t *s, mh_part_t *p, const char *kvsname, int size,
                     const char *why)
{
    if (p->remote_site >= 0) {   /* the mpirun of another site asked (mh_fed.h) */
        mh_fed_spawned(s->fed, p->remote_site, p->remote_id, kvsname, size, why);
        return;
    }
    strv_t f = { 0 };
    strv_push(&f, kvsname ? kvsname : "");
    if (kvsname)
        strv_pushf(&f, "%d", size);
    else
        strv_push(&f, why);
    tell(p->from, CTL_PARTS_RESULT, p->from_node, p->from_rank, &f);
}

/* ---- placing a part ------------------------------------------------------------------- */

static int usable(const mhost_t *h)
{
    return mh_live(h) && !h->done;
}

/* Host-list entry i can take ranks: its helper runs and has not finished, or it has none
 * yet and one can be started (mh_late.c). */
static int usable_entry(const mh_spawn_t *s, int i)
{
    const mpirun_opts_t *o = s->m->opts;
    if (s->fed && o->mc.host_site[i] != o->site)
        return 0;   /* another site's mpirun runs its hosts */
    int k = s->m->helper_of[i];
    return k >= 0 ? usable(&s->m->host[k]) : !s->m->job.condemned;
}

/* Whether ranks may start on host-list entry i as far as the site gateways go: in gateway
 * mode its site must run one (a site that got no rank at the job's start has none). */
static int gateway_at(const mh_spawn_t *s, int i)
{
    const mh_t *m = s->m;
    const mpirun_opts_t *o = m->opts;
    if (!o->mc.nsites || o->direct_wan)
        return 1;
    for (int k = 0; k < m->nhost; k++)
        if (m->host[k].ngw_args && o->mc.host_site[m->host[k].index] == o->mc.host_site[i])
            return 1;
    return 0;
}

/* The next host-list entry of the round robin: one with a free slot, else any; never one at
 * a site without a gateway (gateway mode). -1: none. */
static int next_host(mh_spawn_t *s)
{
    mh_t *m = s->m;
    int n = m->opts->hosts.n;
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < n; j++) {
            int i = (s->cursor + j) % n;
            if (!usable_entry(s, i) || !gateway_at(s, i) ||
                (pass == 0 && s->used[i] >= m->opts->hosts.h[i].slots))
                continue;
            s->cursor = (i + 1) % n;
            return i;
        }
    return -1;
}

/* The host an application's "host" key names: its index in the host list, or -1 with why. */
static int named_host(mh_spawn_t *s, const char *name, char *why, size_t cap)
{
    mh_t *m = s->m;
    const mpirun_opts_t *o = m->opts;
    for (int i = 0; i < m->opts->hosts.n; i++)
        if (strcmp(m->opts->hosts.h[i].name, name) == 0) {
            if (s->fed && o->mc.host_site[i] != o->site) {
                /* not reached from a rank: such requests go to that site's mpirun
                 * whole (mh_spawn_request_site) */
                snprintf(why, cap, "host '%s' (info key host) is at site %s, not at this "
                         "mpirun's (%s)", name, o->mc.site[o->mc.host_site[i]].name,
                         o->site_name);
                return -1;
            }
            if (usable_entry(s, i))
                return i;
            snprintf(why, cap, "host '%s' (info key host) has finished its part of the job",
                     name);
            return -1;
        }
    size_t len = (size_t)snprintf(why, cap, "host '%s' (info key host) is not a host of this "
                                  "job (its hosts:", name);
    for (int i = 0; i < m->opts->hosts.n && len + 40 < cap; i++)
        len += (size_t)snprintf(why + len, cap - len, "%s %s", i ? "," : "",
                                m->opts->hosts.h[i].name);
    if (len + 2 < cap)
        snprintf(why + len, cap - len, ")");
    return -1;
}

/* Places every rank of req on entries of the host list (p->slot): 0, or -1 with why. */
static int place(mh_spawn_t *s, mh_part_t *p, const pmi_spawn_req_t *req, char *why,
                 size_t cap)
{
    int r = 0;
    for (int a = 0; a < req->napps; a++) {
        const char *name = pmi_spawn_info(&req->app[a], "host");
        int fixed = name ? named_host(s, name, why, cap) : -1;
        if (name && fixed < 0)
            return -1;
        for (int i = 0; i < req->app[a].maxprocs; i++, r++) {
            int k = name ? fixed : next_host(s);
            if (k < 0) {
                snprintf(why, cap, "no host of the job can take ranks any more");
                return -1;
            }
            p->slot[r] = k;
            s->used[k]++;
        }
    }
    return 0;
}

/* Turns p->slot from host-list entries into helpers, starting the helpers the part needs
 * on hosts that run no rank yet: 0, or -1 (the job is condemned, with the reason). */
static int find_helpers(mh_spawn_t *s, mh_part_t *p)
{
    for (int r = 0; r < p->size; r++) {
        int k = mh_late_helper(s->m, p->slot[r]);
        if (k < 0)
            return -1;
        p->slot[r] = k;
    }
    return 0;
}

/* The share of host k of the part: its definition. */
static void define(mh_part_t *p, const pmi_spawn_req_t *req, int k, const strv_t *kv,
                   const char *mapping, strv_t *out)
{
    parts_def_t d = { .kvsname = p->kvsname, .size = p->size, .base = p->base,
                      .mapping = (char *)mapping, .napps = req->napps };
    d.rank = util_xmalloc((size_t)p->size * sizeof *d.rank);
    d.app = util_xmalloc((size_t)p->size * sizeof *d.app);
    for (int a = 0, r = 0; a < req->napps; a++)
        for (int i = 0; i < req->app[a].maxprocs; i++, r++)
            if (p->slot[r] == k) {
                d.rank[d.nlocal] = r;
                d.app[d.nlocal++] = a;
            }
    d.apps = util_xmalloc((size_t)req->napps * sizeof *d.apps);
    for (int a = 0; a < req->napps; a++) {
        const pmi_spawn_app_t *app = &req->app[a];
        const char *dir = pmi_spawn_info(app, "path"), *wdir = pmi_spawn_info(app, "wdir");
        d.apps[a] = (parts_app_t){ .execname = app->execname, .pathdir = (char *)(dir ? dir : ""),
                                   .wdir = (char *)(wdir ? wdir : ""), .argv = app->argv,
                                   .argc = app->argc };
    }
    d.kv = kv->v;
    d.nkv = (int)kv->n / 2;
    parts_def_encode(&d, out);
    free(d.rank);
    free(d.app);
    free(d.apps);
}

/* A part of a job of several sites: the site layout of its ranks (runtime/sitemap.h), with
 * the job's site names in description order, so that a site number means the same site in
 * every part; the ranks read their own sites from it at MPI_Init, the other parts' ranks
 * theirs when they meet them (runtime/sites.h, sites_of_part). */
/* The site of each rank of the part (malloc'ed). */
static int *part_sites(const mh_t *m, const mh_part_t *p)
{
    int *site_of = util_xmalloc((size_t)p->size * sizeof *site_of);
    for (int r = 0; r < p->size; r++)
        site_of[r] = m->opts->mc.host_site[m->host[p->slot[r]].index];
    return site_of;
}

static void part_layout(mh_t *m, const mh_part_t *p, strv_t *kv)
{
    const mpirun_opts_t *o = m->opts;
    if (!o->mc.nsites)
        return;
    int *site_of = part_sites(m, p);
    const char **names = util_xmalloc((size_t)o->mc.nsites * sizeof *names);
    for (int i = 0; i < o->mc.nsites; i++)
        names[i] = o->mc.site[i].name;
    char **pairs = NULL;
    int n = sitemap_encode(o->mc.nsites, names, site_of, p->size, PMI_WIRE_VALLEN_MAX - 1,
                           &pairs);
    for (int i = 0; i < 2 * n; i++)   /* n < 0 is not reached: the input is checked */
        strv_push(kv, pairs[i]);
    if (n > 0)
        sitemap_free_kv(pairs, n);
    free(site_of);
    free(names);
}

/* Gateway mode: each rank of the part goes to a site whose gateway runs (a site that got no
 * rank at the job's start has none). p->slot holds host-list entries here. */
static int gateways_there(mh_spawn_t *s, mh_part_t *p, char *why, size_t cap)
{
    const mpirun_opts_t *o = s->m->opts;
    for (int r = 0; r < p->size; r++)
        if (!gateway_at(s, p->slot[r])) {
            int site = o->mc.host_site[p->slot[r]];
            snprintf(why, cap, "site %s runs no gateway (no rank of the job started there), so "
                     "ranks cannot start there (host '%s')", o->mc.site[site].name,
                     o->hosts.h[p->slot[r]].name);
            return 0;
        }
    return 1;
}

/* Gateway mode: every site gateway learns the part's numbers and sites before any of its
 * ranks starts (GW_RANKS; the helper asks its gateway, hostd/gwgrow.h), so that no frame to
 * a new rank reaches a gateway that does not know it; decide() waits for every GW_READY. */
static void announce_to_gateways(mh_t *m, mh_part_t *p)
{
    const mpirun_opts_t *o = m->opts;
    if (!o->mc.nsites || o->direct_wan)
        return;
    strv_t runs = { 0 };
    int *site_of = part_sites(m, p);
    char *text = gateways_rank_sites(site_of, p->size);
    free(site_of);
    for (int k = 0; k < m->nhost; k++) {
        if (!m->host[k].ngw_args || !mh_live(&m->host[k]))
            continue;
        strv_pushf(&runs, "%d", p->base);
        strv_pushf(&runs, "%d", p->size);
        strv_push(&runs, text);
        p->gw_asked[k] = 1;
        p->gw_wait++;
        tell(&m->host[k], CTL_PARTS_GW_RANKS, p->id, 0, &runs);
    }
    free(text);
}

/* The part has its numbers (p->base): its space, every chosen helper's share (PART), the
 * gateways (one mpirun; a federated part's are told by mh_fed). */
void mh_spawn_launch(mh_spawn_t *s, mh_part_t *p, const pmi_spawn_req_t *req,
                     const char *parent)
{
    mh_t *m = s->m;
    /* the part's layout: its ranks by the host-list index of their hosts */
    int *where = util_xmalloc((size_t)p->size * sizeof *where);
    for (int r = 0; r < p->size; r++) {
        where[r] = m->host[p->slot[r]].index;
        if (!p->involved[p->slot[r]]) {
            p->involved[p->slot[r]] = 1;
            p->ninvolved++;
        }
    }
    char *mapping = placement_mapping(where, p->size, PMI_WIRE_VALLEN_MAX - 1);
    /* the part's space before any of its ranks starts, here (for the other parts' gets)
     * and at its hosts */
    strv_t kv = { 0 };
    strv_push(&kv, "metampi.spawn");
    strv_push(&kv, "1");
    strv_push(&kv, "metampi.part.base");
    strv_pushf(&kv, "%d", p->base);
    strv_push(&kv, "metampi.part.parent");
    strv_push(&kv, parent);
    strv_push(&kv, UNIVERSE_KEY);
    strv_pushf(&kv, "%d", m->universe);
    part_layout(m, p, &kv);
    for (int i = 0; i < m->plan->nkv; i++)   /* the site gateways' addresses */
        if (strncmp(m->plan->kv[2 * i], "metampi.gw.", 11) == 0) {
            strv_push(&kv, m->plan->kv[2 * i]);
            strv_push(&kv, m->plan->kv[2 * i + 1]);
        }
    for (int i = 0; i < 2 * req->npreput; i++)
        strv_push(&kv, req->preput[i]);
    for (uint32_t i = 0; i < kv.n; i += 2)
        kvs_put(&p->kvs, kv.v[i], kv.v[i + 1]);
    for (int k = 0; k < m->nhost; k++) {
        if (!p->involved[k])
            continue;
        strv_t def = { 0 };
        define(p, req, k, &kv, mapping, &def);
        tell(&m->host[k], CTL_PARTS_PART, p->id, 0, &def);
    }
    if (!s->fed)
        announce_to_gateways(m, p);
    strv_free(&kv);
    free(mapping);
    free(where);
}

void mh_spawn_drop(mh_spawn_t *s, mh_part_t *p)
{
    for (int i = 0; i < s->nparts; i++)
        if (s->part[i] == p)
            s->part[i] = s->part[--s->nparts];
    part_free(p);
}

static void on_spawn(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = s->m;
    ctl_strs_t fl = f->u.parts.fields;
    uint32_t node = f->u.parts.node;
    mh_part_t *from = node ? find(s, node) : NULL;
    pmi_spawn_req_t req;
    const char *pmirank = fl.n ? ctl_strs_next(&fl) : "";
    fl.n = fl.n ? fl.n - 1 : 0;
    if ((node && (!from || !from->go)) || !*pmirank || strlen(pmirank) > 9 ||
        strspn(pmirank, "0123456789") != strlen(pmirank) || parts_req_decode(fl, &req) != 0) {
        mh_protocol_error(h, "a malformed spawn request");
        return;
    }
    char parent[PMI_WIRE_KVSNAME_MAX + 32];
    snprintf(parent, sizeof parent, "%s,%s", node ? from->kvsname : m->kvsname, pmirank);
    spawn_origin_t o = { .h = h, .node = node, .rank = f->u.parts.rank, .site = -1 };
    char why[600];
    int site = s->fed && !m->job.condemned ? mh_spawn_request_site(s, &req, why, sizeof why)
                                           : -1;   /* condemned: refused below */
    if (site >= 0) {
        /* another site's mpirun starts them (mh_fed.h); its answer goes to the rank */
        if (mh_fed_spawn_at(s->fed, site, &o, m->kvsname, parent, &req, why, sizeof why) != 0)
            site = -2;
    }
    if (site == -2) {
        mh_part_t p = { .from = h, .from_node = node, .from_rank = o.rank, .remote_site = -1 };
        mh_spawn_result(s, &p, NULL, 0, why);
    }
    if (site != -1) {
        pmi_spawn_free(&req);
        return;
    }
    mh_spawn_part(s, &o, &req, parent);
}

void mh_spawn_part(mh_spawn_t *s, const spawn_origin_t *o, pmi_spawn_req_t *req_in,
                   const char *parent)
{
    mh_t *m = s->m;
    pmi_spawn_req_t req = *req_in;
    mh_part_t *p = util_xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->id = s->made + 1;
    snprintf(p->kvsname, sizeof p->kvsname, "%s.s%u", m->kvsname, p->id);
    p->from = o->h;
    p->from_node = o->node;
    p->from_rank = o->rank;
    p->remote_site = o->site;
    p->remote_id = o->id;
    p->size = req.nprocs;
    p->base = s->next_id;
    kvs_init(&p->kvs);
    p->slot = util_xmalloc((size_t)req.nprocs * sizeof *p->slot);
    size_t cap = (size_t)m->opts->hosts.n;   /* helpers there may be */
    p->involved = calloc(cap, 1);
    p->ready = calloc(cap, 1);
    p->in_barrier = calloc(cap, 1);
    p->departed = calloc((size_t)req.nprocs, 1);
    p->gw_asked = calloc(cap, 1);
    int *used_before = util_xmalloc(cap * sizeof *used_before);
    memcpy(used_before, s->used, cap * sizeof *used_before);
    char why[600];
    int ok = 0;
    const char *broken = s->fed ? mh_fed_broken(s->fed) : NULL;
    if (m->job.condemned)
        snprintf(why, sizeof why, "the job is ending");
    else if (broken)
        snprintf(why, sizeof why, "%s", broken);
    else if (!s->fed && req.nprocs > (int)CTL_MAX_RANK_ID - s->next_id)
        snprintf(why, sizeof why, "too many ranks started in the job (job-wide numbers stop "
                 "at %u on several hosts)", CTL_MAX_RANK_ID);
    else
        ok = place(s, p, &req, why, sizeof why) == 0 && gateways_there(s, p, why, sizeof why);
    if (ok && find_helpers(s, p) != 0) {
        ok = 0;
        snprintf(why, sizeof why, "the job is ending");
    }
    if (ok && s->fed) {
        /* the numbers come from the rendezvous server (mh_spawn_numbered) */
        int *site_of = part_sites(m, p);
        ok = mh_fed_ask(s->fed, p->kvsname, site_of, p->size, why, sizeof why) == 0;
        free(site_of);
    }
    if (!ok) {
        memcpy(s->used, used_before, cap * sizeof *used_before);
        free(used_before);
        mh_spawn_result(s, p, NULL, 0, why);
        pmi_spawn_free(&req);
        part_free(p);
        return;
    }
    free(used_before);
    s->made++;
    s->part = util_xrealloc(s->part, (size_t)(s->nparts + 1) * sizeof *s->part);
    s->part[s->nparts++] = p;
    if (s->fed) {
        p->numbering = 1;
        p->req = req;   /* owned by p from now on */
        p->parent = util_xstrdup(parent);
        return;
    }
    s->next_id += p->size;
    mh_spawn_launch(s, p, &req, parent);
    pmi_spawn_free(&req);
}

/* A helper's or gateway's answer: "" agrees; the first reason given refuses the part. */
void mh_spawn_note_refusal(mh_part_t *p, const char *why)
{
    if (*why && !p->refused) {
        p->refused = 1;
        snprintf(p->why, sizeof p->why, "%s", why);
    }
}

static void on_gw_ready(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    if (s->fed) {   /* the answer goes to the spawning part, through the server */
        mh_fed_gw_ready(s->fed, h, f);
        return;
    }
    mh_part_t *p = find(s, f->u.parts.node);
    int k = (int)(h - s->m->host);
    ctl_strs_t fl = f->u.parts.fields;
    if (!p || p->go || !p->gw_asked[k] || fl.n != 1) {
        mh_protocol_error(h, "a GW_READY for a part its gateway was not asked about");
        return;
    }
    p->gw_asked[k] = 0;
    mh_spawn_note_refusal(p, ctl_strs_next(&fl));
    if (--p->gw_wait == 0 && p->nready == p->ninvolved)
        mh_spawn_decide(s, p);
}

/* Every chosen helper said READY: all of them start the part, or none. A part another
 * site's mpirun asked for starts once it confirms (mh_spawn_confirmed): its rank may have
 * been answered for meanwhile (mh_fed.h), and children nobody connects to must not run. */
void mh_spawn_decide(mh_spawn_t *s, mh_part_t *p)
{
    mh_t *m = s->m;
    int go = !p->refused && !m->job.condemned;
    if (go) {
        mh_spawn_result(s, p, p->kvsname, p->size, NULL);
        if (p->remote_site >= 0)
            p->confirming = 1;
        else
            mh_spawn_start(s, p, 1);
        return;
    }
    mh_spawn_result(s, p, NULL, 0, m->job.condemned && !p->refused ? "the job is ending" : p->why);
    mh_spawn_start(s, p, 0);
}

void mh_spawn_start(mh_spawn_t *s, mh_part_t *p, int go)
{
    mh_t *m = s->m;
    p->confirming = 0;
    for (int k = 0; k < m->nhost; k++)
        if (p->involved[k]) {
            strv_t none = { 0 };
            tell(&m->host[k], CTL_PARTS_GO, p->id, (uint32_t)go, &none);
        }
    if (go) {
        p->go = 1;
        return;
    }
    for (int r = 0; r < p->size; r++)
        s->used[m->host[p->slot[r]].index]--;
    mh_spawn_drop(s, p);
}

static void on_ready(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    mh_part_t *p = find(s, f->u.parts.node);
    int k = (int)(h - s->m->host);
    ctl_strs_t fl = f->u.parts.fields;
    if (!p || p->go || !p->involved[k] || p->ready[k] || fl.n != 1) {
        mh_protocol_error(h, "a READY for a part it was not asked to start");
        return;
    }
    p->ready[k] = 1;
    mh_spawn_note_refusal(p, ctl_strs_next(&fl));
    if (++p->nready == p->ninvolved && p->gw_wait == 0)
        mh_spawn_decide(s, p);
}

/* ---- the parts' spaces ------------------------------------------------------------------- */

static const kvs_t *space_of(const mh_spawn_t *s, const char *kvsname)
{
    const kvs_t *own = mh_spawn_own_space(s, kvsname);
    return own ? own : mh_fed_space(s->fed, kvsname);   /* another part's children */
}

static void on_ask(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    static pmi_msg_t msg;   /* large; single-threaded */
    static char out[PMI_WIRE_MAXLINE];
    ctl_strs_t fl = f->u.parts.fields;
    if (fl.n != 1 || (f->u.parts.node && !find(s, f->u.parts.node))) {
        mh_protocol_error(h, "a malformed ASK");
        return;
    }
    const char *line = ctl_strs_next(&fl);
    spawn_origin_t o = { .h = h, .node = f->u.parts.node, .rank = f->u.parts.rank };
    out[0] = '\0';
    if (pmi_wire_parse(line, strlen(line), &msg) == 0) {
        const char *cmd = pmi_msg_cmd(&msg);
        const char *k = pmi_msg_get(&msg, "kvsname"), *key = pmi_msg_get(&msg, "key");
        if (strcmp(cmd, "get") == 0 && (!k || !key || !pmi_wire_valid_key(key))) {
            snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=invalid_key");
        } else if (strcmp(cmd, "get") == 0) {
            const kvs_t *space = space_of(s, k);
            const char *v = space ? kvs_get(space, key) : NULL;
            if (!v && mh_fed_get_at(s->fed, k, key, &o))
                return;   /* put at another site: answered from there */
            if (v)
                snprintf(out, sizeof out, "cmd=get_result rc=0 msg=success value=%s", v);
            else
                snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=key_%s_not_found", key);
        } else if (jobspace_is_command(cmd) && mh_fed_shared_at(s->fed, cmd, line, &o)) {
            return;   /* kept by the first site's mpirun: answered from there */
        } else if (jobspace_command(s->shared, &msg, out, sizeof out) != 1) {
            out[0] = '\0';   /* not a command of ours, or malformed: invalid */
        }
    }
    strv_t a = { 0 };
    strv_push(&a, out);
    tell(h, CTL_PARTS_ANSWER, f->u.parts.node, f->u.parts.rank, &a);
}

static void on_put(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    ctl_strs_t fl = f->u.parts.fields;
    mh_part_t *p = f->u.parts.node ? find(s, f->u.parts.node) : NULL;
    const char *k = fl.n == 2 ? ctl_strs_next(&fl) : "", *v = fl.n == 2 ? ctl_strs_next(&fl) : "";
    if ((f->u.parts.node && (!p || !p->go || !p->involved[h - s->m->host])) ||
        !pmi_wire_valid_key(k) || !pmi_wire_valid_value(v)) {
        mh_protocol_error(h, "a malformed PUT");
        return;
    }
    if (kvs_put(p ? &p->kvs : &s->first, k, v) != 0)
        return;   /* full: the gets fail */
    if (p) {
        strv_push(&p->journal, k);
        strv_push(&p->journal, v);
    }
}

static void on_barrier_in(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = s->m;
    mh_part_t *p = find(s, f->u.parts.node);
    int k = (int)(h - m->host);
    if (!p || !p->go || !p->involved[k] || p->in_barrier[k]) {
        mh_protocol_error(h, "a BARRIER_IN of a part it does not run or is in already");
        return;
    }
    p->in_barrier[k] = 1;
    if (++p->nbarrier < p->ninvolved)
        return;
    for (int j = 0; j < m->nhost; j++) {
        if (!p->involved[j])
            continue;
        p->in_barrier[j] = 0;
        strv_t kv = { 0 };
        for (uint32_t i = 0; i < p->journal.n; i++)
            strv_push(&kv, p->journal.v[i]);
        tell(&m->host[j], CTL_PARTS_BARRIER_OUT, p->id, 0, &kv);
    }
    p->nbarrier = 0;
    strv_free(&p->journal);
}

void mh_spawn_frame(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    if (!s) {
        mh_protocol_error(h, "a PARTS frame in a job that cannot spawn");
        return;
    }
    switch (f->u.parts.op) {
    case CTL_PARTS_SPAWN: on_spawn(s, h, f); return;
    case CTL_PARTS_ASK: on_ask(s, h, f); return;
    case CTL_PARTS_PUT: on_put(s, h, f); return;
    case CTL_PARTS_BARRIER_IN: on_barrier_in(s, h, f); return;
    case CTL_PARTS_READY: on_ready(s, h, f); return;
    case CTL_PARTS_GW_READY: on_gw_ready(s, h, f); return;
    default: mh_protocol_error(h, "a PARTS frame of an op only mpirun sends");
    }
}

/* ---- the parts' ranks ---------------------------------------------------------------------- */

static mh_part_t *part_of_rank(const mh_spawn_t *s, uint32_t rank)
{
    for (int i = 0; s && i < s->nparts; i++) {
        mh_part_t *p = s->part[i];
        if (p->go && rank >= (uint32_t)p->base && rank - (uint32_t)p->base < (uint32_t)p->size)
            return p;
    }
    return NULL;
}

int mh_spawn_running(const mh_spawn_t *s)
{
    int n = 0;
    for (int i = 0; s && i < s->nparts; i++)
        for (int r = 0; r < s->part[i]->size; r++)
            n += s->part[i]->go && !s->part[i]->departed[r];
    return n;
}

int mh_spawn_rank_here(const mh_spawn_t *s, const mhost_t *h, uint32_t rank)
{
    mh_part_t *p = part_of_rank(s, rank);
    return p && &s->m->host[p->slot[rank - (uint32_t)p->base]] == h;
}

void mh_spawn_exited(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f)
{
    uint32_t rank = f->u.exited.rank;
    mh_part_t *p = part_of_rank(s, rank);
    if (p->departed[rank - (uint32_t)p->base]) {
        mh_protocol_error(h, "a second EXITED frame for a spawned rank");
        return;
    }
    p->departed[rank - (uint32_t)p->base] = 1;
    job_rank_exited(&s->m->job, (int)rank, h->name, (pid_t)f->u.exited.pid, f->u.exited.status,
                    f->u.exited.inited, f->u.exited.finalized);
}
