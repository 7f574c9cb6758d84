/*
 * The TCP transport: frames between ranks on different hosts, over one TCP connection per
 * pair of ranks that talk, opened on first use. This file holds the ops; tcp_int.h says which
 * file holds the rest.
 *
 * Bootstrap: when the job spans hosts, every rank listens on an ephemeral port of all its
 * interfaces and publishes its card (card.h) in open(); nothing is connected yet. Its key is
 * derived from the ranks' key (net/auth.h: purpose RANK_TCP), which our launcher gives
 * every rank (tr_boot_t's ranks_key); without it (another launcher), rank 0 makes a ranks'
 * key and publishes it through the process manager, the others read it in connect().
 *
 * Connections (wire.h has the handshake): the first send to a peer reads its card, connects
 * (trying its addresses in card order) and queues frames until the handshake is done
 * (connect.c). The acceptor reads one fixed-size HELLO before anything else (accept.c).
 *
 * Liveness (net/liveness.h): a rank answers nothing while it computes outside MPI, so no
 * timer here may be tripped by a peer's absence. The acceptor drops connections that have not
 * proved the key within TCP_HELLO_TIMEOUT_MS of its own time in MPI (or, from another site,
 * not begun TLS within as long after its WELCOME: accept.c), and evicts the oldest
 * of more than TCP_PENDING_MAX unproven ones (floods); the connector, which may have been
 * away computing while that happened, opens a new connection whenever its attempt is closed
 * before the WELCOME (with backoff; it gives up only after attempts closed at once for the
 * whole peer timeout: a listener that refuses us for good). A vanished host is found by the
 * kernel: keepalive on every connection, the connect and handshake bounded by the peer
 * timeout, and once a second liveness_silent() on the connections that wait for
 * acknowledgements.
 *
 * Sending writes straight from the caller's iovecs when the queue is empty, and copies only
 * what the socket did not take; send_zc queues the caller's memory itself and reports
 * completion from progress(). Receiving: net/rx.h (zero-copy delivery, placement of large
 * bodies straight into the receiver's buffer).
 *
 * Failures: an end of stream from a peer that did not say BYE first, or a socket error, is
 * the loss of that peer: progress() fails with a message naming its rank and host, which
 * ends the job. MPI_Finalize (close) flushes, says BYE, and waits (bounded) for the peers'
 * own end of stream, so no connection is reset with data in flight (peer.c).
 */
#include "transport/tcp/tcp_int.h"

#include "net/clock.h"
#include "net/fdlimit.h"
#include "net/liveness.h"
#include "runtime/peer_timeout.h"
#include "net/sock.h"
#include "runtime/tunables.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

enum {
    EAGER_DEFAULT = 32 << 10,      /* chosen by measurement: docs/tcp-transport.md */
    CHUNK_DEFAULT = 512 << 10,
    PLACE_MIN = 16 << 10,          /* bodies from this size are placed by the layer above */
    QUEUE_COPIED_MAX = 1 << 20,    /* send() refuses (flow control) beyond these queued bytes */
    QUEUE_BORROWED_MAX = 8 << 20,
    CHECK_MS = 1000,               /* how often UP connections are checked for silence */
    EPOLL_EVERY = 16,              /* with one connection read directly: epoll_wait once in
                                    * this many passes (the listeners' new connections) */
};

tcp_state_t tcp_g = { .ep = -1, .last_up = -1 };

/* ---- the ops ---------------------------------------------------------------------------- */

static int spans_hosts(const tr_boot_t *b)
{
    for (int r = 1; r < b->size; r++)
        if (b->host_of[r] != b->host_of[0])
            return 1;
    return 0;
}

/* One listener per chosen local address (METAMPI_TCP_IF, or every interface that is up),
 * each on its own ephemeral port: nothing listens where the job was told not to. The
 * backlog is the kernel's largest: ranks that connect to a rank computing outside MPI wait
 * in it, and a full one drops their SYNs. */
