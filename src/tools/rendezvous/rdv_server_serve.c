/*
 * The rendezvous server while the job runs (docs/dynproc.md, "Federated jobs"): the parts
 * keep their connections after the layout, and the server is the job's one sequencer of
 * job-wide numbers for spawned ranks and the relay of their gateways' answers.
 *
 *   NUMBERS from part A -> the next count numbers (never given again), as RANKS to every
 *     serving part, A included, in this one order (each part hands them to its gateway in
 *     the order received, so every gateway grows its tables contiguously);
 *   GW_OK from part B about base -> to the part that asked for base;
 *   RELAY from part A to site B -> to B's part, or UNREACHED back to A when B has none
 *     serving; a serving part that goes -> GONE to every other serving part.
 * Invariants: next_id only grows; an entry of asked[] lists the serving parts whose answer is
 * still awaited; a part that goes answers for itself ("": its ranks and gateway are gone).
 */
#include "rdv_server_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct numbers {
    uint32_t base;
    conn_t *asker;
    unsigned char *waiting;   /* per site: its answer is awaited */
} numbers_t;

static void send_gw_ok(conn_t *to, uint32_t base, uint32_t site, const char *why)
{
    rdv_begin(&to->out, RDV_GW_OK);
    rdv_put_u32(&to->out, base);
    rdv_put_u32(&to->out, site);
    rdv_put_str(&to->out, why);
    rdv_end(&to->out, &to->tx);
    rdv_conn_flush(to);
}

static void send_ranks(conn_t *to, const rdv_ranks_t *r, uint32_t base, uint32_t site,
                       uint32_t parts, const char *why)
{
    rdv_begin(&to->out, RDV_RANKS);
    rdv_put_str(&to->out, r->kvsname);
    rdv_put_u32(&to->out, base);
    rdv_put_u32(&to->out, r->count);
    rdv_put_str(&to->out, r->sites);
    rdv_put_u32(&to->out, site);
    rdv_put_u32(&to->out, parts);
    rdv_put_str(&to->out, why);
    rdv_end(&to->out, &to->tx);
    rdv_conn_flush(to);
}

static void forget(srv_t *s, int i)
{
    free(s->asked[i].waiting);
    s->asked[i] = s->asked[--s->nasked];
}

static void on_numbers(srv_t *s, conn_t *c, const rdv_ranks_t *r)
{
    if (r->count > RDV_ID_MAX - s->next_id) {
        send_ranks(c, r, 0, (uint32_t)c->site, 0, "too many ranks started in the job (job-wide "
                   "numbers stop at 2^30)");
        return;
    }
    uint32_t base = s->next_id;
    s->next_id += r->count;
    numbers_t *n = realloc(s->asked, (size_t)(s->nasked + 1) * sizeof *n);
    unsigned char *w = calloc((size_t)s->cfg->nsites, 1);
    if (!n || !w)
        abort();
    s->asked = n;
    n = &s->asked[s->nasked++];
    *n = (numbers_t){ .base = base, .asker = c, .waiting = w };
    uint32_t parts = 0;
    for (int i = 0; i < s->n; i++)
        if (s->c[i]->state == C_SERVING) {
            w[s->c[i]->site] = 1;
            parts++;
        }
    for (int i = 0; i < s->n; i++)
        if (s->c[i]->state == C_SERVING)
            send_ranks(s->c[i], r, base, (uint32_t)c->site, parts, "");
    rdv_srv_log(s, "site %s spawns %u rank%s: job-wide numbers %u-%u", s->cfg->sites[c->site],
                r->count, r->count == 1 ? "" : "s", base, base + r->count - 1);
}

static void on_gw_ok(srv_t *s, conn_t *c, uint32_t base, const char *why)
{
    for (int i = 0; i < s->nasked; i++) {
        numbers_t *n = &s->asked[i];
        if (n->base != base || !n->waiting[c->site])
            continue;
        n->waiting[c->site] = 0;
        send_gw_ok(n->asker, base, (uint32_t)c->site, why);
        int left = 0;
        for (int t = 0; t < s->cfg->nsites; t++)
            left |= n->waiting[t];
        if (!left)
            forget(s, i);
        return;
    }
    /* an answer about numbers whose asker has gone, or a second one: nobody waits for it */
}

