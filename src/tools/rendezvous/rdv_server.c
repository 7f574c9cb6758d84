#include "rdv_server.h"

#include "rdv_wire.h"

#include "net/accept.h"
#include "net/clock.h"
#include "net/notes.h"
#include "net/secure.h"
#include "net/sock.h"

#include <openssl/crypto.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* C_TLS: the key is proven (VERDICT ACCEPT sent in clear); TLS is being set up, and from
 * then on every byte both ways goes through c->sec (docs/wan-security.md). */
typedef enum { C_HELLO, C_TLS, C_JOIN, C_WAITING, C_CLOSING } cstate_t;

typedef struct conn {
    int fd;
    cstate_t state;
    char peer[NET_ADDR_TEXT]; /* "address:port", for the log */
    net_pending_t pending;    /* HELLO, TLS and JOIN: in the handshake */
    net_secure_t *sec;        /* from C_TLS on */
    short tls_wants;          /* C_TLS: what the TLS handshake waits for */
    unsigned char na[AUTH_NONCE];
    rdv_mac_ctx_t rx, tx;
    unsigned char *in;
    size_t inlen, incap;
    rdv_buf_t out;
    size_t outoff;
    int wrote_eof;            /* CLOSING: the output is flushed and shut down */
    int broken;               /* a write failed: the peer did not get everything */
    long long t_closing;      /* when it entered CLOSING */
    int site;                 /* the site it joined, -1 */
    unsigned char *join;      /* its JOIN body; j points into it */
    size_t joinlen;
    rdv_join_t j;
} conn_t;

typedef struct srv {
    const rdv_server_config_t *cfg;
    conn_t **c;
    int n, cap;
    conn_t **site_conn;       /* per site of the description: the part that joined */
    int joined;
    long long deadline;       /* 0 until the first JOIN */
    enum { RUNNING, HANDED_OUT, CALLED_OFF } end;
    long long t_end;
    int undelivered;          /* a LAYOUT could not be written */
    long long accept_at;      /* the listener is not read before (the handshakes are full) */
    net_acceptor_t acc;       /* the connections in the handshake (HELLO, JOIN) */
    net_notes_t notes;        /* "dropped" lines */
} srv_t;

