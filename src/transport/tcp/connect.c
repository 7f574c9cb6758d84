/*
 * Our connections: opened on the first frame to a peer (its card read then, its addresses
 * tried in card order), authenticated as the connector of the handshake (wire.h), retried
 * whenever the acceptor closes an attempt before its WELCOME.
 *
 * Retries: the acceptor drops connections that do not prove the key in time (we may have been
 * away computing) and evicts the oldest ones in a flood, so a new attempt follows, later and
 * later (net/retry.h). Only attempts closed at once, in a row, for the whole give-up time
 * mean a listener that will not take us (another job's, or one with another key). Frames are
 * sent only after the WELCOME, so nothing is lost or doubled by a retry.
 */
#include "transport/tcp/tcp_int.h"
#include "transport/tcp/wire.h"

#include "net/clock.h"
#include "net/liveness.h"
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* The peer timeout, or 60 s where it is off: how long attempts closed at once may go on. */
static long long give_up_ms(void)
{
    return (long long)(tcp_g.timeout_s > 0 ? tcp_g.timeout_s : LIVENESS_DEFAULT_S) * 1000;
}

int tcp_fetch_card(int r, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[r];
    if (p->have_card)
        return 0;
    char key[32], val[TCP_CARD_LEN];
    snprintf(key, sizeof key, "tcp.%d", r);
    int rc = tcp_g.kv_get_peer ? tcp_g.kv_get_peer(r, "tcp", val, sizeof val, err, errlen)
                               : tcp_g.kv_get(key, val, sizeof val, err, errlen);
    if (rc != 0) {
        if (rc > 0)
            snprintf(err, (size_t)errlen, "rank %d published no TCP address", r);
        return -1;
    }
    const char *bad = tcp_card_parse(val, &p->card);
    if (bad) {
        snprintf(err, (size_t)errlen, "rank %d published a bad TCP address \"%s\": %s", r, val,
                 bad);
        return -1;
    }
    tcp_card_order(&p->card, tcp_g.local, tcp_g.nlocal);
    p->have_card = 1;
    return 0;
}

/* Starts connecting c to the card's addresses from c->addr_i on. 0, or -1 when none is
 * left (message in err). */
static int try_connect(tcp_conn_t *c, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[c->peer];
    int last_errno = 0;
    for (; c->addr_i < p->card.naddr; c->addr_i++) {
        const tcp_addr_t *a = &p->card.addr[c->addr_i];
        c->remote = a->a;
        int fd = net_socket_for(&a->a, 0);
        while (fd < 0 && (errno == EMFILE || errno == ENFILE) &&
               net_pending_evict_oldest(&tcp_g.acc))
            fd = net_socket_for(&a->a, 0);
        if (fd < 0 || tcp_socket_options(fd) != 0) {
            last_errno = errno;
            if (fd >= 0)
                close(fd);
            continue;
        }
        int rc = connect(fd, &c->remote.u.sa, c->remote.len);
        if (rc != 0 && errno != EINPROGRESS) {
            last_errno = errno;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->state = rc == 0 ? C_WAIT_CHALLENGE : C_CONNECTING;
        c->t_start = net_now_ms();
        c->hs = (net_hs_io_t){ 0 };
        if (tcp_conn_add(c, rc == 0 ? EPOLLIN : EPOLLOUT) != 0) {
            last_errno = errno;
            close(fd);
            c->fd = -1;
            continue;
        }
        return 0;
    }
    char list[TCP_CARD_LEN] = "";
    for (int i = 0; i < p->card.naddr; i++) {
        char one[NET_ADDR_TEXT];
        net_addr_format(&p->card.addr[i].a, one, sizeof one);
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", one);
    }
    snprintf(err, (size_t)errlen, "cannot connect to rank %d (host %s) at %s: %s", c->peer,
             p->card.host, list, last_errno ? strerror(last_errno) : "no address");
    return -1;
}

static int start_connect(int r, char *err, int errlen)
{
    if (tcp_fetch_card(r, err, errlen) != 0)
        return -1;
    tcp_conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, (size_t)errlen, "out of memory for a TCP connection");
        return -1;
    }
    c->fd = -1;
    c->peer = r;
    c->retry = (net_retry_t){ .min_ms = TCP_RETRY_MIN_MS, .max_ms = TCP_RETRY_MAX_MS };
    if (try_connect(c, err, errlen) != 0) {
        free(c);
        return -1;
    }
    tcp_g.peers[r].c = c;
    return 0;
}

int tcp_ensure_connection(int r, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[r];
    if (p->c || p->lost_race)
        return 0;
    if (p->closed) {
        snprintf(err, (size_t)errlen, "rank %d (host %s) has already closed its connections",
                 r, tcp_peer_host(r));
        return -1;
    }
    return start_connect(r, err, errlen);
}

void tcp_retry_unlink(tcp_conn_t *c)
{
    for (tcp_conn_t **q = &tcp_g.retrying; *q; q = &(*q)->next)
        if (*q == c) {
            *q = c->next;
            return;
        }
}

/* Our attempt was closed before the WELCOME: a new one later, or (refused for good) -1 with
 * the message in err. */