static int listen_and_publish(const tr_boot_t *boot, char *err, int errlen)
{
    tcp_g.nlocal = tcp_local_addrs(tun_string(TUN_TCP_IF), tcp_g.local, TCP_CARD_MAX_ADDRS,
                                   err, errlen);
    if (tcp_g.nlocal < 0)
        return -1;
    for (int i = 0; i < tcp_g.nlocal; i++)
        tcp_g.lfd[i] = -1;
    int lo = 0, hi = 0;
    const char *ports = tun_string(TUN_TCP_PORTS);
    if (ports && *ports && net_port_range_parse(ports, &lo, &hi) != 0) {
        snprintf(err, (size_t)errlen, "METAMPI_TCP_PORTS='%s' is not a range of ports LO-HI "
                 "(1 <= LO <= HI <= 65535)", ports);
        return -1;
    }
    int kept = 0;
    for (int i = 0; i < tcp_g.nlocal; i++) {
        tcp_addr_t *a = &tcp_g.local[i];
        int fd = net_listen_range(&a->a, 65535, 0, lo, hi);
        if (fd < 0 && errno == EADDRNOTAVAIL && net_addr_family(&a->a) == AF_INET6 &&
            (kept || i + 1 < tcp_g.nlocal))
            continue;  /* an IPv6 address still tentative (duplicate detection) or gone */
        if (fd < 0) {
            char ip[NET_ADDR_HOST_TEXT], range[64] = "";
            net_addr_host_text(&a->a, ip, sizeof ip);
            if (lo && errno == EADDRINUSE)
                snprintf(range, sizeof range, " (no free port in %d-%d, mpirun --port-range)",
                         lo, hi);
            snprintf(err, (size_t)errlen, "cannot listen for TCP connections on %s: %s%s", ip,
                     strerror(errno), range);
            tcp_g.nlocal = kept;
            return -1;
        }
        tcp_g.local[kept] = *a;
        tcp_g.lfd[kept] = fd;
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = &tcp_g.lfd[kept++] };
        if (epoll_ctl(tcp_g.ep, EPOLL_CTL_ADD, fd, &e) != 0) {
            snprintf(err, (size_t)errlen, "epoll: %s", strerror(errno));
            return -1;
        }
    }
    tcp_g.nlocal = kept;
    char card[TCP_CARD_LEN], key[32];
    if (tcp_card_format(tcp_g.hostname, tcp_g.local, tcp_g.nlocal, card) != 0) {
        snprintf(err, (size_t)errlen, "the TCP address list does not fit a card");
        return -1;
    }
    snprintf(key, sizeof key, "tcp.%d", tcp_g.rank);
    return boot->kv_put(key, card, err, errlen);
}

/* Whether an epoll event names one of our listeners. */
static int listener_of(const void *ptr)
{
    for (int i = 0; i < tcp_g.nlocal; i++)
        if (ptr == &tcp_g.lfd[i])
            return tcp_g.lfd[i];
    return -1;
}

/* This transport's key, from the ranks' key. */
static int use_ranks_key(const auth_key_t *ranks, char *err, int errlen)
{
    if (auth_derive(ranks, AUTH_RANK_TCP, &tcp_g.key) != 0) {
        snprintf(err, (size_t)errlen, "cannot derive the TCP transport's key (libcrypto)");
        return -1;
    }
    tcp_g.have_key = 1;
    return 0;
}

static int activate(const tr_boot_t *boot, char *err, int errlen);

static int tcp_open(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen)
{
    tcp_g.rank = boot->rank;
    tcp_g.last_up = -1;
    tcp_g.size = tcp_g.part_size = boot->size;
    tcp_g.host_of = boot->host_of;
    tcp_g.site_of = boot->site_of;
    tcp_g.wan_tls = tun_bool(TUN_WAN_ENCRYPT);
    if (tcp_wan_x509_init(err, errlen) != 0)
        return -1;
    tcp_g.hostname = boot->hostname;
    tcp_g.kv_get = boot->kv_get;
    tcp_g.rx_ops = (net_rx_ops_t){ .deliver = deliver, .place = boot->place,
                                   .place_min = PLACE_MIN, .max_frame = TCP_MAX_FRAME,
                                   .peer = "rank" };
    tcp_acceptor_init();
    tcp_g.active = spans_hosts(boot);
    return tcp_g.active ? activate(boot, err, errlen) : 0;
}