static void logf_(srv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(srv_t *s, const char *fmt, ...)
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
static void drop_note(srv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void drop_note(srv_t *s, const char *fmt, ...)
{
    int held;
    int may = net_notes_take(&s->notes, net_now_ms(), &held);
    if (held)
        logf_(s, "dropped %d more connections in the last minute (no valid HELLO or "
              "JOIN, or too many in the handshake)", held);
    if (!may)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    logf_(s, "%s", text);
}

/* "a, b and c" of the sites not joined yet (the text is cut when very long). */
static void missing_list(const srv_t *s, char *buf, size_t cap)
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

/* ---- connections ------------------------------------------------------------------------ */

static void conn_free(conn_t *c)
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
static void conn_drop(srv_t *s, conn_t *c)
{
    if (s->end == HANDED_OUT && c->site >= 0 && (c->broken || c->out.len)) {
        logf_(s, "site %s (%s): the layout could not be delivered", s->cfg->sites[c->site],
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
    conn_free(c);
}

static void conn_flush(conn_t *c)
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
    if (c->state == C_CLOSING && !c->wrote_eof) {
        shutdown(c->fd, SHUT_WR);
        c->wrote_eof = 1;
    }
}

/* The last frame to c: written as far as it goes now, then the output is shut down and the
 * connection kept until the peer closes (so that no reset can overtake the frame). */
static void conn_close_after(srv_t *s, conn_t *c, long long now)
{
    net_pending_remove(&s->acc, &c->pending);
    c->state = C_CLOSING;
    c->t_closing = now;
    conn_flush(c);
}

static void send_text(conn_t *c, uint8_t type, const char *text)
{
    rdv_begin(&c->out, type);
    rdv_put_str(&c->out, text);
    rdv_end(&c->out, &c->tx);
}

static void refuse(srv_t *s, conn_t *c, const char *site, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(srv_t *s, conn_t *c, const char *site, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    logf_(s, "refused %s%s%sfrom %s: %s", site ? "site " : "", site ? site : "",
          site ? " " : "", c->peer, why);
    send_text(c, RDV_REFUSED, why);
    conn_close_after(s, c, net_now_ms());
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
static void hand_out(srv_t *s, long long now)
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
    logf_(s, "all %d site%s joined: job %s starts with %u ranks (%s)", cfg->nsites,
          cfg->nsites == 1 ? "" : "s", cfg->job, first, text);
    for (int i = s->n - 1; i >= 0; i--) {
        conn_t *c = s->c[i];
        if (c->state == C_WAITING) {
            send_layout(s, c);
            conn_close_after(s, c, now);
        } else if (c->state != C_CLOSING) {
            conn_drop(s, c);
        }
    }
    s->end = HANDED_OUT;
    s->t_end = now;
}

/* The job will not start: every waiting part is told why. */
static void call_off(srv_t *s, long long now, const char *why)
{
    logf_(s, "%s; job %s is called off", why, s->cfg->job);
    for (int i = s->n - 1; i >= 0; i--) {
        conn_t *c = s->c[i];
        if (c->state == C_WAITING) {
            send_text(c, RDV_ABORT, why);
            conn_close_after(s, c, now);
        } else if (c->state != C_CLOSING) {
            conn_drop(s, c);
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
static int on_join(srv_t *s, conn_t *c, const unsigned char *body, size_t len, long long now)
{
    const rdv_server_config_t *cfg = s->cfg;
    char err[512];
    c->join = malloc(len ? len : 1);
    if (!c->join) {
        logf_(s, "out of memory for a JOIN from %s; dropped", c->peer);
        conn_drop(s, c);
        return -1;
    }
    memcpy(c->join, body, len);
    c->joinlen = len;
    rdv_join_t *j = &c->j;
    if (rdv_join_parse(c->join, len, j, err, sizeof err) != 0) {
        refuse(s, c, NULL, "invalid JOIN: %s", err);
        return 0;
    }
    if (strcmp(j->job, cfg->job) != 0) {
        refuse(s, c, j->site, "this rendezvous server is for job '%s', not '%s'", cfg->job,
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
            refuse(s, c, j->site, "site '%s' is not in the server's description (sites %s)",
                   j->site, ours);
        else
            refuse(s, c, j->site, "the part's description has the sites %s, the server's "
                   "has %s (give every part and the server the same description)", theirs,
                   ours);
        return 0;
    }
    if (strcmp(j->wan, cfg->wan ? cfg->wan : "") != 0) {
        refuse(s, c, j->site, "the part's description has the [wan] settings '%s', the "
               "server's '%s' (the gateways of all sites must agree; give every part and the "
               "server the same description)", j->wan, cfg->wan ? cfg->wan : "");
        return 0;
    }
    if (s->site_conn[site]) {
        refuse(s, c, j->site, "site '%s' has already joined (from %s)", j->site,
               s->site_conn[site]->peer);
        return 0;
    }
    uint32_t total = j->nranks;
    for (int i = 0; i < cfg->nsites; i++)
        if (s->site_conn[i])
            total += s->site_conn[i]->j.nranks;
    if (total > RDV_RANKS_MAX) {
        refuse(s, c, j->site, "with the %u ranks of site '%s' the job would have %u ranks "
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
    missing_list(s, missing, sizeof missing);
    logf_(s, "site %s joined from %s: %u rank%s on %u host%s (%d of %d sites%s%s)", j->site,
          c->peer, j->nranks, j->nranks == 1 ? "" : "s", j->hosts.n,
          j->hosts.n == 1 ? "" : "s", s->joined, cfg->nsites,
          s->joined < cfg->nsites ? "; waiting for " : "", missing);
    if (s->joined == cfg->nsites) {
        hand_out(s, now);
        return 0;
    }
    const char **miss = malloc((size_t)cfg->nsites * sizeof *miss);
    uint32_t nmiss = 0;
    if (!miss) {
        conn_drop(s, c);
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
    conn_flush(c);
    return 0;
}

static void on_hello(srv_t *s, conn_t *c)
{
    unsigned char out[RDV_VERDICT_LEN];
    const char *bad = rdv_hello_parse(c->in, &s->cfg->key, c->na, c->rx.nc);
    c->inlen = 0;
    if (bad) {
        drop_note(s, "dropped a connection from %s: %s", c->peer, bad);
        rdv_verdict_encode(out, &s->cfg->key, RDV_VERDICT_BAD_KEY, c->rx.nc, c->na);
        rdv_put_raw(&c->out, out, sizeof out);
        conn_close_after(s, c, net_now_ms());
        return;
    }
    rdv_verdict_encode(out, &s->cfg->key, RDV_VERDICT_ACCEPT, c->rx.nc, c->na);
    rdv_put_raw(&c->out, out, sizeof out);
    /* the verdict leaves in clear, then the part starts TLS (the server answers: the
     * acceptor of the handshake is the TLS server) */
    unsigned char psk[NET_SECURE_PSK];
    char why[256];
    net_secure_psk(&s->cfg->key, "rdv", c->na, c->rx.nc, psk);
    c->sec = net_secure_start(c->fd, 1, psk, why, sizeof why);
    OPENSSL_cleanse(psk, sizeof psk);
    if (!c->sec) {
        logf_(s, "dropped the connection from %s: %s", c->peer, why);
        conn_drop(s, c);
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
    conn_flush(c);
}

static int conn_read(srv_t *s, conn_t *c, long long now);

/* One step of c's TLS handshake, once the verdict is out. 0, or -1 when c was dropped. */
static int tls_step(srv_t *s, conn_t *c, long long now)
{
    if (c->out.len) {
        conn_flush(c);
        if (c->out.len)
            return 0;
    }
    char why[256];
    int rc = net_secure_step(c->sec, &c->tls_wants, why, sizeof why);
    if (rc < 0) {
        drop_note(s, "dropped a connection from %s: %s", c->peer, why);
        conn_drop(s, c);
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
            conn_drop(s, c);
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
        if (c->state == C_WAITING)
            logf_(s, "site %s (%s) left before the job started (%s); it may join again",
                  s->cfg->sites[c->site], c->peer, lost);
        else if (c->state != C_CLOSING)
            drop_note(s, "dropped a connection from %s: %s%s", c->peer,
                      n == 0 ? "it closed before joining" : "before it joined: ",
                      n == 0 ? "" : lost);
        conn_drop(s, c);
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
    if (rc == RDV_MORE)
        return 0;
    if (rc == RDV_BAD || c->state != C_JOIN || type != RDV_JOIN) {
        if (rc == RDV_OK)
            snprintf(err, sizeof err, "unexpected %s frame", rdv_type_name(type, tmp,
                                                                           sizeof tmp));
        if (c->state == C_WAITING)
            logf_(s, "site %s (%s) broke the protocol (%s); dropped, it may join again",
                  s->cfg->sites[c->site], c->peer, err);
        else
            drop_note(s, "dropped a connection from %s: %s", c->peer, err);
        conn_drop(s, c);
        return -1;
    }
    if (on_join(s, c, body, blen, now) != 0)
        return -1;
    /* anything after the JOIN is a protocol error, seen at the next read */
    memmove(c->in, c->in + used, c->inlen - used);
    c->inlen -= used;
    if (c->inlen && c->state == C_WAITING) {
        logf_(s, "site %s (%s) sent more after its JOIN; dropped, it may join again",
              s->cfg->sites[c->site], c->peer);
        conn_drop(s, c);
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
        drop_note(s, "dropped a connection from %s: %d connections were in the handshake "
                  "and it was the oldest", c->peer, s->acc.n + 1);
    else
        drop_note(s, "dropped a connection from %s: no valid %s within %d s", c->peer,
                  c->state == C_HELLO ? "HELLO" : c->state == C_TLS ? "TLS handshake" : "JOIN",
                  RDV_JOIN_WAIT_MS / 1000);
    conn_drop(s, c);
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
            drop_note(s, "out of descriptors: closed a connection at once");
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
                logf_(s, "out of memory");
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
            logf_(s, "no randomness for a nonce; dropped the connection from %s", peer);
            conn_free(c);
            continue;
        }
        rdv_challenge_encode(ch, c->na);
        rdv_put_raw(&c->out, ch, sizeof ch);
        s->c[s->n++] = c;
        net_pending_push(&s->acc, &c->pending, c, now);
        conn_flush(c);
    }
}

static int on_signal(srv_t *s, long long now)
{
    struct signalfd_siginfo si;
    if (read(s->cfg->signal_fd, &si, sizeof si) != (ssize_t)sizeof si)
        return 0;
    if (s->end != RUNNING)
        return 1; /* a second signal: stop flushing */
    char why[128];
    snprintf(why, sizeof why, "the rendezvous server was stopped by signal %u (%s)",
             si.ssi_signo, strsignal((int)si.ssi_signo));
    call_off(s, now, why);
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
                    conn_drop(&s, c);
                else if (timeout < 0 || d - now < timeout)
                    timeout = (int)(d - now);
            }
            if (s.deadline && now >= s.deadline) {
                char missing[1024], why[1200];
                missing_list(&s, missing, sizeof missing);
                snprintf(why, sizeof why, "site%s %s did not join within %lld s",
                         cfg->nsites - s.joined == 1 ? "" : "s", missing,
                         (cfg->timeout_ms + 999) / 1000);
                call_off(&s, now, why);
            } else if (s.deadline && (timeout < 0 || s.deadline - now < timeout)) {
                timeout = (int)(s.deadline - now);
            }
        }
        if (s.end != RUNNING) {
            int busy = 0;
            for (int i = 0; i < s.n; i++)
                busy |= !s.c[i]->wrote_eof || s.c[i]->out.len;
            /* every last frame is out: wait briefly for the parts to close (they read it) */
            long long limit = s.t_end + (busy ? RDV_FLUSH_WAIT_MS : RDV_FLUSH_WAIT_MS / 10);
            if (s.n == 0 || stop || now >= limit) {
                while (s.n)
                    conn_drop(&s, s.c[s.n - 1]);
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
                    conn_flush(c);
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
    free(s.c);
    free(s.site_conn);
    return s.end == HANDED_OUT && !s.undelivered ? 0 : 1;
}
