/*
 * The peers' connections: accepted under the flood defences of net/accept.h (at most
 * TCP_PENDING_MAX unproven at once, the oldest evicted after TCP_EVICT_GRACE_MS, each must
 * prove the key within TCP_HELLO_TIMEOUT_MS of this rank's time in MPI, out of descriptors a
 * connection is shed, never fatal), authenticated as the acceptor of the handshake (wire.h).
 * A proven connection from another site must begin TLS (its ClientHello) within as long
 * after the WELCOME, or it is closed quietly (tcp_expire_securing; tcp_int.h says why only
 * then).
 *
 * A HELLO that does not prove the job key, or claims a rank of this host (which would reach
 * us through shared memory), is dropped with a line on stderr (at most NET_NOTES_MAX a
 * minute), without disturbing the job; a connection dropped for its silence or in a flood is
 * not worth a line. When two ranks connect to each other at once, the connection opened by the
 * lower rank wins: the acceptor of the other answers DUPLICATE.
 */
#include "transport/tcp/tcp_int.h"
#include "transport/tcp/wire.h"

#include "net/clock.h"
#include "net/sock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static void summary(int held)
{
    if (held)
        fprintf(stderr, "metampi: rank %d (host %s): dropped %d more TCP connections in the "
                "last %d s (no valid hello, or no descriptor for them)\n", tcp_g.rank,
                tcp_g.hostname, held, NET_NOTES_WINDOW_MS / 1000);
}

void tcp_notes_roll(long long now)
{
    summary(net_notes_roll(&tcp_g.notes, now));
}

/* One line on stderr, rate-limited (net/notes.h). */
static void note(const char *line)
{
    int held;
    int may = net_notes_take(&tcp_g.notes, net_now_ms(), &held);
    summary(held);
    if (may)
        fprintf(stderr, "metampi: rank %d (host %s): %s\n", tcp_g.rank, tcp_g.hostname, line);
}

/* An accepted connection that has not said anything yet: a peer that computes outside MPI,
 * whose connector will open a new one, or a flood's. Not worth a line. */
static void drop_quietly(void *ctx, net_pending_t *p, enum net_drop_why why)
{
    (void)ctx;
    (void)why;
    tcp_conn_free(p->owner);
}

static void forget(tcp_conn_t *c)
{
    net_pending_remove(&tcp_g.acc, &c->pending);
    tcp_conn_free(c);
}

/* An accepted connection that did not prove the key; the job goes on. */
static void drop(tcp_conn_t *c, const char *why)
{
    char a[NET_ADDR_TEXT];
    net_addr_format(&c->remote, a, sizeof a);
    char line[NET_ADDR_TEXT + 160];
    snprintf(line, sizeof line, "dropped a TCP connection from %s: %s", a, why);
    note(line);
    forget(c);
}

void tcp_acceptor_init(void)
{
    tcp_g.acc = (net_acceptor_t){ .max = TCP_PENDING_MAX, .grace_ms = TCP_EVICT_GRACE_MS,
                                  .hello_ms = TCP_HELLO_TIMEOUT_MS, .drop = drop_quietly };
}

int tcp_accept_all(int lfd)
{
    int events = 0;
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        long long now = net_now_ms();
        int fd = net_accept(&tcp_g.acc, lfd, (struct sockaddr *)&from, &fl, now);
        if (fd == NET_ACCEPT_SHED) {
            note("out of descriptors: closed a TCP connection at once");
            events++;
            continue;
        }
        if (fd < 0)
            return events;
        tcp_conn_t *c = calloc(1, sizeof *c);
        if (!c || tcp_socket_options(fd) != 0 || auth_nonce(c->na) != 0) {
            close(fd);
            free(c);
            continue;
        }
        c->fd = fd;
        c->peer = -1;
        c->accepted = 1;
        net_addr_from_sockaddr(&c->remote, (const struct sockaddr *)&from);
        c->state = A_WAIT_HELLO;
        c->t_start = now;
        if (tcp_conn_add(c, EPOLLIN) != 0) {
            close(fd);
            free(c);
            continue;
        }
        net_pending_push(&tcp_g.acc, &c->pending, c, now);
        unsigned char ch[TCP_CHALLENGE_LEN];
        tcp_challenge_encode(ch, c->na);
        if (net_hs_send(&c->hs, fd, ch, sizeof ch) < 0)
            forget(c);
        events++;
    }
}

/* Whether an authenticated HELLO from rank q may open the connection (ACCEPT) or loses to
 * ours (DUPLICATE). */
static uint32_t verdict_for(int q)
{
    tcp_peer_t *p = &tcp_g.peers[q];
    if (!p->c)
        return TCP_VERDICT_ACCEPT;     /* none of ours, or ours lost already */
    if (p->c->state == UP || p->c->state == SECURING)
        return TCP_VERDICT_DUPLICATE;  /* a stale attempt of the peer's */
    return tcp_id(tcp_g.rank) < tcp_id(q) ? TCP_VERDICT_DUPLICATE : TCP_VERDICT_ACCEPT;
}