/* Listening and the peers' table: at open when the job spans hosts, else at the first grow. */
static int activate(const tr_boot_t *boot, char *err, int errlen)
{
    tcp_g.active = 1;
    if (peer_timeout_read(&tcp_g.timeout_s, err, (size_t)errlen) != 0)
        return -1;
    /* a connection per peer and the unproven ones, on top of what the program was given */
    fdlimit_raise(fdlimit_raise(0) + tcp_g.size + TCP_PENDING_MAX);
    fdlimit_reserve();
    tcp_g.peers = calloc((size_t)tcp_g.size, sizeof *tcp_g.peers);
    tcp_g.ep = epoll_create1(EPOLL_CLOEXEC);
    if (!tcp_g.peers || tcp_g.ep < 0) {
        snprintf(err, (size_t)errlen, "cannot set up the TCP transport: %s", strerror(errno));
        return -1;
    }
    auth_key_t ranks;
    if (boot->ranks_key) {
        if (use_ranks_key(boot->ranks_key, err, errlen) != 0)
            return -1;
    } else if (tcp_g.rank == 0) { /* another launcher: share a ranks' key through it */
        char h[AUTH_KEY_HEX + 1];
        if (auth_key_generate(&ranks) != 0) {
            snprintf(err, (size_t)errlen, "no randomness for the job key");
            return -1;
        }
        auth_key_to_hex(&ranks, h);
        int rc = boot->kv_put("tcp.key", h, err, errlen) != 0 ||
                 use_ranks_key(&ranks, err, errlen) != 0;
        auth_key_wipe(&ranks);
        if (rc)
            return -1;
    }
    return listen_and_publish(boot, err, errlen);
}

static int tcp_connect(char *err, int errlen)
{
    if (!tcp_g.active || tcp_g.have_key)
        return 0;
    char h[AUTH_KEY_HEX + 1];
    auth_key_t ranks;
    int rc = tcp_g.kv_get("tcp.key", h, sizeof h, err, errlen);
    if (rc != 0 || auth_key_from_hex(h, &ranks) != 0) {
        if (rc >= 0)
            snprintf(err, (size_t)errlen, "rank 0 published no usable job key");
        return -1;
    }
    return use_ranks_key(&ranks, err, errlen);
}

static int tcp_ready(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    return 0;
}

static int tcp_reaches(int peer)
{
    return tcp_g.active && tcp_g.host_of[peer] != tcp_g.host_of[tcp_g.rank];
}

/* Ranks of other parts (transport.h, "Growing"): they are always on another "host" in
 * host_of, so reaches() takes them; their HELLOs name job-wide numbers from now on. */
static int tcp_grow(const tr_boot_t *boot, char *err, int errlen)
{
    tcp_g.host_of = boot->host_of;
    tcp_g.site_of = boot->site_of;
    tcp_g.peer_id = boot->peer_id;
    tcp_g.peer_of_id = boot->peer_of_id;
    tcp_g.kv_get_peer = boot->kv_get_peer;
    tcp_g.dynamic = 1;
    if (!tcp_g.active) {
        if (!boot->ranks_key) {
            snprintf(err, (size_t)errlen, "no ranks' key from the launcher: processes of other "
                     "parts of the job cannot be reached");
            return -1;
        }
        tcp_g.size = boot->size;
        return activate(boot, err, errlen);
    }
    if (boot->size > tcp_g.size) {
        tcp_peer_t *p = realloc(tcp_g.peers, (size_t)boot->size * sizeof *p);
        if (!p) {
            snprintf(err, (size_t)errlen, "out of memory for %d TCP peers", boot->size);
            return -1;
        }
        memset(p + tcp_g.size, 0, (size_t)(boot->size - tcp_g.size) * sizeof *p);
        tcp_g.peers = p;
        tcp_g.size = boot->size;
    }
    return 0;
}

static int frame_check(int dst, size_t len, char *err, int errlen)
{
    if (len == 0 || len > TCP_MAX_FRAME) {
        snprintf(err, (size_t)errlen, "tcp: a %zu-byte frame to rank %d (limit %d)", len, dst,
                 TCP_MAX_FRAME);
        return -1;
    }
    return 0;
}

