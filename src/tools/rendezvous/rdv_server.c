#include "rdv_server_conn.h"

#include "net/clock.h"

#include <openssl/crypto.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

static void on_hello(srv_t *s, conn_t *c)
{
    unsigned char out[RDV_VERDICT_LEN];
    const char *bad = rdv_hello_parse(c->in, &s->cfg->key, c->na, c->rx.nc);
    c->inlen = 0;
    if (bad) {
        rdv_srv_drop_note(s, "dropped a connection from %s: %s", c->peer, bad);
        rdv_verdict_encode(out, &s->cfg->key, RDV_VERDICT_BAD_KEY, c->rx.nc, c->na);
        rdv_put_raw(&c->out, out, sizeof out);
        rdv_conn_close_after(s, c, net_now_ms());
        return;
    }
    rdv_verdict_encode(out, &s->cfg->key, RDV_VERDICT_ACCEPT, c->rx.nc, c->na);
    rdv_put_raw(&c->out, out, sizeof out);
    /* the verdict leaves in clear, then the part starts TLS (the server answers: the
     * acceptor of the handshake is the TLS server) */
    unsigned char psk[NET_SECURE_PSK];
    char why[256];
    if (s->cfg->x509) {
        /* which site the certificate must name comes with the JOIN (rdv_srv_on_join) */
        c->sec = net_secure_start_x509(c->fd, 1, NULL, why, sizeof why);
    } else {
        net_secure_psk(&s->cfg->key, "rdv", c->na, c->rx.nc, psk);
        c->sec = net_secure_start(c->fd, 1, psk, why, sizeof why);
        OPENSSL_cleanse(psk, sizeof psk);
    }
    if (!c->sec) {
        rdv_srv_log(s, "dropped the connection from %s: %s", c->peer, why);
        rdv_conn_drop(s, c);
        return;
    }
    c->tls_wants = POLLIN;
    c->rx.key = c->tx.key = s->cfg->key;
    memcpy(c->rx.na, c->na, AUTH_NONCE);
    memcpy(c->tx.na, c->na, AUTH_NONCE);
    memcpy(c->tx.nc, c->rx.nc, AUTH_NONCE);
    c->rx.dir = RDV_FROM_PART;
    c->tx.dir = RDV_FROM_SERVER;
    c->state = C_TLS;
    rdv_conn_flush(c);
}

static int conn_read(srv_t *s, conn_t *c, long long now);

/* One step of c's TLS handshake, once the verdict is out. 0, or -1 when c was dropped. */
static int tls_step(srv_t *s, conn_t *c, long long now)
{
    if (c->out.len) {
        rdv_conn_flush(c);
        if (c->out.len)
            return 0;
    }
    char why[700];
    int rc = net_secure_step(c->sec, &c->tls_wants, why, sizeof why);
    if (rc < 0) {
        rdv_srv_drop_note(s, "dropped a connection from %s: %s", c->peer, why);
        rdv_conn_drop(s, c);
        return -1;
    }
    if (rc == 0)
        return 0;
    c->state = C_JOIN;
    /* the JOIN may have come with the handshake's last message: no poll announces it */
    return conn_read(s, c, now);
}

