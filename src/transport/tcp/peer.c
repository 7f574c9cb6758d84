/*
 * A peer's connection once it is up: frames out (the peer's queue, net/outq.h) and in
 * (net/rx.h), the loss of the peer, and the end in MPI_Finalize.
 */
#include "transport/tcp/tcp_int.h"

#include "net/clock.h"
#include "net/liveness.h"
#include "net/sock.h"
#include "runtime/sites.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

enum { CLOSE_TIMEOUT_MS = 5000 };

const char *tcp_peer_host(int r)
{
    return tcp_g.peers[r].have_card ? tcp_g.peers[r].card.host : "unknown host";
}

int tcp_set_events(tcp_conn_t *c, uint32_t ev)
{
    if (c->events == ev)
        return 0;
    struct epoll_event e = { .events = ev, .data.ptr = c };
    c->events = ev;
    return epoll_ctl(tcp_g.ep, EPOLL_CTL_MOD, c->fd, &e);
}

int tcp_conn_add(tcp_conn_t *c, uint32_t ev)
{
    struct epoll_event e = { .events = ev, .data.ptr = c };
    c->events = ev;
    if (epoll_ctl(tcp_g.ep, EPOLL_CTL_ADD, c->fd, &e) != 0)
        return -1;
    tcp_g.nconn++;
    return 0;
}

void tcp_conn_drop_fd(tcp_conn_t *c)
{
    if (c->fd < 0)
        return;
    epoll_ctl(tcp_g.ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->events = 0;
    tcp_g.nconn--;
}

void tcp_conn_free(tcp_conn_t *c)
{
    tcp_g.freed++;
    tcp_conn_drop_fd(c);
    free(c);
}

int tcp_socket_options(int fd)
{
    if (net_stream_options(fd, tcp_g.timeout_s) != 0)
        return -1;
    /* at most INT_MAX each (the registry's bound) */
    net_set_buffers(fd, (int)tun_size(TUN_TCP_SNDBUF), (int)tun_size(TUN_TCP_RCVBUF), 0);
    return 0;
}

void tcp_lost_text(char *err, int errlen, int r, int e)
{
    if (e == ETIMEDOUT && tcp_g.timeout_s > 0)
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): no answer "
                 "for %d s (its host is down or unreachable; %s)", r, tcp_peer_host(r),
                 tcp_g.timeout_s, LIVENESS_ENV);
    else
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): %s", r,
                 tcp_peer_host(r), strerror(e));
}

int tcp_peer_flush(tcp_peer_t *p, char *err, int errlen)
{
    tcp_conn_t *c = p->c;
    if (!c || c->state != UP)
        return 0;
    int w = net_hs_flush(&c->hs, c->fd);
    if (w == 1 && p->out.n) {
        int nout;
        w = net_outq_flush(&p->out, c->fd, tcp_g.done + tcp_g.ndone,
                           TCP_MAX_COMPLETIONS - tcp_g.ndone, &nout);
        tcp_g.ndone += nout;
    }
    if (w < 0) {
        tcp_lost_text(err, errlen, c->peer, errno);
        return -1;
    }
    uint32_t ev = EPOLLIN | (w == 1 && !p->out.n ? 0 : EPOLLOUT);
    tcp_set_events(c, ev);
    return 0;
}

/* TLS on c before any frame (frames queued meanwhile wait in p->out). */
static int peer_secure(tcp_peer_t *p, tcp_conn_t *c, int server, char *err, int errlen)
{
    unsigned char psk[NET_SECURE_PSK];
    char why[700];
    if (tcp_g.x509) { /* the peer's certificate must name its site */
        p->sec = net_secure_start_x509(c->fd, server, sites_name(tcp_g.site_of[c->peer]), why,
                                       sizeof why);
    } else {
        net_secure_psk(&tcp_g.key, "tcp", c->na, c->nc, psk);
        p->sec = net_secure_start(c->fd, server, psk, why, sizeof why);
        memset(psk, 0, sizeof psk);
    }
    if (!p->sec) {
        snprintf(err, (size_t)errlen, "cannot secure the connection to rank %d (host %s, "
                 "another site): %s", c->peer, tcp_peer_host(c->peer), why);
        return -1;
    }
    p->rx.sec = p->out.sec = p->sec;
    p->c = c;
    c->state = SECURING;
    c->tls_deadline = net_now_ms() + TCP_HELLO_TIMEOUT_MS;
    return tcp_peer_securing(c, err, errlen) < 0 ? -1 : 0;
}

static int peer_go(tcp_peer_t *p, tcp_conn_t *c, char *err, int errlen);