static int tcp_send(int dst, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                    char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[dst];
    if (tcp_ensure_connection(dst, err, errlen) != 0)
        return -1;
    if (p->out.copied >= QUEUE_COPIED_MAX || p->out.borrowed >= QUEUE_BORROWED_MAX)
        return 0;
    size_t len = pk ? pk->len : 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    unsigned char hdr[NET_FRAME_HDR];
    net_frame_hdr_t h = { .len = (uint32_t)len, .kind = NET_KIND_FRAME,
                          .head_len = iovcnt > 0 && iov[0].iov_len <= NET_HEAD_MAX
                                          ? (uint8_t)iov[0].iov_len : 0 };
    net_frame_hdr_encode(hdr, &h);
    int up = p->c && p->c->state == UP && !net_hs_sending(&p->c->hs);
    int rc = net_outq_frame(&p->out, up ? p->c->fd : -1, hdr, sizeof hdr, iov, iovcnt, pk);
    if (rc == -2) {
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): %s", dst,
                 tcp_peer_host(dst), strerror(errno));
        return -1;
    }
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return tcp_peer_flush(p, err, errlen) == 0 ? 1 : -1;
}

static int tcp_send_zc(int dst, const struct iovec *iov, int iovcnt, void (*sent)(void *ctx),
                       void *ctx, char *err, int errlen)
{
    tcp_peer_t *p = &tcp_g.peers[dst];
    if (tcp_ensure_connection(dst, err, errlen) != 0)
        return -1;
    if (p->out.copied >= QUEUE_COPIED_MAX || p->out.borrowed >= QUEUE_BORROWED_MAX)
        return 0;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    size_t head = iovcnt > 0 ? iov[0].iov_len : 0;
    unsigned char hdr[NET_FRAME_HDR];
    net_frame_hdr_t fh = { .len = (uint32_t)len, .kind = NET_KIND_FRAME,
                           .head_len = head <= NET_HEAD_MAX ? (uint8_t)head : 0 };
    net_frame_hdr_encode(hdr, &fh);
    if (net_outq_frame_zc(&p->out, hdr, sizeof hdr, iov, iovcnt,
                          (net_completion_t){ sent, ctx }) != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return tcp_peer_flush(p, err, errlen) == 0 ? 1 : -1;
}

/* The connections that wait for acknowledgements nobody sends (net/liveness.h). */
static int check_silent(char *err, int errlen)
{
    if (tcp_g.timeout_s <= 0)
        return 0;
    for (int r = 0; r < tcp_g.size; r++) {
        const tcp_conn_t *c = tcp_g.peers[r].c;
        if (c && c->state == UP && liveness_silent(c->fd, tcp_g.timeout_s)) {
            tcp_lost_text(err, errlen, r, ETIMEDOUT);
            return -1;
        }
    }
    return 0;
}

/* The rank's only connection, when it is up and waits for nothing but input: progress()
 * reads it directly instead of asking epoll first. A message from the peer then costs one
 * system call to find and read, as a plain TCP program's spinning recv() does, instead of
 * epoll_wait() and a read (docs/tcp-transport.md, "Small messages"). -1: none such. */
static int solo_peer(void)
{
    if (tcp_g.nconn != 1 || tcp_g.last_up < 0)
        return -1;
    const tcp_conn_t *c = tcp_g.peers[tcp_g.last_up].c;
    return c && c->state == UP && c->events == EPOLLIN ? tcp_g.last_up : -1;
}

static int tcp_progress(char *err, int errlen)
{
    if (!tcp_g.active)
        return 0;
    int events = 0;
    if (tcp_g.ndone) { /* completions found by flushes since the last call */
        net_completion_t d[TCP_MAX_COMPLETIONS];
        int n = tcp_g.ndone;
        memcpy(d, tcp_g.done, (size_t)n * sizeof *d);
        tcp_g.ndone = 0;
        for (int i = 0; i < n; i++)
            d[i].sent(d[i].ctx);
        events += n;
    }
    if (tcp_g.retrying) {
        int rc = tcp_retry_due(err, errlen);
        if (rc < 0)
            return -1;
        events += rc;
    }
    /* One connection (solo_peer): read it; the epoll set, where only the listeners can
     * have news then (its socket's errors and end show in the read), once in EPOLL_EVERY
     * passes. Otherwise the peers with frames left in their buffers, then epoll. */
    int solo = solo_peer();
    if (solo >= 0) {
        int k = tcp_peer_readable(solo, err, errlen);
        if (k < 0)
            return -1;
        events += k;
        if (++tcp_g.direct_passes < EPOLL_EVERY)
            goto timers;
        tcp_g.direct_passes = 0;
    }
    for (int r = 0; solo < 0 && tcp_g.nbacklog && r < tcp_g.size; r++) {
        if (!tcp_g.peers[r].backlog || !tcp_g.peers[r].c)
            continue;
        int k = tcp_peer_readable(r, err, errlen);
        if (k < 0)
            return -1;
        events += k;
    }
    struct epoll_event ev[32];
    int n = epoll_wait(tcp_g.ep, ev, 32, 0);
    unsigned freed = tcp_g.freed;
    for (int i = 0; i < n && tcp_g.freed == freed; i++) {
        /* (a handler that freed a connection may have freed one that a later event names:
         * those events come again from the next epoll_wait) */
        int rc, lfd = listener_of(ev[i].data.ptr);
        if (lfd >= 0) {
            rc = tcp_accept_all(lfd);
        } else {
            tcp_conn_t *c = ev[i].data.ptr;
            uint32_t e = ev[i].events;
            if (c->state == UP) {
                tcp_peer_t *p = &tcp_g.peers[c->peer];
                rc = 0;
                if (e & EPOLLOUT)
                    rc = tcp_peer_flush(p, err, errlen);
                if (rc == 0 && (e & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                    rc = tcp_peer_readable(c->peer, err, errlen);
            } else if (c->state == SECURING) {
                rc = tcp_peer_securing(c, err, errlen);
            } else if (c->peer >= 0 && c->state != A_REFUSING) {
                rc = tcp_connector_event(c, e, err, errlen);
            } else {
                rc = tcp_acceptor_event(c, e, err, errlen);
            }
        }
        if (rc < 0)
            return -1;
        events += rc;
    }
timers:
    if (tcp_g.acc.head)
        tcp_expire_pending();
    long long t = net_coarse_ms();
    if (t >= tcp_g.next_check) {
        tcp_g.next_check = t + CHECK_MS;
        tcp_notes_roll(t);
        if (check_silent(err, errlen) != 0 || tcp_expire_securing(err, errlen) != 0)
            return -1;
    }
    return events;
}

static int tcp_busy(void)
{
    if (!tcp_g.active)
        return 0;
    for (int r = 0; r < tcp_g.size; r++) {
        const tcp_peer_t *p = &tcp_g.peers[r];
        if (p->out.n || p->lost_race || (p->c && p->c->state != UP))
            return 1;
    }
    return 0;
}

static void tcp_sleep_hook(void)
{
}

static int tcp_pollfds(struct pollfd *fds, int max)
{
    if (!tcp_g.active || max < 1)
        return 0;
    fds[0] = (struct pollfd){ .fd = tcp_g.ep, .events = POLLIN };
    return 1;
}

static void tcp_close(void)
{
    if (tcp_g.active && tcp_g.peers) {
        tcp_close_peers();
        for (int r = 0; r < tcp_g.size; r++) {
            tcp_peer_t *p = &tcp_g.peers[r];
            if (p->c)
                tcp_conn_free(p->c);
            net_outq_free(&p->out);
            net_rx_free(&p->rx);
        }
        tcp_acceptor_close();
        tcp_notes_roll(net_now_ms() + NET_NOTES_WINDOW_MS);
    }
    for (int i = 0; i < tcp_g.nlocal; i++)
        if (tcp_g.lfd[i] >= 0)
            close(tcp_g.lfd[i]);
    if (tcp_g.ep >= 0)
        close(tcp_g.ep);
    free(tcp_g.peers);
    memset(&tcp_g, 0, sizeof tcp_g);
    tcp_g.ep = -1;
}

const transport_t transport_tcp = {
    .name = "tcp",
    .open = tcp_open,
    .connect = tcp_connect,
    .ready = tcp_ready,
    .reaches = tcp_reaches,
    .max_frame = TCP_MAX_FRAME,
    .eager_default = EAGER_DEFAULT,
    .chunk_default = CHUNK_DEFAULT,
    .send = tcp_send,
    .send_zc = tcp_send_zc,
    .progress = tcp_progress,
    .prepare_sleep = tcp_sleep_hook,
    .end_sleep = tcp_sleep_hook,
    .pollfds = tcp_pollfds,
    .busy = tcp_busy,
    .grow = tcp_grow,
    .close = tcp_close,
};