int tcp_acceptor_event(tcp_conn_t *c, uint32_t ev, char *err, int errlen)
{
    (void)ev;
    if (c->state == A_REFUSING) {
        if (net_hs_flush(&c->hs, c->fd) != 0)
            forget(c);
        return 1;
    }
    if (net_hs_flush(&c->hs, c->fd) < 0) {
        forget(c);
        return 1;
    }
    int rc = net_hs_read(&c->hs, c->fd, TCP_HELLO_LEN);
    if (rc == 0)
        return 0;
    if (rc < 0) { /* e.g. the loser of simultaneous connects: nothing to report */
        forget(c);
        return 1;
    }
    tcp_hello_t h;
    const char *bad = tcp_hello_parse(c->hs.in, &tcp_g.key, c->na,
                                      tcp_g.dynamic ? 0 : (uint32_t)tcp_g.size,
                                      (uint32_t)tcp_id(tcp_g.rank), &h);
    if (bad) {
        drop(c, bad);
        return 1;
    }
    int q = tcp_g.dynamic ? tcp_g.peer_of_id((int)h.rank) : (int)h.rank;
    if (q < 0) { /* a process of another part this one does not know yet: its connector
                    tries again (docs/dynproc.md) */
        forget(c);
        return 1;
    }
    if (tcp_g.host_of[q] == tcp_g.host_of[tcp_g.rank]) { /* never by TCP: forged */
        char why[96];
        snprintf(why, sizeof why, "it claims to be rank %d, which shares this host", q);
        drop(c, why);
        return 1;
    }
    uint32_t verdict = verdict_for(q);
    unsigned char welcome[TCP_WELCOME_LEN];
    tcp_welcome_encode(welcome, &tcp_g.key, verdict, (uint32_t)tcp_id(tcp_g.rank), h.nonce,
                       c->na);
    int sent = net_hs_send(&c->hs, c->fd, welcome, sizeof welcome);
    if (verdict == TCP_VERDICT_DUPLICATE) {
        c->state = A_REFUSING;
        if (sent != 0)
            forget(c);
        else
            tcp_set_events(c, EPOLLOUT);
        return 1;
    }
    net_pending_remove(&tcp_g.acc, &c->pending);
    c->peer = q;
    tcp_peer_t *p = &tcp_g.peers[q];
    if (p->c) { /* our own attempt loses to the peer's */
        if (p->c->state == C_RETRY)
            tcp_retry_unlink(p->c);
        tcp_conn_free(p->c);
    }
    if (!p->have_card) { /* only for its host's name in messages */
        char ignored[256];
        tcp_fetch_card(q, ignored, sizeof ignored);
    }
    memcpy(c->nc, h.nonce, sizeof c->nc);
    return tcp_peer_up(p, c, 1, err, errlen) == 0 ? 1 : -1;
}

void tcp_expire_pending(void)
{
    net_pending_expire(&tcp_g.acc, net_now_ms());
}

int tcp_acceptor_tls_closed(tcp_conn_t *c, char *err, int errlen)
{
    int q = c->peer;
    tcp_peer_t *p = &tcp_g.peers[q];
    tcp_peer_tls_reset(p);
    p->c = NULL;
    tcp_conn_free(c);
    /* frames for the peer wait: open a connection of ours (should the peer's new one come
     * first, the two meet as any simultaneous ones do) */
    if (p->out.n && tcp_ensure_connection(q, err, errlen) != 0)
        return -1;
    return 1;
}

int tcp_expire_securing(char *err, int errlen)
{
    long long now = net_now_ms();
    for (int r = 0; r < tcp_g.size; r++) {
        tcp_peer_t *p = &tcp_g.peers[r];
        tcp_conn_t *c = p->c;
        if (!c || c->state != SECURING || !c->accepted || net_secure_heard(p->sec) ||
            now < c->tls_deadline)
            continue;
        /* a ClientHello that came while this rank was busy is read first */
        int rc = tcp_peer_securing(c, err, errlen);
        if (rc < 0)
            return -1;
        if (p->c != c || c->state != SECURING || net_secure_heard(p->sec))
            continue;
        /* The peer proved the key and began no TLS handshake: away computing (its connector
         * opens a new connection when it is back), or stalled. Not worth a line. */
        if (tcp_acceptor_tls_closed(c, err, errlen) < 0)
            return -1;
    }
    return 0;
}

void tcp_acceptor_close(void)
{
    while (tcp_g.acc.head) {
        net_pending_t *p = tcp_g.acc.head;
        net_pending_remove(&tcp_g.acc, p);
        tcp_conn_free(p->owner);
    }
}
