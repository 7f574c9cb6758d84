/* The rendezvous server's decisions on JOINs: a JOIN checked against the description (job,
 * sites, [wan] settings, ranks), the WAITING answer, and at the end the LAYOUT to every part or
 * the ABORT that calls the job off (rdv_server.h: the policy). */
#include "rdv_server_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a, b and c" of the sites not joined yet (the text is cut when very long). */
void rdv_srv_missing(const srv_t *s, char *buf, size_t cap)
{
    size_t len = 0;
    int total = 0, k = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->cfg->nsites; i++)
        total += !s->site_conn[i];
    for (int i = 0; i < s->cfg->nsites; i++) {
        if (s->site_conn[i])
            continue;
        const char *sep = k == 0 ? "" : k == total - 1 ? " and " : ", ";
        if (len + strlen(sep) + strlen(s->cfg->sites[i]) + 16 > cap) {
            snprintf(buf + len, cap - len, " and %d more", total - k);
            return;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, s->cfg->sites[i]);
        k++;
    }
}

static void send_layout(const srv_t *s, conn_t *c)
{
    const rdv_server_config_t *cfg = s->cfg;
    uint32_t size = 0;
    for (int i = 0; i < cfg->nsites; i++)
        size += s->site_conn[i]->j.nranks;
    rdv_buf_t *b = &c->out;
    rdv_begin(b, RDV_LAYOUT);
    rdv_put_u32(b, size);
    rdv_put_u32(b, (uint32_t)cfg->nsites);
    uint32_t first = 0;
    for (int i = 0; i < cfg->nsites; i++) {
        const rdv_join_t *j = &s->site_conn[i]->j;
        rdv_put_str(b, cfg->sites[i]);
        rdv_put_u32(b, first);
        rdv_put_u32(b, j->nranks);
        rdv_strs_t h = j->hosts;
        rdv_put_u32(b, h.n);
        for (uint32_t k = 0; k < j->hosts.n; k++)
            rdv_put_str(b, rdv_strs_next(&h));
        rdv_put_u32(b, j->rank_host.n);
        for (uint32_t k = 0; k < j->rank_host.n; k++)
            rdv_put_u32(b, rdv_u32s_at(&j->rank_host, k));
        rdv_put_str(b, j->gateway);
        first += j->nranks;
    }
    rdv_end(b, &c->tx);
}

/* Every site is there: the layout goes to each part; the pending handshakes are dropped. */
void rdv_srv_hand_out(srv_t *s, long long now)
{
    const rdv_server_config_t *cfg = s->cfg;
    char text[1536];
    size_t len = 0;
    uint32_t first = 0;
    for (int i = 0; i < cfg->nsites && len < sizeof text - 100; i++) {
        uint32_t n = s->site_conn[i]->j.nranks;
        if (n == 1)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s rank %u",
                                    i ? ", " : "", cfg->sites[i], first);
        else
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s ranks %u-%u",
                                    i ? ", " : "", cfg->sites[i], first, first + n - 1);
        first += n;
    }
    rdv_srv_log(s, "all %d site%s joined: job %s starts with %u ranks (%s)", cfg->nsites,
                cfg->nsites == 1 ? "" : "s", cfg->job, first, text);
    for (int i = s->n - 1; i >= 0; i--) {
        conn_t *c = s->c[i];
        if (c->state == C_WAITING) {
            /* the part keeps the connection for spawning (rdv_server_serve.c) */
            send_layout(s, c);
            net_pending_remove(&s->acc, &c->pending);
            c->state = C_SERVING;
            rdv_conn_flush(c);
        } else if (c->state != C_CLOSING) {
            rdv_conn_drop(s, c);
        }
    }
    s->end = HANDED_OUT;
    s->t_end = now;
    s->next_id = first;
}

/* The job will not start: every waiting part is told why. */
void rdv_srv_call_off(srv_t *s, long long now, const char *why)
{
    rdv_srv_log(s, "%s; job %s is called off", why, s->cfg->job);
    for (int i = s->n - 1; i >= 0; i--) {
        conn_t *c = s->c[i];
        if (c->state == C_WAITING) {
            rdv_conn_send_text(c, RDV_ABORT, why);
            rdv_conn_close_after(s, c, now);
        } else if (c->state != C_CLOSING) {
            rdv_conn_drop(s, c);
        }
    }
    s->end = CALLED_OFF;
    s->t_end = now;
}

/* "a,b,c" of a validated list, for messages (cut when long). */
static void list_text(rdv_strs_t l, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < l.n; i++) {
        const char *v = rdv_strs_next(&l);
        if (len + strlen(v) + 8 > cap) {
            snprintf(buf + len, cap - len, ",...");
            return;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", v);
    }
}