static int retry_later(tcp_conn_t *c, const char *why, char *err, int errlen)
{
    long long t = net_now_ms();
    if (t - c->t_start >= give_up_ms())
        net_retry_reset(&c->retry); /* it lived long enough: it was not refusing us */
    long long wait = net_retry_failed(&c->retry, t);
    if (c->retry.fails >= TCP_RETRY_GIVE_UP_MIN && t - c->retry.since >= give_up_ms()) {
        char a[NET_ADDR_TEXT];
        net_addr_format(&c->remote, a, sizeof a);
        snprintf(err, (size_t)errlen, "cannot open a connection to rank %d (host %s) at %s: "
                 "%d attempts in %d s ended in the handshake (%s; does it have the same job "
                 "key?)", c->peer, tcp_g.peers[c->peer].card.host, a, c->retry.fails,
                 (int)((t - c->retry.since) / 1000), why);
        return -1;
    }
    tcp_conn_drop_fd(c);
    tcp_g.freed++; /* epoll events may still name c with its old state */
    c->state = C_RETRY;
    c->retry_at = t + wait;
    c->next = tcp_g.retrying;
    tcp_g.retrying = c;
    return 1;
}

int tcp_connector_tls_closed(tcp_conn_t *c, const char *why, char *err, int errlen)
{
    tcp_peer_tls_reset(&tcp_g.peers[c->peer]);
    return retry_later(c, why, err, errlen);
}

int tcp_retry_due(char *err, int errlen)
{
    long long t = net_now_ms();
    int any = 0;
    for (tcp_conn_t *c = tcp_g.retrying, *next; c; c = next) {
        next = c->next;
        if (t < c->retry_at)
            continue;
        tcp_retry_unlink(c);
        c->addr_i = 0;
        if (try_connect(c, err, errlen) != 0)
            return -1;
        any = 1;
    }
    return any;
}

int tcp_connector_event(tcp_conn_t *c, uint32_t ev, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[c->peer];
    if (c->state == C_RETRY)
        return 0;
    if (c->state == C_CONNECTING) {
        if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return 0;
        int soerr = 0;
        socklen_t l = sizeof soerr;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (soerr) {
            tcp_conn_drop_fd(c);
            c->addr_i++;
            return try_connect(c, err, errlen) == 0 ? 1 : -1;
        }
        c->state = C_WAIT_CHALLENGE;
        tcp_set_events(c, EPOLLIN);
    }
    const char *bad = NULL;
    if (c->state == C_WAIT_CHALLENGE) {
        int rc = net_hs_read(&c->hs, c->fd, TCP_CHALLENGE_LEN);
        if (rc == 0)
            return 0;
        if (rc < 0)
            goto closed;
        if ((bad = tcp_challenge_parse(c->hs.in, c->na)) != NULL)
            goto failed;
        if (auth_nonce(c->nc) != 0) {
            bad = "no randomness for a nonce";
            goto failed;
        }
        unsigned char hello[TCP_HELLO_LEN];
        tcp_hello_encode(hello, &tcp_g.key, (uint32_t)tcp_id(tcp_g.rank),
                         (uint32_t)tcp_g.part_size, c->na, c->nc);
        c->hs.got = 0;
        c->state = C_WAIT_WELCOME;
        if (net_hs_send(&c->hs, c->fd, hello, sizeof hello) < 0) {
            c->hs.last_errno = errno;
            goto closed;
        }
    }
    if (c->state == C_WAIT_WELCOME) {
        if (net_hs_sending(&c->hs) && net_hs_flush(&c->hs, c->fd) < 0) {
            c->hs.last_errno = errno;
            goto closed;
        }
        int rc = net_hs_read(&c->hs, c->fd, TCP_WELCOME_LEN);
        if (rc == 0)
            return 0;
        if (rc < 0)
            goto closed;
        tcp_welcome_t w;
        if ((bad = tcp_welcome_parse(c->hs.in, &tcp_g.key, c->nc, c->na,
                                     (uint32_t)tcp_id(c->peer), &w)) != NULL)
            goto failed;
        if (w.verdict == TCP_VERDICT_DUPLICATE) { /* the peer's own connection wins */
            if (p->c == c) {
                p->c = NULL;
                p->lost_race = 1;
            }
            tcp_conn_free(c);
            return 1;
        }
        c->hs.out_len = c->hs.out_off = 0;
        return tcp_peer_up(p, c, 0, err, errlen) == 0 ? 1 : -1;
    }
    return 0;
closed:
    /* closed by the acceptor (end of stream, a reset): try again; the kernel gave up on the
     * peer (a timeout, no route): a failure */
    if (c->hs.last_errno == 0 || c->hs.last_errno == ECONNRESET || c->hs.last_errno == EPIPE)
        return retry_later(c, c->hs.last_errno ? strerror(c->hs.last_errno)
                                               : "closed by the peer", err, errlen);
    if (c->hs.last_errno == ETIMEDOUT) {
        tcp_lost_text(err, errlen, c->peer, ETIMEDOUT);
        return -1;
    }
    bad = strerror(c->hs.last_errno);
failed:;
    char a[NET_ADDR_TEXT];
    net_addr_format(&c->remote, a, sizeof a);
    snprintf(err, (size_t)errlen, "cannot open a connection to rank %d (host %s) at %s: %s",
             c->peer, p->card.host, a, bad);
    return -1;
}
