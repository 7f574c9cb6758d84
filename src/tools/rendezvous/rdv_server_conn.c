/* The rendezvous server's connections: their output (flushed as the socket takes it, through
 * TLS once it is up), their end, and the log lines (rdv_server_conn.h). */
#include "rdv_server_conn.h"

#include "net/clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

void rdv_srv_log(srv_t *s, const char *fmt, ...)
{
    if (!s->cfg->log)
        return;
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    s->cfg->log(s->cfg->log_ctx, text);
}

/* A "dropped a connection" line, unless this minute had RDV_NOTES_MAX of them already (a
 * flood must not flood the log); those held back are counted in one line later. */
void rdv_srv_drop_note(srv_t *s, const char *fmt, ...)
{
    int held;
    int may = net_notes_take(&s->notes, net_now_ms(), &held);
    if (held)
        rdv_srv_log(s, "dropped %d more connections in the last minute (no valid HELLO or "
                    "JOIN, or too many in the handshake)", held);
    if (!may)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    rdv_srv_log(s, "%s", text);
}

/* ---- connections ------------------------------------------------------------------------ */

void rdv_conn_free(conn_t *c)
{
    net_secure_free(c->sec);
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->join);
    rdv_buf_free(&c->out);
    free(c);
}

/* Forgets c; a joined part's site is missing again. */
void rdv_conn_drop(srv_t *s, conn_t *c)
{
    if (s->end == HANDED_OUT && c->site >= 0 && !c->delivered) {
        rdv_srv_log(s, "site %s (%s): the layout could not be delivered", s->cfg->sites[c->site],
                    c->peer);
        s->undelivered = 1;
    }
    if (c->site >= 0 && s->site_conn[c->site] == c) {
        s->site_conn[c->site] = NULL;
        s->joined--;
    }
    net_pending_remove(&s->acc, &c->pending);
    for (int i = 0; i < s->n; i++)
        if (s->c[i] == c) {
            s->c[i] = s->c[--s->n];
            break;
        }
    rdv_conn_free(c);
}

void rdv_conn_flush(conn_t *c)
{
    while (c->outoff < c->out.len) {
        struct iovec v = { .iov_base = c->out.p + c->outoff, .iov_len = c->out.len - c->outoff };
        /* through TLS once it is up: a write that found the socket full offers the same
         * bytes again (they stay at outoff) */
        ssize_t n = c->sec && c->state != C_TLS
                        ? net_secure_writev(c->sec, &v, 1)
                        : send(c->fd, v.iov_base, v.iov_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->outoff += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else { /* the peer is gone: nothing more can reach it */
            c->outoff = c->out.len = 0;
            c->wrote_eof = c->broken = 1;
            return;
        }
    }
    c->outoff = c->out.len = 0;
    if (c->state == C_SERVING)
        c->delivered = 1;
    if (c->state == C_CLOSING && !c->wrote_eof) {
        shutdown(c->fd, SHUT_WR);
        c->wrote_eof = 1;
    }
}

/* The last frame to c: written as far as it goes now, then the output is shut down and the
 * connection kept until the peer closes (so that no reset can overtake the frame). */
void rdv_conn_close_after(srv_t *s, conn_t *c, long long now)
{
    net_pending_remove(&s->acc, &c->pending);
    c->state = C_CLOSING;
    c->t_closing = now;
    rdv_conn_flush(c);
}

void rdv_conn_send_text(conn_t *c, uint8_t type, const char *text)
{
    rdv_begin(&c->out, type);
    rdv_put_str(&c->out, text);
    rdv_end(&c->out, &c->tx);
}

void rdv_conn_refuse(srv_t *s, conn_t *c, const char *site, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    rdv_srv_log(s, "refused %s%s%sfrom %s: %s", site ? "site " : "", site ? site : "",
                site ? " " : "", c->peer, why);
    rdv_conn_send_text(c, RDV_REFUSED, why);
    rdv_conn_close_after(s, c, net_now_ms());
}
