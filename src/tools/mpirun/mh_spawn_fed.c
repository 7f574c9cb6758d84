/*
 * Spawning in a part of a federated job (docs/dynproc.md, "Federated jobs"), mh_spawn's side
 * of mh_fed.h: the numbers of our parts and the sites' gateway answers, the connection to the
 * rendezvous server lost, and the spawns one site's mpirun asks another's for.
 *   - A request whose info key host names hosts of another site goes there whole (every
 *     application to that site: mh_spawn_request_site); that mpirun places, numbers and
 *     starts the part as for a rank of its own (mh_spawn_remote) and answers with the result,
 *     which goes to the asking rank (mh_fed.c).
 *   - The children there read their parents' world under the asking part's world kvsname:
 *     the world is one, with the same layout in every part's space and the cards of the
 *     ranks of this site in node 0's space here, so every other site's world kvsname
 *     (mh_fed_world_site) names node 0's space here too; a key it lacks (put at that site)
 *     is asked for there (mh_fed_get_at).
 *   - The job's shared space (names, ports: jobspace.h) is the first site's mpirun's; the
 *     others send it their ranks' commands (mh_fed_shared_at, mh_spawn_shared).
 */
#include "mh_spawn_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mh_spawn_numbered(mh_spawn_t *s, const char *kvsname, uint32_t base, uint32_t parts,
                       const char *why)
{
    mh_part_t *p = NULL;
    for (int i = 0; i < s->nparts && !p; i++)
        if (s->part[i]->numbering && strcmp(s->part[i]->kvsname, kvsname) == 0)
            p = s->part[i];
    if (!p)
        return;   /* refused meanwhile (the connection was lost): the gateways grow anyway */
    p->numbering = 0;
    if (*why) {
        mh_spawn_result(s, p, NULL, 0, why);
        for (int r = 0; r < p->size; r++)
            s->used[s->m->host[p->slot[r]].index]--;
        mh_spawn_drop(s, p);
        return;
    }
    p->base = (int)base;
    p->gw_wait = (int)parts;
    mh_spawn_launch(s, p, &p->req, p->parent);
    pmi_spawn_free(&p->req);
}

void mh_spawn_gw_answer(mh_spawn_t *s, uint32_t base, const char *site, const char *why)
{
    for (int i = 0; i < s->nparts; i++) {
        mh_part_t *p = s->part[i];
        if (p->numbering || p->go || p->gw_wait <= 0 || (uint32_t)p->base != base)
            continue;
        if (*why) {
            char text[sizeof p->why];
            snprintf(text, sizeof text, "site %s: %s", site, why);
            mh_spawn_note_refusal(p, text);
        }
        if (--p->gw_wait == 0 && p->nready == p->ninvolved)
            mh_spawn_decide(s, p);
        return;
    }
}

void mh_spawn_fed_lost(mh_spawn_t *s, const char *why)
{
    /* the parts still waiting for their numbers are refused; those waiting for the gateways
     * too (they would wait for ever), once their helpers have answered */
    for (int i = s->nparts - 1; i >= 0; i--) {
        mh_part_t *p = s->part[i];
        if (p->numbering) {
            mh_spawn_result(s, p, NULL, 0, why);
            for (int r = 0; r < p->size; r++)
                s->used[s->m->host[p->slot[r]].index]--;
            mh_spawn_drop(s, p);
        } else if (p->confirming) {   /* no CONFIRM can come */
            mh_spawn_start(s, p, 0);
        } else if (!p->go && p->gw_wait > 0) {
            mh_spawn_note_refusal(p, why);
            p->gw_wait = 0;
            if (p->nready == p->ninvolved)
                mh_spawn_decide(s, p);
        }
    }
}

void mh_spawn_confirmed(mh_spawn_t *s, int site, uint32_t id, int all, int yes)
{
    for (int i = s->nparts - 1; i >= 0; i--) {
        mh_part_t *p = s->part[i];
        if (p->confirming && p->remote_site == site && (all || p->remote_id == id))
            mh_spawn_start(s, p, yes && !s->m->job.condemned);
    }
}