/* Reads what c sent. Returns 0, or -1 when c was dropped. */
static int conn_read(srv_t *s, conn_t *c, long long now)
{
    if (c->state == C_TLS)
        return tls_step(s, c, now);
    /* before the key is proven, exactly the HELLO; then at most one frame at a time */
    size_t want = c->state == C_HELLO ? RDV_HELLO_LEN - c->inlen
                : c->state == C_CLOSING ? 4096 : RDV_MAX_FRAME + 4 - c->inlen;
    if (c->state == C_CLOSING)
        c->inlen = 0;
    if (c->inlen + want > c->incap) {
        size_t cap = c->inlen + want < 4096 ? 4096 : c->inlen + want;
        unsigned char *p = realloc(c->in, cap);
        if (!p) {
            rdv_conn_drop(s, c);
            return -1;
        }
        c->in = p;
        c->incap = cap;
    }
    struct iovec v = { .iov_base = c->in + c->inlen, .iov_len = want };
    ssize_t n = c->sec ? net_secure_readv(c->sec, &v, 1)
                       : recv(c->fd, v.iov_base, want, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    const char *lost = n == 0 ? "connection closed"
                     : errno == EBADMSG ? net_secure_error(c->sec) : strerror(errno);
    if (n <= 0) {
        if (c->state == C_SERVING) {
            rdv_srv_log(s, "site %s (%s) closed its connection (its part has ended)",
                        s->cfg->sites[c->site], c->peer);
            rdv_srv_part_gone(s, c);
        }
        if (c->state == C_WAITING)
            rdv_srv_log(s, "site %s (%s) left before the job started (%s); it may join again",
                        s->cfg->sites[c->site], c->peer, lost);
        else if (c->state != C_CLOSING && c->state != C_SERVING)   /* serving: logged */
            rdv_srv_drop_note(s, "dropped a connection from %s: %s%s", c->peer,
                              n == 0 ? "it closed before joining" : "before it joined: ",
                              n == 0 ? "" : lost);
        rdv_conn_drop(s, c);
        return -1;
    }
    if (c->state == C_CLOSING)
        return 0; /* read only to see the end */
    c->inlen += (size_t)n;
    if (c->state == C_HELLO) {
        if (c->inlen == RDV_HELLO_LEN)
            on_hello(s, c);
        return 0;
    }
    uint8_t type;
    const unsigned char *body;
    size_t blen, used;
    char err[256], tmp[32];
    int rc = rdv_frame_open(c->in, c->inlen, &c->rx, &type, &body, &blen, &used, err,
                            sizeof err);
    while (rc == RDV_OK && c->state == C_SERVING) {   /* the job runs: every frame read */
        if (rdv_srv_on_frame(s, c, type, body, blen) != 0)
            return -1;
        memmove(c->in, c->in + used, c->inlen - used);
        c->inlen -= used;
        rc = rdv_frame_open(c->in, c->inlen, &c->rx, &type, &body, &blen, &used, err,
                            sizeof err);
    }
    if (rc == RDV_MORE)
        return 0;
    if (rc == RDV_BAD && c->state == C_SERVING) {
        rdv_srv_log(s, "site %s (%s) broke the protocol while the job runs (%s); dropped its "
                    "connection (it can no longer spawn)", s->cfg->sites[c->site], c->peer,
                    err);
        rdv_srv_part_gone(s, c);
        rdv_conn_drop(s, c);
        return -1;
    }
    if (rc == RDV_BAD || c->state != C_JOIN || type != RDV_JOIN) {
        if (rc == RDV_OK)
            snprintf(err, sizeof err, "unexpected %s frame", rdv_type_name(type, tmp,
                                                                           sizeof tmp));
        if (c->state == C_WAITING)
            rdv_srv_log(s, "site %s (%s) broke the protocol (%s); dropped, it may join again",
                        s->cfg->sites[c->site], c->peer, err);
        else
            rdv_srv_drop_note(s, "dropped a connection from %s: %s", c->peer, err);
        rdv_conn_drop(s, c);
        return -1;
    }
    if (rdv_srv_on_join(s, c, body, blen, now) != 0)
        return -1;
    /* anything after the JOIN is a protocol error, seen at the next read */
    memmove(c->in, c->in + used, c->inlen - used);
    c->inlen -= used;
    if (c->inlen && c->state == C_WAITING) {
        rdv_srv_log(s, "site %s (%s) sent more after its JOIN; dropped, it may join again",
                    s->cfg->sites[c->site], c->peer);
        rdv_conn_drop(s, c);
        return -1;
    }
    return 0;
}

/* The acceptor's drops (net/accept.h): the oldest in the handshake when RDV_MAX_PENDING
 * are, or one silent past RDV_JOIN_WAIT_MS. */
static void drop_pending(void *ctx, net_pending_t *p, enum net_drop_why why)
{
    srv_t *s = ctx;
    conn_t *c = p->owner;
    if (why == NET_DROP_EVICTED)
        rdv_srv_drop_note(s, "dropped a connection from %s: %d connections were in the handshake "
                          "and it was the oldest", c->peer, s->acc.n + 1);
    else
        rdv_srv_drop_note(s, "dropped a connection from %s: no valid %s within %d s", c->peer,
                          c->state == C_HELLO ? "HELLO"
                          : c->state == C_TLS ? "TLS handshake" : "JOIN",
                          RDV_JOIN_WAIT_MS / 1000);
    rdv_conn_drop(s, c);
}

static void on_accept(srv_t *s, long long now)
{
    for (;;) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        int fd = net_accept(&s->acc, s->cfg->listen_fd, (struct sockaddr *)&sa, &sl, now);
        if (fd == NET_ACCEPT_WAIT)
            s->accept_at = net_accept_resume_at(&s->acc); /* the rest wait */
        if (fd == NET_ACCEPT_SHED) {
            rdv_srv_drop_note(s, "out of descriptors: closed a connection at once");
            continue;
        }
        if (fd < 0)
            return;
        char peer[NET_ADDR_TEXT];
        net_addr_text((const struct sockaddr *)&sa, peer, sizeof peer);
        conn_t *c = calloc(1, sizeof *c);
        if (!c || (s->n == s->cap &&
                   !(s->c = realloc(s->c, (size_t)(s->cap = 2 * s->cap + 8) * sizeof *s->c)))) {
            free(c);
            close(fd);
            if (!s->c) {
                rdv_srv_log(s, "out of memory");
                abort();
            }
            continue;
        }
        c->fd = fd;
        c->site = -1;
        c->state = C_HELLO;
        snprintf(c->peer, sizeof c->peer, "%s", peer);
        unsigned char ch[RDV_CHALLENGE_LEN];
        if (auth_nonce(c->na) != 0) {
            rdv_srv_log(s, "no randomness for a nonce; dropped the connection from %s", peer);
            rdv_conn_free(c);
            continue;
        }
        rdv_challenge_encode(ch, c->na);
        rdv_put_raw(&c->out, ch, sizeof ch);
        s->c[s->n++] = c;
        net_pending_push(&s->acc, &c->pending, c, now);
        rdv_conn_flush(c);
    }
}