/* Handles c's JOIN. 0, or -1 when c was dropped. */
int rdv_srv_on_join(srv_t *s, conn_t *c, const unsigned char *body, size_t len,
                    long long now)
{
    const rdv_server_config_t *cfg = s->cfg;
    char err[512];
    c->join = malloc(len ? len : 1);
    if (!c->join) {
        rdv_srv_log(s, "out of memory for a JOIN from %s; dropped", c->peer);
        rdv_conn_drop(s, c);
        return -1;
    }
    memcpy(c->join, body, len);
    c->joinlen = len;
    rdv_join_t *j = &c->j;
    if (rdv_join_parse(c->join, len, j, err, sizeof err) != 0) {
        rdv_conn_refuse(s, c, NULL, "invalid JOIN: %s", err);
        return 0;
    }
    if (strcmp(j->job, cfg->job) != 0) {
        rdv_conn_refuse(s, c, j->site, "this rendezvous server is for job '%s', not '%s'", cfg->job,
                        j->job);
        return 0;
    }
    int same = (int)j->sites.n == cfg->nsites;
    rdv_strs_t l = j->sites;
    for (int i = 0; i < cfg->nsites && same; i++)
        same = strcmp(rdv_strs_next(&l), cfg->sites[i]) == 0;
    int site = -1;
    for (int i = 0; i < cfg->nsites; i++)
        if (strcmp(cfg->sites[i], j->site) == 0)
            site = i;
    if (site < 0 || !same) {
        char theirs[512], ours[512];
        list_text(j->sites, theirs, sizeof theirs);
        size_t len2 = 0;
        ours[0] = '\0';
        for (int i = 0; i < cfg->nsites && len2 + strlen(cfg->sites[i]) + 8 < sizeof ours; i++)
            len2 += (size_t)snprintf(ours + len2, sizeof ours - len2, "%s%s", i ? "," : "",
                                     cfg->sites[i]);
        if (site < 0)
            rdv_conn_refuse(s, c, j->site,
                            "site '%s' is not in the server's description (sites %s)", j->site,
                            ours);
        else
            rdv_conn_refuse(s, c, j->site, "the part's description has the sites %s, the "
                            "server's has %s (give every part and the server the same "
                            "description)", theirs, ours);
        return 0;
    }
    char subject[256];
    if (cfg->x509 && !net_secure_peer_names(c->sec, j->site, subject, sizeof subject)) {
        rdv_conn_refuse(s, c, j->site, "its certificate (subject %s) does not name site '%s' "
                        "(a subjectAltName DNS entry '%s', or without any the subject's CN)",
                        subject[0] ? subject : "unknown", j->site, j->site);
        return 0;
    }
    if (strcmp(j->wan, cfg->wan ? cfg->wan : "") != 0) {
        rdv_conn_refuse(s, c, j->site, "the part's description has the [wan] settings '%s', "
                        "the server's '%s' (the gateways of all sites must agree; give every part "
                        "and the server the same description)", j->wan, cfg->wan ? cfg->wan : "");
        return 0;
    }
    if (s->site_conn[site]) {
        rdv_conn_refuse(s, c, j->site, "site '%s' has already joined (from %s)", j->site,
                        s->site_conn[site]->peer);
        return 0;
    }
    uint32_t total = j->nranks;
    for (int i = 0; i < cfg->nsites; i++)
        if (s->site_conn[i])
            total += s->site_conn[i]->j.nranks;
    if (total > RDV_RANKS_MAX) {
        rdv_conn_refuse(s, c, j->site, "with the %u ranks of site '%s' the job would have %u ranks "
                        "(at most %d)", j->nranks, j->site, total, RDV_RANKS_MAX);
        return 0;
    }
    c->site = site;
    c->state = C_WAITING;
    net_pending_remove(&s->acc, &c->pending);
    s->site_conn[site] = c;
    s->joined++;
    if (!s->deadline)
        s->deadline = now + cfg->timeout_ms;
    char missing[1024];
    rdv_srv_missing(s, missing, sizeof missing);
    rdv_srv_log(s, "site %s joined from %s: %u rank%s on %u host%s (%d of %d sites%s%s)", j->site,
                c->peer, j->nranks, j->nranks == 1 ? "" : "s", j->hosts.n,
                j->hosts.n == 1 ? "" : "s", s->joined, cfg->nsites,
                s->joined < cfg->nsites ? "; waiting for " : "", missing);
    if (s->joined == cfg->nsites) {
        rdv_srv_hand_out(s, now);
        return 0;
    }
    const char **miss = malloc((size_t)cfg->nsites * sizeof *miss);
    uint32_t nmiss = 0;
    if (!miss) {
        rdv_conn_drop(s, c);
        return -1;
    }
    for (int i = 0; i < cfg->nsites; i++)
        if (!s->site_conn[i])
            miss[nmiss++] = cfg->sites[i];
    rdv_begin(&c->out, RDV_WAITING);
    rdv_put_u32(&c->out, (uint32_t)(s->deadline - now));
    rdv_put_strs(&c->out, miss, nmiss);
    rdv_end(&c->out, &c->tx);
    free(miss);
    rdv_conn_flush(c);
    return 0;
}