int tcp_peer_securing(tcp_conn_t *c, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[c->peer];
    if (net_hs_sending(&c->hs)) { /* the rest of our WELCOME first: the peer waits for it */
        if (net_hs_flush(&c->hs, c->fd) < 0) {
            tcp_lost_text(err, errlen, c->peer, errno);
            return -1;
        }
        if (net_hs_sending(&c->hs))
            return tcp_set_events(c, EPOLLOUT) == 0 ? 0 : -1;
    }
    char why[700];
    short wants = 0;
    int rc = net_secure_step(p->sec, &wants, why, sizeof why);
    if (rc < 0 && net_secure_closed(p->sec)) /* the other end gave this attempt up */
        return c->accepted ? tcp_acceptor_tls_closed(c, err, errlen)
                           : tcp_connector_tls_closed(c, why, err, errlen);
    if (rc < 0) {
        snprintf(err, (size_t)errlen, "cannot secure the connection to rank %d (host %s, "
                 "another site): %s", c->peer, tcp_peer_host(c->peer), why);
        return -1;
    }
    if (rc == 0)
        return tcp_set_events(c, wants == POLLIN ? EPOLLIN : EPOLLOUT) == 0 ? 0 : -1;
    if (peer_go(p, c, err, errlen) != 0)
        return -1;
    /* records that came with the handshake's last are in OpenSSL's buffer: no event says so */
    return tcp_peer_readable(c->peer, err, errlen) < 0 ? -1 : 1;
}

static void peer_insecure(tcp_peer_t *p)
{
    net_secure_free(p->sec);
    p->sec = p->rx.sec = p->out.sec = NULL;
}

void tcp_peer_tls_reset(tcp_peer_t *p)
{
    peer_insecure(p);
    net_rx_free(&p->rx);
}

int tcp_peer_up(tcp_peer_t *p, tcp_conn_t *c, int server, char *err, int errlen)
{
    if (net_rx_init(&p->rx, TCP_RX_BUFFER) != 0) {
        snprintf(err, (size_t)errlen, "out of memory for a TCP connection");
        return -1;
    }
    if (tcp_g.wan_tls && tcp_g.site_of && tcp_g.site_of[c->peer] != tcp_g.site_of[tcp_g.rank])
        return peer_secure(p, c, server, err, errlen);
    return peer_go(p, c, err, errlen);
}

static int peer_go(tcp_peer_t *p, tcp_conn_t *c, char *err, int errlen)
{
    c->state = UP;
    net_retry_reset(&c->retry);
    p->c = c;
    tcp_g.last_up = c->peer;
    p->lost_race = 0;
    liveness_opening(c->fd, tcp_g.timeout_s, 0); /* a receiver that computes may fill the window */
    return tcp_peer_flush(p, err, errlen);
}

int tcp_peer_readable(int r, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[r];
    int eof = 0;
    int n = net_rx_run(&p->rx, p->c->fd, r, &tcp_g.rx_ops, TCP_FRAMES_PER_POLL, &eof, err,
                       errlen);
    int rx_errno = errno;
    int more = n == TCP_FRAMES_PER_POLL;
    tcp_g.nbacklog += more - p->backlog;
    p->backlog = more;
    if (net_rx_midframe(&p->rx)) {
        /* The peer streams a large frame to us and may be limited by its congestion window:
         * ACK at once rather than after the delayed-ACK timer (the kernel leaves quick-ACK
         * mode by itself, so this is renewed while the frame lasts). */
        int one = 1;
        setsockopt(p->c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    }
    if (n < 0) {
        if (rx_errno == ETIMEDOUT) { /* the kernel gave up: keepalive or retransmissions */
            tcp_lost_text(err, errlen, r, ETIMEDOUT);
            return -1;
        }
        size_t l = strlen(err);
        snprintf(err + l, (size_t)errlen - l, " (rank %d on host %s)", r, tcp_peer_host(r));
        return -1;
    }
    if (eof) {
        if (!p->rx.bye) {
            snprintf(err, (size_t)errlen,
                     "lost the connection to rank %d (host %s): it ended without MPI_Finalize",
                     r, tcp_peer_host(r));
            return -1;
        }
        tcp_conn_free(p->c);
        p->c = NULL;
        p->closed = 1;
        net_rx_free(&p->rx);
        peer_insecure(p);
    }
    return n;
}

/* So that no socket is closed with unread data (which would reset the connection and could
 * lose the peer's last frames). */
void tcp_close_peers(void)
{
    long long until = net_now_ms() + CLOSE_TIMEOUT_MS;
    for (int r = 0; r < tcp_g.size; r++) {
        tcp_peer_t *p = &tcp_g.peers[r];
        if (!p->c || p->c->state != UP)
            continue;
        unsigned char bye[NET_FRAME_HDR];
        net_frame_hdr_encode(bye, &(net_frame_hdr_t){ .kind = NET_KIND_BYE });
        struct iovec v = { bye, sizeof bye };
        net_outq_push_copy(&p->out, &v, 1, 0);
        tcp_g.ndone = 0; /* no completion is run any more */
        net_hs_io_t *hs = &p->c->hs; /* the rest of our WELCOME goes first */
        while (net_hs_sending(hs) && net_hs_flush(hs, p->c->fd) == 0 &&
               net_wait(p->c->fd, POLLOUT, until) == 0)
            ;
        if (!net_hs_sending(hs))
            net_outq_drain(&p->out, p->c->fd, until);
        shutdown(p->c->fd, SHUT_WR);
    }
    for (int r = 0; r < tcp_g.size; r++) {
        tcp_peer_t *p = &tcp_g.peers[r];
        if (p->c && p->c->state == UP)
            net_drain_to_eof(p->c->fd, until);
        peer_insecure(p);
    }
}
