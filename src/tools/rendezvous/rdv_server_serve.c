/*
 * The rendezvous server while the job runs (docs/dynproc.md, "Federated jobs"): the parts
 * keep their connections after the layout, and the server is the job's one sequencer of
 * job-wide numbers for spawned ranks and the relay of their gateways' answers.
 *
 *   NUMBERS from part A -> the next count numbers (never given again), as RANKS to every
 *     serving part, A included, in this one order (each part hands them to its gateway in
 *     the order received, so every gateway grows its tables contiguously);
 *   GW_OK from part B about base -> to the part that asked for base.
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

int rdv_srv_on_frame(srv_t *s, conn_t *c, uint8_t type, const unsigned char *body, size_t len)
{
    char err[256], tmp[32];
    rdv_ranks_t r;
    uint32_t base, site;
    const char *why;
    if (type == RDV_NUMBERS && rdv_numbers_parse(body, len, &r, err, sizeof err) == 0) {
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
    } else if (type != RDV_NUMBERS && type != RDV_GW_OK) {
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
}

void rdv_srv_serve_free(srv_t *s)
{
    while (s->nasked)
        forget(s, s->nasked - 1);
    free(s->asked);
    s->asked = NULL;
}
