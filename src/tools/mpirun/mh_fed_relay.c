/*
 * Messages between the sites' mpiruns of a federated job (docs/dynproc.md, "Federated jobs"),
 * RELAY frames through the rendezvous server (rendezvous/rdv_wire.h): a spawn asked of the
 * mpirun of the site its hosts are at, and gets for the keys of parts started there.
 */
#include "mh_fed_int.h"

#include "mh_spawn.h"
#include "parts_ctl.h"
#include "pmi_spawn.h"
#include "net/clock.h"
#include "runtime/pmi_wire.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The RELAY kinds between the parts' mpiruns (rendezvous/rdv_wire.h carries them):
 *   SPAWN    fields = { the asking part's world kvsname, parent, the request as
 *            parts_req_encode writes it }: start a part at your site for one of my ranks
 *   SPAWNED  fields = { kvsname, size } or { "", why }: the answer to SPAWN id; a success
 *            is the part ready, not started: it starts at CONFIRM
 *   CONFIRM  fields = { "1" } (start it) or { "0" } (drop it: the asking rank was answered
 *            for at its deadline, so nobody would connect to the children): the answer to
 *            a successful SPAWNED id
 *   GET      fields = { kvsname, key }: a key of a part you started (or your node 0's)
 *   GOT      fields = { value } or {} (not there): the answer to GET id
 *   WORLD    fields = { kvsname }: my node 0's kvsname (once, at the start, to every site)
 *   CMD      fields = { line }: a shared-space command (jobspace.h), to the first site's
 *   DONE     fields = { reply line }: the answer to CMD id
 *   IDLE     fields = { "1" } (every rank of my part has exited, nothing is being started
 *            here) or { "0" } (busy again: a spawn here), to every site, on each change:
 *            a part ends its gateway only when every other site is idle or gone */
enum { FED_SPAWN = RDV_RELAY_KINDS, FED_SPAWNED, FED_GET, FED_GOT, FED_WORLD, FED_CMD,
       FED_DONE, FED_CONFIRM, FED_IDLE };

/* Sends one; 0, or -1 (the connection is lost: mh_fed_lose has answered every waiting rank). */
static int relay(mh_fed_t *f, int site, uint32_t kind, uint32_t id, const char *const *v,
                 uint32_t n)
{
    char err[600];
    if (f->lost)
        return -1;
    if (rdv_link_relay(f->l, (uint32_t)site, kind, id, v, n, err, sizeof err) != 0) {
        mh_fed_lose(f, err);
        return -1;
    }
    mh_fed_watch(f);
    return 0;
}

static void tell_rank(const spawn_origin_t *o, uint8_t op, const char *const *v, uint32_t n)
{
    if (mh_live(o->h) && parts_ctl_send(&o->h->ch, op, o->node, o->rank, v, n) != 0)
        job_fail(&o->h->mh->job, 1, 0, "host %s: an answer about spawned ranks exceeds %u "
                 "bytes", o->h->name, CTL_MAX_FRAME);
}

/* The reply to a shared-space command whose keeper cannot be asked (jobspace.h). */
static void unreachable(char *line, size_t cap, const char *name, const char *why)
{
    char hex[2 * 300 + 1], text[301];
    snprintf(text, sizeof text, "%s", why);
    pmi_spawn_hex_encode(text, hex);
    snprintf(line, cap, "cmd=%s_result rc=-9 msg=%s", name, hex);
}

/* Answers waiting entry i and forgets it: a spawn's RESULT (kvsname and size; kvsname NULL:
 * refused, why), or a get's line (kvsname NULL: not found; else the value). */
static void finish(mh_fed_t *f, uint32_t i, const char *kvsname, const char *size_or_why)
{
    fed_wait_t w = f->w[i];
    f->w[i] = f->w[--f->nw];
    static char line[PMI_WIRE_MAXLINE];
    const char *v[2] = { line, NULL };
    if (w.get == WAIT_GET) {
        if (kvsname)
            snprintf(line, sizeof line, "cmd=get_result rc=0 msg=success value=%s",
                     size_or_why);
        else
            snprintf(line, sizeof line, "cmd=get_result rc=-1 msg=key_%s_not_found", w.key);
        tell_rank(&w.o, CTL_PARTS_ANSWER, v, 1);
    } else if (w.get == WAIT_CMD) {
        if (kvsname)
            snprintf(line, sizeof line, "%s", size_or_why);
        else   /* no answer from the first site (jobspace.h) */
            unreachable(line, sizeof line, w.key, size_or_why);
        tell_rank(&w.o, CTL_PARTS_ANSWER, v, 1);
    } else {
        v[0] = kvsname ? kvsname : "";
        v[1] = size_or_why;
        tell_rank(&w.o, CTL_PARTS_RESULT, v, 2);
    }
    free(w.key);
}

/* The entry awaiting an answer from site to our message id, or -1. The site matters: an
 * UNREACHED may be about our answer to another site's message, whose id is that site's;
 * then site is the one not connected, and a message of ours to it gets no answer either. */
static int waiting(const mh_fed_t *f, uint32_t site, uint32_t id)
{
    for (uint32_t i = 0; i < f->nw; i++)
        if (f->w[i].id == id && f->w[i].site == (int)site)
            return (int)i;
    return -1;
}

static uint32_t await(mh_fed_t *f, int site, int get, const char *key, const spawn_origin_t *o)
{
    f->w = util_xrealloc(f->w, (f->nw + 1) * sizeof *f->w);
    long long deadline = f->timeout_ms ? net_now_ms() + f->timeout_ms : 0;
    f->w[f->nw++] = (fed_wait_t){ .id = ++f->next_id, .site = site, .get = get,
                                  .key = key ? util_xstrdup(key) : NULL,
                                  .deadline = deadline, .o = *o };
    return f->next_id;
}

void mh_fed_relay_timers(mh_fed_t *f, long long now, int *timeout)
{
    /* from the end: finish() moves the last entry, already looked at, into the freed slot */
    for (uint32_t k = f->nw; k-- > 0;) {
        const fed_wait_t *w = &f->w[k];
        if (!w->deadline)
            continue;
        if (now < w->deadline) {
            job_fold_deadline(timeout, w->deadline, now);
            continue;
        }
        char what[120], why[400];
        if (w->get == WAIT_SPAWN)
            snprintf(what, sizeof what, "the spawn request");
        else if (w->get == WAIT_GET)
            snprintf(what, sizeof what, "a get of key %.60s", w->key);
        else
            snprintf(what, sizeof what, "the %s command", w->key);
        snprintf(why, sizeof why, "the mpirun of site %s did not answer %s within %lld s "
                 "(METAMPI_FED_TIMEOUT): it is stopped, overloaded or cut off",
                 f->m->opts->mc.site[w->site].name, what, f->timeout_ms / 1000);
        finish(f, k, NULL, why);
    }
}

void mh_fed_timers(mh_fed_t *f, long long now, int *timeout)
{
    if (f && !f->lost)
        mh_fed_relay_timers(f, now, timeout);
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
    uint32_t id = await(f, site, WAIT_SPAWN, NULL, o);
    /* on failure mh_fed_lose has answered the rank already: nothing more to do for the caller */
    relay(f, site, FED_SPAWN, id, (const char *const *)v.v, v.n);
    strv_free(&v);
    (void)why;
    return 0;
}

int mh_fed_world_site(const mh_fed_t *f, const char *k)
{
    for (uint32_t i = 0; f && i < f->world.n; i++)
        if (strcmp(f->world.v[i], k) == 0)
            return f->world_site[i];
    return -1;
}

static void add_world(mh_fed_t *f, int site, const char *k)
{
    if (mh_fed_world_site(f, k) >= 0 || strcmp(k, f->m->kvsname) == 0)
        return;
    strv_push(&f->world, k);
    f->world_site = util_xrealloc(f->world_site, f->world.n * sizeof *f->world_site);
    f->world_site[f->world.n - 1] = site;
}

int mh_fed_get_at(mh_fed_t *f, const char *kvsname, const char *key, const spawn_origin_t *o)
{
    int site = -1;
    for (uint32_t i = 0; f && i < f->n && site < 0; i++)
        if (f->p[i].has_kvs && strcmp(f->p[i].kvsname, kvsname) == 0)
            site = f->p[i].site;
    if (site < 0)
        site = mh_fed_world_site(f, kvsname);
    if (site < 0 || f->lost || site == f->m->opts->site)
        return 0;
    const char *v[2] = { kvsname, key };
    uint32_t id = await(f, site, WAIT_GET, key, o);
    relay(f, site, FED_GET, id, v, 2);
    return 1;
}

int mh_fed_shared_at(mh_fed_t *f, const char *cmd, const char *line, const spawn_origin_t *o)
{
    if (!f || f->m->opts->site == 0)
        return 0;   /* the keeper: answered here */
    char name[32];
    snprintf(name, sizeof name, "%s", strncmp(cmd, "port_", 5) == 0 ? "port" : cmd);
    if (f->lost) {
        static char reply[PMI_WIRE_MAXLINE];
        unreachable(reply, sizeof reply, name, f->why);
        const char *v[1] = { reply };
        tell_rank(o, CTL_PARTS_ANSWER, v, 1);
        return 1;
    }
    uint32_t id = await(f, 0, WAIT_CMD, name, o);
    relay(f, 0, FED_CMD, id, &line, 1);
    return 1;
}

void mh_fed_relay_start(mh_fed_t *f)
{
    const char *v[1] = { f->m->kvsname };
    for (int site = 0; site < f->m->opts->mc.nsites; site++)
        if (site != f->m->opts->site)
            relay(f, site, FED_WORLD, 0, v, 1);
}

int mh_fed_hold(mh_fed_t *f, int idle)
{
    if (!f || f->lost)
        return 0;
    int nsites = f->m->opts->mc.nsites, self = f->m->opts->site;
    if (idle != f->idle_told) {
        const char *v[1] = { idle ? "1" : "0" };
        f->idle_told = idle;
        for (int site = 0; site < nsites; site++)
            if (site != self && !f->gone[site])
                relay(f, site, FED_IDLE, 0, v, 1);
    }
    for (int site = 0; site < nsites && !f->lost; site++)
        if (site != self && !f->gone[site] && !f->idle[site])
            return 1;
    return 0;
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

void mh_fed_on_relay(mh_fed_t *f, const rdv_relay_t *msg)
{
    const mpirun_opts_t *o = f->m->opts;
    rdv_strs_t fl = msg->fields;
    const char *a = fl.n > 0 ? rdv_strs_next(&fl) : "", *b = fl.n > 1 ? rdv_strs_next(&fl) : "";
    int i = waiting(f, msg->site, msg->id);
    if (msg->site >= (uint32_t)o->mc.nsites || msg->site == (uint32_t)o->site) {
        mh_fed_lose(f, "the rendezvous server relayed a message from a site the job does not "
                       "have");
        return;
    }
    switch (msg->kind) {
    case RDV_RELAY_UNREACHED:
        if (i >= 0)
            finish(f, (uint32_t)i, NULL, a);
        else   /* our answer, perhaps a SPAWNED: that site can confirm none of its parts */
            mh_spawn_confirmed(f->s, (int)msg->site, 0, 1, 0);
        f->gone[msg->site] = 1;   /* not connected: nobody there spawns here any more */
        return;
    case RDV_RELAY_GONE:
        for (uint32_t k = f->nw; k-- > 0;)
            if (f->w[k].site == (int)msg->site)
                finish(f, k, NULL, a);
        mh_spawn_confirmed(f->s, (int)msg->site, 0, 1, 0);
        f->gone[msg->site] = 1;
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
        add_world(f, (int)msg->site, a);
        mh_spawn_remote(f->s, (int)msg->site, msg->id, a, b, req);
        return;
    }
    case FED_SPAWNED: {
        int ok = fl.n == 2 && *a && valid_kvsname(a) && strspn(b, "0123456789") ==
                 strlen(b) && *b;
        int mine = i >= 0 && f->w[i].get == WAIT_SPAWN, live = mine && mh_live(f->w[i].o.h);
        if (mine) {
            char text[700];
            if (!ok)
                snprintf(text, sizeof text, "site %s: %s", o->mc.site[msg->site].name,
                         fl.n == 2 && !*a ? b : "its mpirun sent a malformed answer");
            finish(f, (uint32_t)i, ok ? a : NULL, ok ? b : text);
        }
        if (ok) {   /* start the children only if the rank has them (not answered for) */
            const char *yes = live ? "1" : "0";
            relay(f, (int)msg->site, FED_CONFIRM, msg->id, &yes, 1);
        }
        return;
    }
    case FED_IDLE:
        if (fl.n == 1)
            f->idle[msg->site] = strcmp(a, "1") == 0;
        return;
    case FED_CONFIRM:
        if (fl.n == 1)
            mh_spawn_confirmed(f->s, (int)msg->site, msg->id, 0, strcmp(a, "1") == 0);
        return;
    case FED_GET: {
        const kvs_t *space = fl.n == 2 ? mh_spawn_own_space(f->s, a) : NULL;
        const char *v = space && pmi_wire_valid_key(b) ? kvs_get(space, b) : NULL;
        relay(f, (int)msg->site, FED_GOT, msg->id, &v, v ? 1 : 0);
        return;
    }
    case FED_GOT:
        if (i >= 0 && f->w[i].get == WAIT_GET)
            finish(f, (uint32_t)i, fl.n == 1 ? "" : NULL, a);
        return;
    case FED_WORLD:
        if (fl.n == 1 && valid_kvsname(a))
            add_world(f, (int)msg->site, a);
        return;
    case FED_CMD: {
        static char out[PMI_WIRE_MAXLINE];
        if (fl.n == 1 && o->site == 0)
            mh_spawn_shared(f->s, a, out, sizeof out);
        else
            out[0] = '\0';
        const char *v[1] = { out };
        relay(f, (int)msg->site, FED_DONE, msg->id, v, 1);
        return;
    }
    case FED_DONE:
        if (i >= 0 && f->w[i].get == WAIT_CMD)
            finish(f, (uint32_t)i, fl.n == 1 && *a ? "" : NULL, a);
        return;
    default:
        mh_fed_lose(f, "the rendezvous server relayed a message of a kind this mpirun does not "
                       "know");
    }
}

void mh_fed_relay_lost(mh_fed_t *f)
{
    while (f->nw)   /* no answer can come any more */
        finish(f, f->nw - 1, NULL, f->why);
}

void mh_fed_relay_free(mh_fed_t *f)
{
    for (uint32_t i = 0; i < f->nw; i++)
        free(f->w[i].key);
    free(f->w);
    strv_free(&f->world);
    free(f->world_site);
}