static void send_relay(conn_t *to, uint32_t site, uint32_t kind, uint32_t id,
                       const rdv_strs_t *fields, const char *text)
{
    rdv_begin(&to->out, RDV_RELAY);
    rdv_put_u32(&to->out, site);
    rdv_put_u32(&to->out, kind);
    rdv_put_u32(&to->out, id);
    if (fields) {   /* as they came (validated): count, then each string */
        rdv_strs_t f = *fields;
        rdv_put_u32(&to->out, f.n);
        for (uint32_t i = 0; i < fields->n; i++)
            rdv_put_str(&to->out, rdv_strs_next(&f));
    } else {
        rdv_put_strs(&to->out, &text, 1);
    }
    rdv_end(&to->out, &to->tx);   /* no larger than the RELAY it answers or relays */
    rdv_conn_flush(to);
}

/* The serving part of site, or NULL. */
static conn_t *serving(srv_t *s, uint32_t site)
{
    for (int i = 0; i < s->n; i++)
        if (s->c[i]->state == C_SERVING && (uint32_t)s->c[i]->site == site)
            return s->c[i];
    return NULL;
}

static void on_relay(srv_t *s, conn_t *c, const rdv_relay_t *m)
{
    conn_t *to = serving(s, m->site);
    if (to) {
        send_relay(to, (uint32_t)c->site, m->kind, m->id, &m->fields, NULL);
        return;
    }
    char why[200];
    snprintf(why, sizeof why, "the mpirun of site %s is not connected to the rendezvous "
             "server (its part has ended, or it lost the connection)", s->cfg->sites[m->site]);
    send_relay(c, m->site, RDV_RELAY_UNREACHED, m->id, NULL, why);
}

int rdv_srv_on_frame(srv_t *s, conn_t *c, uint8_t type, const unsigned char *body, size_t len)
{
    char err[256], tmp[32];
    rdv_ranks_t r;
    rdv_relay_t m;
    uint32_t base, site;
    const char *why;
    if (type == RDV_RELAY && rdv_relay_parse(body, len, &m, err, sizeof err) == 0) {
        if (m.site < (uint32_t)s->cfg->nsites && m.site != (uint32_t)c->site &&
            m.kind >= RDV_RELAY_KINDS) {
            on_relay(s, c, &m);
            return 0;
        }
        snprintf(err, sizeof err, "a RELAY to site %u of kind %u", m.site, m.kind);
    } else if (type == RDV_NUMBERS && rdv_numbers_parse(body, len, &r, err, sizeof err) == 0) {
        on_numbers(s, c, &r);
        return 0;
    }
    if (type == RDV_GW_OK && rdv_gw_ok_parse(body, len, &base, &site, &why, err,
                                             sizeof err) == 0) {
        if (site == (uint32_t)c->site) {
            on_gw_ok(s, c, base, why);
            return 0;
        }
        snprintf(err, sizeof err, "a GW_OK for site %u, not its own", site);
    } else if (type != RDV_NUMBERS && type != RDV_GW_OK && type != RDV_RELAY) {
        snprintf(err, sizeof err, "unexpected %s frame", rdv_type_name(type, tmp, sizeof tmp));
    }
    rdv_srv_log(s, "site %s (%s) broke the protocol while the job runs (%s); dropped its "
                "connection (it can no longer spawn)", s->cfg->sites[c->site], c->peer, err);
    rdv_srv_part_gone(s, c);
    rdv_conn_drop(s, c);
    return -1;
}

void rdv_srv_part_gone(srv_t *s, const conn_t *c)
{
    for (int i = s->nasked - 1; i >= 0; i--)
        if (s->asked[i].asker == c)
            forget(s, i);
    for (int i = s->nasked - 1; i >= 0; i--)
        if (s->asked[i].waiting[c->site])
            on_gw_ok(s, (conn_t *)c, s->asked[i].base, "");
    /* whoever waits for an answer from its part stops waiting */
    char why[200];
    snprintf(why, sizeof why, "the mpirun of site %s left the rendezvous server (its part "
             "has ended, or it lost the connection)", s->cfg->sites[c->site]);
    for (int i = 0; i < s->n; i++)
        if (s->c[i] != c && s->c[i]->state == C_SERVING)
            send_relay(s->c[i], (uint32_t)c->site, RDV_RELAY_GONE, 0, NULL, why);
}

void rdv_srv_serve_free(srv_t *s)
{
    while (s->nasked)
        forget(s, s->nasked - 1);
    free(s->asked);
    s->asked = NULL;
}