void mh_spawn_timers(mh_spawn_t *s, long long now, int *timeout)
{
    if (!s || !s->fed)
        return;
    mh_fed_timers(s->fed, now, timeout);
    if (mh_spawn_hold(s) == 0)   /* perhaps released: another site became idle or gone */
        mh_check_departed(s->m);
}

int mh_spawn_hold(mh_spawn_t *s)
{
    if (!s || !s->fed)
        return 0;
    mh_t *m = s->m;
    if (m->job.condemned)
        return 0;   /* the job ends anyway */
    /* idle: no rank of this part runs, none is being started (a part not yet GO) */
    int idle = m->ndeparted == m->plan->np && mh_spawn_running(s) == 0;
    for (int i = 0; i < s->nparts && idle; i++)
        idle = s->part[i]->go;
    return mh_fed_hold(s->fed, idle);
}

int mh_spawn_request_site(const mh_spawn_t *s, const pmi_spawn_req_t *req, char *why,
                          size_t cap)
{
    const mpirun_opts_t *o = s->m->opts;
    int site = -1, first = -1;   /* the site of the named hosts; the app naming it first */
    for (int a = 0; a < req->napps; a++) {
        const char *name = pmi_spawn_info(&req->app[a], "host");
        int here = -1;   /* a host not of the job: place() says so, wherever it goes */
        for (int i = 0; name && i < o->hosts.n; i++)
            if (strcmp(o->hosts.h[i].name, name) == 0)
                here = o->mc.host_site[i];
        if (here < 0 || (site >= 0 && here == site))
            continue;
        if (site < 0) {
            site = here;
            first = a;
            continue;
        }
        snprintf(why, cap, "the applications of one spawn name hosts at sites %s "
                 "(application %d) and %s (application %d) (info key host); in a federated "
                 "job the ranks of one spawn start at one site: spawn at each site apart",
                 o->mc.site[site].name, first, o->mc.site[here].name, a);
        return -2;
    }
    if (site >= 0 && site != o->site) {
        for (int a = 0; a < req->napps; a++)
            if (!pmi_spawn_info(&req->app[a], "host")) {
                snprintf(why, cap, "application %d names a host at site %s (info key host), "
                         "application %d none (so it would start at this site, %s); in a "
                         "federated job the ranks of one spawn start at one site: give every "
                         "application a host there, or spawn at each site apart", first,
                         o->mc.site[site].name, a, o->site_name);
                return -2;
            }
        return site;
    }
    return -1;
}

void mh_spawn_remote(mh_spawn_t *s, int site, uint32_t id, const char *world,
                     const char *parent, ctl_strs_t fields)
{
    spawn_origin_t o = { .site = site, .id = id };
    pmi_spawn_req_t req;
    if (parts_req_decode(fields, &req) != 0) {
        mh_part_t p = { .remote_site = site, .remote_id = id };
        mh_spawn_result(s, &p, NULL, 0, "the spawn request did not decode at this site");
        return;
    }
    (void)world;   /* known as the asking site's world (mh_fed_world_site) */
    mh_spawn_part(s, &o, &req, parent);
}

const kvs_t *mh_spawn_own_space(const mh_spawn_t *s, const char *kvsname)
{
    if (strcmp(kvsname, s->m->kvsname) == 0 || mh_fed_world_site(s->fed, kvsname) >= 0)
        return &s->first;
    for (int i = 0; i < s->nparts; i++)
        if (s->part[i]->go && strcmp(kvsname, s->part[i]->kvsname) == 0)
            return &s->part[i]->kvs;
    return NULL;
}

void mh_spawn_shared(mh_spawn_t *s, const char *line, char *out, size_t cap)
{
    static pmi_msg_t msg;   /* large; single-threaded */
    out[0] = '\0';   /* not a command of ours, or malformed: invalid */
    if (pmi_wire_parse(line, strlen(line), &msg) != 0 ||
        jobspace_command(s->shared, &msg, out, cap) != 1)
        out[0] = '\0';
}