static int on_signal(srv_t *s, long long now)
{
    struct signalfd_siginfo si;
    if (read(s->cfg->signal_fd, &si, sizeof si) != (ssize_t)sizeof si)
        return 0;
    if (s->end == HANDED_OUT) {
        for (int i = s->n - 1; i >= 0; i--)
            if (s->c[i]->state == C_SERVING)
                s->c[i]->state = C_CLOSING;   /* gone without a line per part */
        rdv_srv_log(s, "stopped by signal %u (%s) while job %s runs: its parts can no longer "
                    "spawn", si.ssi_signo, strsignal((int)si.ssi_signo), s->cfg->job);
        return 1;
    }
    if (s->end != RUNNING)
        return 1; /* a second signal: stop flushing */
    char why[128];
    snprintf(why, sizeof why, "the rendezvous server was stopped by signal %u (%s)",
             si.ssi_signo, strsignal((int)si.ssi_signo));
    rdv_srv_call_off(s, now, why);
    return 0;
}

int rdv_server_run(const rdv_server_config_t *cfg)
{
    srv_t s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.acc = (net_acceptor_t){ .max = RDV_MAX_PENDING, .grace_ms = RDV_EVICT_GRACE_MS,
                              .hello_ms = RDV_JOIN_WAIT_MS, .drop = drop_pending, .ctx = &s };
    s.site_conn = calloc((size_t)cfg->nsites, sizeof *s.site_conn);
    if (!s.site_conn)
        return 1;
    struct pollfd *pfd = NULL;
    int stop = 0;
    for (;;) {
        long long now = net_now_ms();
        int timeout = -1;
        if (s.end == RUNNING) {
            net_pending_expire(&s.acc, now); /* the handshakes that took too long */
            if (s.acc.head)
                timeout = (int)(s.acc.head->deadline + 1 - now);
            for (int i = s.n - 1; i >= 0; i--) {
                conn_t *c = s.c[i];
                if (c->state != C_CLOSING)
                    continue;
                long long d = c->t_closing + RDV_FLUSH_WAIT_MS;
                if (now >= d)
                    rdv_conn_drop(&s, c);
                else if (timeout < 0 || d - now < timeout)
                    timeout = (int)(d - now);
            }
            if (s.deadline && now >= s.deadline) {
                char missing[1024], why[1200];
                rdv_srv_missing(&s, missing, sizeof missing);
                snprintf(why, sizeof why, "site%s %s did not join within %lld s",
                         cfg->nsites - s.joined == 1 ? "" : "s", missing,
                         (cfg->timeout_ms + 999) / 1000);
                rdv_srv_call_off(&s, now, why);
            } else if (s.deadline && (timeout < 0 || s.deadline - now < timeout)) {
                timeout = (int)(s.deadline - now);
            }
        }
        int serving = 0;
        for (int i = 0; i < s.n; i++)
            serving |= s.c[i]->state == C_SERVING;
        if (s.end == HANDED_OUT && serving && !stop) {
            /* the parts run: serve them until each has closed its connection */
            for (int i = s.n - 1; i >= 0; i--) {
                conn_t *c = s.c[i];
                long long d = c->t_closing + RDV_FLUSH_WAIT_MS;
                if (c->state == C_CLOSING && now >= d)
                    rdv_conn_drop(&s, c);
                else if (c->state == C_CLOSING && (timeout < 0 || d - now < timeout))
                    timeout = (int)(d - now);
            }
        } else if (s.end != RUNNING) {
            int busy = 0;
            for (int i = 0; i < s.n; i++)
                busy |= !s.c[i]->wrote_eof || s.c[i]->out.len;
            /* every last frame is out: wait briefly for the parts to close (they read it) */
            long long limit = s.t_end + (busy ? RDV_FLUSH_WAIT_MS : RDV_FLUSH_WAIT_MS / 10);
            if (s.n == 0 || stop || now >= limit) {
                while (s.n)
                    rdv_conn_drop(&s, s.c[s.n - 1]);
                break;
            }
            timeout = (int)(limit - now);
        }
        pfd = realloc(pfd, (size_t)(s.n + 2) * sizeof *pfd);
        if (!pfd)
            abort();
        int np = 0;
        int accepting = s.end == RUNNING && now >= s.accept_at;
        if (s.end == RUNNING && !accepting && (timeout < 0 || s.accept_at - now < timeout))
            timeout = (int)(s.accept_at - now);
        pfd[np++] = (struct pollfd){ .fd = accepting ? cfg->listen_fd : -1, .events = POLLIN };
        pfd[np++] = (struct pollfd){ .fd = cfg->signal_fd, .events = POLLIN };
        for (int i = 0; i < s.n; i++) {
            const conn_t *c = s.c[i];
            int out = c->out.len || (c->state == C_TLS && c->tls_wants == POLLOUT);
            pfd[np++] = (struct pollfd){ .fd = c->fd, .events = (short)(POLLIN |
                                                                        (out ? POLLOUT : 0)) };
        }
        int nconn = s.n;
        conn_t **snap = malloc((size_t)(nconn ? nconn : 1) * sizeof *snap);
        if (!snap)
            abort();
        if (nconn)
            memcpy(snap, s.c, (size_t)nconn * sizeof *snap);
        int rc = poll(pfd, (nfds_t)np, timeout);
        now = net_now_ms();
        if (rc > 0) {
            if (pfd[1].revents & POLLIN)
                stop |= on_signal(&s, now);
            /* connections may be dropped while handling others: only those still listed */
            for (int i = 0; i < nconn; i++) {
                conn_t *c = snap[i];
                short re = pfd[2 + i].revents;
                int alive = 0;
                for (int k = 0; k < s.n && !alive; k++)
                    alive = s.c[k] == c;
                if (!alive || !re)
                    continue;
                if (re & POLLOUT)
                    rdv_conn_flush(c);
                if ((re & (POLLIN | POLLHUP | POLLERR)) ||
                    (c->state == C_TLS && (re & POLLOUT)))
                    conn_read(&s, c, now);
            }
            if (s.end == RUNNING && (pfd[0].revents & POLLIN))
                on_accept(&s, now);
        }
        free(snap);
    }
    free(pfd);
    rdv_srv_serve_free(&s);
    free(s.c);
    free(s.site_conn);
    return s.end == HANDED_OUT && !s.undelivered ? 0 : 1;
}
