/*
 * A WAN link whose streams break (link.h, "Reconnection", has the frames' side): a reset, an
 * error, a failed integrity check, a TLS handshake that fails, or a stream silent for the link
 * timeout. The gateway then closes every stream of the link with a reset and the higher site
 * (the one that dialled) dials all of them again, in a new generation, with backoff
 * (handshake.c); the other gateway, which may not have noticed yet (a route that is gone
 * carries no reset), replaces the streams of the older generation with the first stream of
 * the newer (gwd_link_generation: the HELLO proves the key, so only a gateway of the job can
 * do that). Each stream's handshake, TLS and RESUME run again, and the link goes on where it
 * stopped, in order, once the other gateway's first RESUME is in.
 *
 * The job ends instead, with one line naming both sites and the cause:
 *   - when the link has brought nothing for [wan] outage (--outage) since the last frame the
 *     other gateway sent (0: at the first break, as before reconnections existed);
 *   - at once, when a stream ends without BYE (a clean end of stream is a gateway that died:
 *     a break here is a reset), or a reconnection is refused (handshake.c);
 *   - at once, when the link breaks before it was ever up (the start's failures stay final).
 * A link whose other gateway said BYE, or a gateway that is ending, closes a failed stream
 * quietly: the job is ending.
 */
#include "gateway_int.h"

#include "net/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void gwd_close_reset(int fd)
{
    struct linger lg = { .l_onoff = 1, .l_linger = 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
}

/* At most NET_NOTES_MAX lines a minute about broken and resumed links (a link that flaps
 * must not flood the log). */
static void link_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void link_note(const char *fmt, ...)
{
    int held;
    int may = net_notes_take(&gwd.link_notes, net_now_ms(), &held);
    if (held)
        gwd_note("%d more lines about broken WAN links in the last %d s", held,
                 NET_NOTES_WINDOW_MS / 1000);
    if (!may)
        return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gwd_note("%s", line);
}

static int peer_said_bye(const gw_link_t *l)
{
    for (int i = 0; i < l->nst; i++)
        if (l->st[i].bye_in)
            return 1;
    return 0;
}

static void break_link(int site, const char *why)
{
    lconn_t *c = &gwd.conn[site];
    gw_link_t *l = &gwd.links[site];
    if (gwd.c->outage_ms == 0)
        gwd_fail("%s failed: %s", gwd_link_text(site), why);
    for (int i = 0; i < l->nst; i++)
        if (l->st[i].fd >= 0) {
            ev_unwatch(&gwd.loop, l->st[i].fd);
            gwd_close_reset(l->st[i].fd);
        }
    if (gw_link_break(l) != 0)
        gwd_fail("out of memory for %s", gwd_link_text(site));
    if (!c->down) {
        c->down = 1;
        c->down_at = net_now_ms();
        snprintf(c->cause, sizeof c->cause, "%s", why);
        c->last[0] = '\0';
        link_note("%s broke (%s); opening it again (the job ends if it stays down for %g s)",
                  gwd_link_text(site), why, gwd.c->outage_ms / 1000.0);
    } else {
        snprintf(c->last, sizeof c->last, "%s", why);
    }
    if (gwd_dials(site)) {
        c->gen++;
        gwd_redial(site);
    }
}

void gwd_link_lost(int site, int i, const char *why)
{
    gw_link_t *l = &gwd.links[site];
    if (gwd.ending)
        return;
    if (peer_said_bye(l)) {
        gw_stream_t *s = &l->st[i];
        if (s->fd >= 0) {
            ev_unwatch(&gwd.loop, s->fd);
            close(s->fd);
            s->fd = -1;
        }
        s->bye_in = 1;
        return;
    }
    if (!gwd.conn[site].opened)
        gwd_fail("%s failed: %s", gwd_link_text(site), why);
    break_link(site, why);
}

void gwd_attempt_failed(int site, const char *why)
{
    snprintf(gwd.conn[site].last, sizeof gwd.conn[site].last, "%s", why);
}

int gwd_link_generation(int site, uint32_t gen)
{
    lconn_t *c = &gwd.conn[site];
    int16_t newer = (int16_t)(uint16_t)(gen - c->gen);
    if (newer < 0)
        return 0;
    if (newer == 0)
        return 1;
    c->gen = gen & 0xffff;
    const gw_link_t *l = &gwd.links[site];
    int open = 0;
    for (int i = 0; i < l->nst; i++)
        open |= l->st[i].fd >= 0;
    if (open || (c->opened && !c->down))
        break_link(site, "its gateway opened it again (the streams had broken at its end)");
    return 1;
}

void gwd_links_after_pass(long long t)
{
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        lconn_t *c = &gwd.conn[s];
        gw_link_t *l = &gwd.links[s];
        if (gw_link_resumed(l)) {
            c->alive_at = t;
            if (c->down)
                link_note("%s is up again after %.1f s (%llu frames sent again in all)",
                          gwd_link_text(s), (double)(t - c->down_at) / 1000,
                          (unsigned long long)l->resent);
            c->down = 0;
            c->opened = 1;
        }
        if (c->down && t - c->alive_at > gwd.c->outage_ms)
            gwd_fail("%s failed: nothing came from its gateway for %.1f s, longer than [wan] "
                     "outage (%g s): it broke (%s)%s%s", gwd_link_text(s),
                     (double)(t - c->alive_at) / 1000, gwd.c->outage_ms / 1000.0, c->cause,
                     c->last[0] ? "; the last attempt to open it again: " : "", c->last);
    }
}
