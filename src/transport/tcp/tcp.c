/*
 * The TCP transport: frames between ranks on different hosts, over one TCP connection per
 * pair of ranks that talk, opened on first use.
 *
 * Bootstrap: when the job spans hosts, every rank listens on an ephemeral port of all its
 * interfaces and publishes its card (card.h) in open(); nothing is connected yet. Its key is
 * derived from the ranks' key (runtime/auth.h: purpose RANK_TCP), which our launcher gives
 * every rank (runtime/rank_key.h); without it (another launcher), rank 0 makes a ranks' key
 * and publishes it through the process manager, the others read it in connect().
 *
 * Connections (wire.h has the handshake): the first send to a peer reads its card, connects
 * (trying its addresses in card order) and queues frames until the handshake is done. The
 * acceptor reads one fixed-size HELLO before anything else and drops (and logs) any
 * connection whose HELLO does not prove the job key, or claims a rank of this host (which
 * would reach us through shared memory), without disturbing the job. When two
 * ranks connect to each other at once, the connection opened by the lower rank wins: the
 * acceptor of the other answers DUPLICATE and its connector then waits for the winner.
 *
 * Liveness (runtime/liveness.h): a rank answers nothing while it computes outside MPI, so no
 * timer here may be tripped by a peer's absence. The acceptor drops connections that have not
 * proved the key within HELLO_TIMEOUT_MS of its own time in MPI, and evicts the oldest of more
 * than PENDING_MAX unproven ones (floods); the connector, which may have been away computing
 * while that happened, opens a new connection whenever its attempt is closed before the
 * WELCOME (with backoff; it gives up only after attempts closed at once for the whole peer
 * timeout: a listener that refuses us for good). A vanished host is found by the kernel:
 * keepalive on every connection, the connect and handshake bounded by the peer timeout, and
 * once a second liveness_silent() on the connections that wait for acknowledgements.
 * Invariant: a peer has at most one connection in state UP, frames to it travel only on that
 * connection, in the order send() took them (they wait in the peer's queue until then), so a
 * duplicate can neither reorder nor duplicate a frame.
 *
 * Sending writes straight from the caller's iovecs when the queue is empty, and copies only
 * what the socket did not take; send_zc queues the caller's memory itself and reports
 * completion from progress(). Receiving: rx.h (zero-copy delivery, placement of large
 * bodies straight into the receiver's buffer).
 *
 * Failures: an end of stream from a peer that did not say BYE first, or a socket error, is
 * the loss of that peer: progress() fails with a message naming its rank and host, which
 * ends the job. MPI_Finalize (close) flushes, says BYE, and waits (bounded) for the peers'
 * own end of stream, so no connection is reset with data in flight.
 */
#include "transport/tcp/card.h"
#include "transport/tcp/outq.h"
#include "transport/tcp/rx.h"
#include "transport/tcp/wire.h"
#include "transport/transport.h"

#include "runtime/fdlimit.h"
#include "runtime/job.h"
#include "runtime/liveness.h"
#include "runtime/rank_key.h"
#include "runtime/tunables.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_FRAME = (4 << 20) + 256,   /* DATA chunks of up to 4 MiB plus their header */
    EAGER_DEFAULT = 32 << 10,      /* chosen by measurement: docs/ARCHITECTURE.md, TCP */
    CHUNK_DEFAULT = 512 << 10,
    RX_BUFFER = 256 << 10,
    PLACE_MIN = 16 << 10,          /* bodies from this size are placed by the layer above */
    QUEUE_COPIED_MAX = 1 << 20,    /* send() refuses (flow control) beyond these queued bytes */
    QUEUE_BORROWED_MAX = 8 << 20,
    FRAMES_PER_POLL = 64,
    MAX_COMPLETIONS = 256,
    HELLO_TIMEOUT_MS = 10000,      /* an accepted connection must prove the key by then */
    PENDING_MAX = 256,             /* unproven accepted connections kept at once; beyond, */
    EVICT_GRACE_MS = 250,          /* the oldest goes once it had this long to answer */
    RETRY_MIN_MS = 10,             /* our attempt was closed in the handshake: a new one after */
    RETRY_MAX_MS = 1000,           /* this long, doubling up to this */
    RETRY_GIVE_UP_MIN = 3,         /* attempts closed at once in a row before we give up */
    CLOSE_TIMEOUT_MS = 5000,
    CHECK_MS = 1000,               /* how often UP connections are checked for silence */
    NOTE_WINDOW_MS = 60000,        /* at most NOTES_MAX dropped-connection lines per window */
    NOTES_MAX = 10,
};

enum conn_state {
    C_RETRY,           /* connector: closed in the handshake; a new attempt at retry_at */
    C_CONNECTING,      /* connector: connect() in progress */
    C_WAIT_CHALLENGE,  /* connector: reading the acceptor's CHALLENGE */
    C_WAIT_WELCOME,    /* connector: HELLO sent, reading the WELCOME */
    A_WAIT_HELLO,      /* acceptor: CHALLENGE sent, reading the HELLO */
    A_REFUSING,        /* acceptor: answered DUPLICATE; closes once that is written */
    UP,                /* authenticated: carries frames */
};

typedef struct conn {
    int fd, state;
    int peer;                    /* -1 until an accepted connection's HELLO names it */
    int addr_i;                  /* connector: index of the card address being tried */
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    unsigned char hs_in[TCP_HELLO_LEN];
    size_t hs_got;
    unsigned char hs_out[TCP_HELLO_LEN];
    size_t hs_len, hs_off;       /* handshake bytes still to write: [hs_off, hs_len) */
    uint64_t deadline;           /* acceptor: ms, CLOCK_MONOTONIC; 0: none */
    uint64_t t_start;            /* accepted, or this attempt started (ms) */
    uint64_t retry_at;           /* C_RETRY: when the next attempt starts */
    uint64_t fail_since;         /* connector: first of the attempts closed at once in a row */
    int fails;                   /* connector: how many */
    int last_errno;              /* the handshake read's error (0: end of stream) */
    struct sockaddr_in remote;
    uint32_t events;             /* registered with epoll */
    struct conn *next;           /* acceptor: the pending FIFO; connector: the retry list */
} conn_t;

typedef struct peer {
    conn_t *c;                   /* our connection to the peer (any state), or the UP one */
    int lost_race;               /* our connection lost to the peer's: wait for it */
    int closed;                  /* the peer said BYE and closed */
    tcp_outq_t out;              /* frames waiting for the connection or the socket */
    tcp_rx_t rx;                 /* valid while c is UP */
    tcp_card_t card;
    int have_card;
    int backlog;                 /* rx holds frames not yet handled (the budget ran out):
                                  * epoll will not report them, progress() must come back */
} peer_t;

static struct {
    int active;                  /* the job spans hosts */
    int rank, size;
    const int *host_of;
    tr_deliver_fn deliver;
    tcp_rx_ops_t rx_ops;
    auth_key_t key;
    int have_key;
    int ep;
    int lfd[TCP_CARD_MAX_ADDRS]; /* one listener per chosen local address */
    tcp_addr_t local[TCP_CARD_MAX_ADDRS];
    int nlocal;
    int timeout_s;               /* METAMPI_PEER_TIMEOUT */
    peer_t *peers;
    conn_t *pending, *pending_tail; /* accepted, HELLO not read yet: oldest first */
    int npending;
    conn_t *retrying;            /* our attempts in C_RETRY */
    tcp_completion_t done[MAX_COMPLETIONS];
    int ndone;
    unsigned freed;              /* connections freed so far (invalidates epoll events) */
    int nbacklog;                /* peers with backlog set */
    uint64_t next_check;         /* coarse ms: the next silence check */
    uint64_t note_window;        /* dropped-connection lines: this window's start, */
    int notes, notes_held;       /* lines written in it, lines held back */
} g = { .ep = -1 };

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* For the once-a-second checks on the progress path (a few ms of resolution). */
static uint64_t coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The peer timeout, or 60 s where it is off: how long attempts closed at once may go on. */
static uint64_t give_up_ms(void)
{
    return (uint64_t)(g.timeout_s > 0 ? g.timeout_s : LIVENESS_DEFAULT_S) * 1000;
}

static const char *peer_host(int r)
{
    return g.peers[r].have_card ? g.peers[r].card.host : "unknown host";
}

static void addr_text(const struct sockaddr_in *a, char *out, size_t len)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(out, len, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
}

static int set_events(conn_t *c, uint32_t ev)
{
    if (c->events == ev)
        return 0;
    struct epoll_event e = { .events = ev, .data.ptr = c };
    c->events = ev;
    return epoll_ctl(g.ep, EPOLL_CTL_MOD, c->fd, &e);
}

static void conn_free(conn_t *c)
{
    g.freed++;
    if (c->fd >= 0) {
        epoll_ctl(g.ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    free(c);
}

/* ---- the pending FIFO: accepted connections before their HELLO, oldest first ------------ */

static void pending_push(conn_t *c)
{
    c->next = NULL;
    if (g.pending_tail)
        g.pending_tail->next = c;
    else
        g.pending = c;
    g.pending_tail = c;
    g.npending++;
}

static void unlink_pending(conn_t *c)
{
    conn_t *prev = NULL;
    for (conn_t *p = g.pending; p; prev = p, p = p->next)
        if (p == c) {
            if (prev)
                prev->next = c->next;
            else
                g.pending = c->next;
            if (g.pending_tail == c)
                g.pending_tail = prev;
            g.npending--;
            return;
        }
}

/* Whether a dropped-connection line may be written now: at most NOTES_MAX per window, the
 * rest are counted and summed up in one line when the window ends (a flood must not flood
 * the job's stderr). */
static void notes_roll(uint64_t t)
{
    if (t - g.note_window < NOTE_WINDOW_MS)
        return;
    if (g.notes_held)
        fprintf(stderr, "metampi: rank %d (host %s): dropped %d more TCP connections in the "
                "last %d s (no valid hello, or no descriptor for them)\n", g.rank, job.hostname,
                g.notes_held, NOTE_WINDOW_MS / 1000);
    g.note_window = t;
    g.notes = g.notes_held = 0;
}

/* Drops an accepted connection that did not prove the key; the job goes on. */
static void drop(conn_t *c, const char *why)
{
    notes_roll(now_ms());
    if (g.notes < NOTES_MAX) {
        char a[64];
        addr_text(&c->remote, a, sizeof a);
        fprintf(stderr, "metampi: rank %d (host %s): dropped a TCP connection from %s: %s\n",
                g.rank, job.hostname, a, why);
        g.notes++;
    } else {
        g.notes_held++;
    }
    unlink_pending(c);
    conn_free(c);
}

/* Drops an accepted connection that has not said anything yet: a peer that computes outside
 * MPI, whose connector will open a new one, or a flood's. Not worth a line. */
static void drop_quiet(conn_t *c)
{
    unlink_pending(c);
    conn_free(c);
}

static void drop_oldest(void)
{
    if (g.pending)
        drop_quiet(g.pending);
}

/* "lost the connection to rank R (host H): why", where a connection the kernel gave up on
 * says what that means. */
static void lost_text(char *err, int errlen, int r, int e)
{
    if (e == ETIMEDOUT && g.timeout_s > 0)
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): no answer "
                 "for %d s (its host is down or unreachable; %s)", r, peer_host(r),
                 g.timeout_s, LIVENESS_ENV);
    else
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): %s", r,
                 peer_host(r), strerror(e));
}

/* Options of every connection, ours and accepted; liveness_opening stays on until UP. */
static int socket_options(int fd)
{
    int one = 1;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        liveness_keepalive(fd, g.timeout_s) != 0 || liveness_opening(fd, g.timeout_s, 1) != 0)
        return -1;
    /* Explicit buffer sizes switch off the kernel's autotuning, which already sizes them to
     * the link's bandwidth x delay; they are for links where its limits are too low. */
    const tun_id_t sizes[2] = { TUN_TCP_SNDBUF, TUN_TCP_RCVBUF };
    const int opts[2] = { SO_SNDBUF, SO_RCVBUF };
    for (int i = 0; i < 2; i++) {
        int n = (int)tun_size(sizes[i]); /* at most INT_MAX (the registry's bound) */
        if (n > 0)
            setsockopt(fd, SOL_SOCKET, opts[i], &n, sizeof n);
    }
    return 0;
}

static int conn_add(conn_t *c, uint32_t ev)
{
    struct epoll_event e = { .events = ev, .data.ptr = c };
    c->events = ev;
    return epoll_ctl(g.ep, EPOLL_CTL_ADD, c->fd, &e);
}

/* ---- handshake byte I/O ----------------------------------------------------------------- */

/* Reads until hs_in holds want bytes, never more (what follows belongs to the frames).
 * 1 complete, 0 not yet, -1 end of stream or error (c->last_errno: 0, or the error). */
static int read_exact(conn_t *c, size_t want)
{
    while (c->hs_got < want) {
        ssize_t n = read(c->fd, c->hs_in + c->hs_got, want - c->hs_got);
        if (n > 0) {
            c->hs_got += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        c->last_errno = n < 0 ? errno : 0;
        return -1;
    }
    return 1;
}

/* Writes the rest of hs_out: 1 done, 0 socket full, -1 error. */
static int write_handshake(conn_t *c)
{
    while (c->hs_off < c->hs_len) {
        struct iovec v = { c->hs_out + c->hs_off, c->hs_len - c->hs_off };
        long w = tcp_sendv(c->fd, &v, 1);
        if (w < 0)
            return -1;
        if (w == 0)
            return 0;
        c->hs_off += (size_t)w;
    }
    return 1;
}

/* ---- the peer's queue ------------------------------------------------------------------- */

/* Writes what the peer's UP connection can take; EPOLLOUT while something is left. */
static int peer_flush(peer_t *p, char *err, int errlen)
{
    conn_t *c = p->c;
    if (!c || c->state != UP)
        return 0;
    int w = write_handshake(c);
    if (w == 1 && p->out.n) {
        int nout;
        w = tcp_outq_flush(&p->out, c->fd, g.done + g.ndone, MAX_COMPLETIONS - g.ndone, &nout);
        g.ndone += nout;
    }
    if (w < 0) {
        lost_text(err, errlen, c->peer, errno);
        return -1;
    }
    uint32_t ev = EPOLLIN | (w == 1 && !p->out.n ? 0 : EPOLLOUT);
    set_events(c, ev);
    return 0;
}

static int peer_up(peer_t *p, conn_t *c, char *err, int errlen)
{
    if (tcp_rx_init(&p->rx, RX_BUFFER) != 0) {
        snprintf(err, (size_t)errlen, "out of memory for a TCP connection");
        return -1;
    }
    c->state = UP;
    c->deadline = 0;
    c->fails = 0;
    p->c = c;
    p->lost_race = 0;
    liveness_opening(c->fd, g.timeout_s, 0); /* a receiver that computes may fill the window */
    return peer_flush(p, err, errlen);
}

/* ---- connecting ------------------------------------------------------------------------- */

static int fetch_card(int r, char *err, int errlen)
{
    peer_t *p = &g.peers[r];
    if (p->have_card)
        return 0;
    char key[32], val[TCP_CARD_LEN];
    snprintf(key, sizeof key, "tcp.%d", r);
    int rc = job_get(key, val, sizeof val, err, errlen);
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
    tcp_card_order(&p->card, g.local, g.nlocal);
    p->have_card = 1;
    return 0;
}

/* Starts connecting c to the card's addresses from c->addr_i on. 0, or -1 when none is
 * left (message in err). */
static int try_connect(conn_t *c, char *err, int errlen)
{
    peer_t *p = &g.peers[c->peer];
    int last_errno = 0;
    for (; c->addr_i < p->card.naddr; c->addr_i++) {
        const tcp_addr_t *a = &p->card.addr[c->addr_i];
        c->remote = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr = a->ip,
                                          .sin_port = htons(a->port) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        while (fd < 0 && (errno == EMFILE || errno == ENFILE) && g.pending) {
            drop_oldest();
            fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        }
        if (fd < 0 || socket_options(fd) != 0) {
            last_errno = errno;
            if (fd >= 0)
                close(fd);
            continue;
        }
        int rc = connect(fd, (struct sockaddr *)&c->remote, sizeof c->remote);
        if (rc != 0 && errno != EINPROGRESS) {
            last_errno = errno;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->state = rc == 0 ? C_WAIT_CHALLENGE : C_CONNECTING;
        c->t_start = now_ms();
        c->hs_got = c->hs_len = c->hs_off = 0;
        c->last_errno = 0;
        if (conn_add(c, rc == 0 ? EPOLLIN : EPOLLOUT) != 0) {
            last_errno = errno;
            close(fd);
            c->fd = -1;
            continue;
        }
        return 0;
    }
    char list[TCP_CARD_LEN] = "";
    for (int i = 0; i < p->card.naddr; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &p->card.addr[i].ip, ip, sizeof ip);
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s:%u", i ? ", " : "", ip,
                 (unsigned)p->card.addr[i].port);
    }
    snprintf(err, (size_t)errlen, "cannot connect to rank %d (host %s) at %s: %s", c->peer,
             p->card.host, list, last_errno ? strerror(last_errno) : "no address");
    return -1;
}

static int start_connect(int r, char *err, int errlen)
{
    if (fetch_card(r, err, errlen) != 0)
        return -1;
    conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, (size_t)errlen, "out of memory for a TCP connection");
        return -1;
    }
    c->fd = -1;
    c->peer = r;
    if (try_connect(c, err, errlen) != 0) {
        free(c);
        return -1;
    }
    g.peers[r].c = c;
    return 0;
}

/* The peer's connection is needed: start one unless one exists or the peer's is coming. */
static int ensure_connection(int r, char *err, int errlen)
{
    peer_t *p = &g.peers[r];
    if (p->c || p->lost_race)
        return 0;
    if (p->closed) {
        snprintf(err, (size_t)errlen, "rank %d (host %s) has already closed its connections",
                 r, peer_host(r));
        return -1;
    }
    return start_connect(r, err, errlen);
}

static void retry_unlink(conn_t *c)
{
    for (conn_t **q = &g.retrying; *q; q = &(*q)->next)
        if (*q == c) {
            *q = c->next;
            return;
        }
}

/* Our attempt was closed before the WELCOME: the acceptor drops connections that do not
 * prove the key in time (we may have been away computing) and evicts the oldest ones in a
 * flood, so a new attempt follows, later and later. Only attempts closed at once, in a row,
 * for the whole give-up time mean a listener that will not take us (another job's, or one
 * with another key). 1, or -1 with the message in err. */
static int retry_later(conn_t *c, const char *why, char *err, int errlen)
{
    peer_t *p = &g.peers[c->peer];
    uint64_t t = now_ms();
    if (t - c->t_start >= give_up_ms())
        c->fails = 0; /* it lived long enough: whatever closed it, it was not refusing us */
    if (c->fails++ == 0)
        c->fail_since = t;
    if (c->fails >= RETRY_GIVE_UP_MIN && t - c->fail_since >= give_up_ms()) {
        char a[64];
        addr_text(&c->remote, a, sizeof a);
        snprintf(err, (size_t)errlen, "cannot open a connection to rank %d (host %s) at %s: "
                 "%d attempts in %d s ended in the handshake (%s; does it have the same job "
                 "key?)", c->peer, p->card.host, a, c->fails,
                 (int)((t - c->fail_since) / 1000), why);
        return -1;
    }
    epoll_ctl(g.ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    g.freed++; /* epoll events may still name c with its old state */
    c->fd = -1;
    c->events = 0;
    c->state = C_RETRY;
    int shift = c->fails < 8 ? c->fails - 1 : 7;
    uint64_t wait = (uint64_t)RETRY_MIN_MS << shift;
    c->retry_at = t + (wait < RETRY_MAX_MS ? wait : RETRY_MAX_MS);
    c->next = g.retrying;
    g.retrying = c;
    return 1;
}

/* Starts the attempts whose time has come. 1 if any did, -1 on failure. */
static int retry_due(char *err, int errlen)
{
    uint64_t t = now_ms();
    int any = 0;
    for (conn_t *c = g.retrying, *next; c; c = next) {
        next = c->next;
        if (t < c->retry_at)
            continue;
        retry_unlink(c);
        c->addr_i = 0;
        if (try_connect(c, err, errlen) != 0)
            return -1;
        any = 1;
    }
    return any;
}

/* Our connection's state changed or has input. 1 progress, 0 none, -1 failure. */
static int connector_event(conn_t *c, uint32_t ev, char *err, int errlen)
{
    peer_t *p = &g.peers[c->peer];
    if (c->state == C_RETRY)
        return 0;
    if (c->state == C_CONNECTING) {
        if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return 0;
        int soerr = 0;
        socklen_t l = sizeof soerr;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (soerr) {
            epoll_ctl(g.ep, EPOLL_CTL_DEL, c->fd, NULL);
            close(c->fd);
            c->fd = -1;
            c->addr_i++;
            return try_connect(c, err, errlen) == 0 ? 1 : -1;
        }
        c->state = C_WAIT_CHALLENGE;
        set_events(c, EPOLLIN);
    }
    const char *bad = NULL;
    if (c->state == C_WAIT_CHALLENGE) {
        int rc = read_exact(c, TCP_CHALLENGE_LEN);
        if (rc == 0)
            return 0;
        if (rc < 0)
            goto closed;
        if ((bad = tcp_challenge_parse(c->hs_in, c->na)) != NULL)
            goto failed;
        if (auth_nonce(c->nc) != 0) {
            bad = "no randomness for a nonce";
            goto failed;
        }
        tcp_hello_encode(c->hs_out, &g.key, (uint32_t)g.rank, (uint32_t)g.size, c->na, c->nc);
        c->hs_len = TCP_HELLO_LEN;
        c->hs_off = c->hs_got = 0;
        c->state = C_WAIT_WELCOME;
        if (write_handshake(c) < 0) {
            c->last_errno = errno;
            goto closed;
        }
    }
    if (c->state == C_WAIT_WELCOME) {
        if (c->hs_off < c->hs_len && write_handshake(c) < 0) {
            c->last_errno = errno;
            goto closed;
        }
        int rc = read_exact(c, TCP_WELCOME_LEN);
        if (rc == 0)
            return 0;
        if (rc < 0)
            goto closed;
        tcp_welcome_t w;
        if ((bad = tcp_welcome_parse(c->hs_in, &g.key, c->nc, c->na, (uint32_t)c->peer, &w)) !=
            NULL)
            goto failed;
        if (w.verdict == TCP_VERDICT_DUPLICATE) { /* the peer's own connection wins */
            if (p->c == c) {
                p->c = NULL;
                p->lost_race = 1;
            }
            conn_free(c);
            return 1;
        }
        c->hs_len = c->hs_off = 0;
        return peer_up(p, c, err, errlen) == 0 ? 1 : -1;
    }
    return 0;
closed:
    /* closed by the acceptor (end of stream, a reset): try again; the kernel gave up on the
     * peer (a timeout, no route): a failure */
    if (c->last_errno == 0 || c->last_errno == ECONNRESET || c->last_errno == EPIPE)
        return retry_later(c, c->last_errno ? strerror(c->last_errno) : "closed by the peer",
                           err, errlen);
    if (c->last_errno == ETIMEDOUT) {
        lost_text(err, errlen, c->peer, ETIMEDOUT);
        return -1;
    }
    bad = strerror(c->last_errno);
failed:;
    char a[64];
    addr_text(&c->remote, a, sizeof a);
    snprintf(err, (size_t)errlen, "cannot open a connection to rank %d (host %s) at %s: %s",
             c->peer, p->card.host, a, bad);
    return -1;
}

/* ---- accepting -------------------------------------------------------------------------- */

/* Takes the connections waiting on listener lfd. At most PENDING_MAX stay unproven at once:
 * beyond, the oldest goes once it had EVICT_GRACE_MS to send its HELLO (a connector that
 * was away computing opens a new connection; a flood's idle ones make room), and until then
 * the newcomers wait in the kernel's queue. Out of descriptors, the oldest unproven one
 * goes, or (none) the waiting connection is taken and closed at once (fdlimit_shed): a
 * flood cannot end the job. */
static int accept_all(int lfd, char *err, int errlen)
{
    (void)err;
    (void)errlen;
    int events = 0;
    for (;;) {
        if (g.npending >= PENDING_MAX) {
            if (now_ms() < g.pending->t_start + EVICT_GRACE_MS)
                return events;
            drop_oldest();
        }
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        int fd = accept4(lfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                if (g.pending) {
                    drop_oldest();
                    continue;
                }
                if (fdlimit_shed(lfd) == 0) {
                    notes_roll(now_ms());
                    if (g.notes < NOTES_MAX) {
                        fprintf(stderr, "metampi: rank %d (host %s): out of descriptors: "
                                "closed a TCP connection at once\n", g.rank, job.hostname);
                        g.notes++;
                    } else {
                        g.notes_held++;
                    }
                    events++;
                    continue;
                }
            }
            return events; /* EAGAIN; ENOBUFS, ENOMEM: later */
        }
        conn_t *c = calloc(1, sizeof *c);
        if (!c || socket_options(fd) != 0 || auth_nonce(c->na) != 0) {
            close(fd);
            free(c);
            continue;
        }
        c->fd = fd;
        c->peer = -1;
        c->remote = from;
        c->state = A_WAIT_HELLO;
        c->t_start = now_ms();
        c->deadline = c->t_start + HELLO_TIMEOUT_MS;
        tcp_challenge_encode(c->hs_out, c->na);
        c->hs_len = TCP_CHALLENGE_LEN;
        if (conn_add(c, EPOLLIN) != 0) {
            close(fd);
            free(c);
            continue;
        }
        pending_push(c);
        if (write_handshake(c) < 0) {
            unlink_pending(c);
            conn_free(c);
        }
        events++;
    }
}

/* Whether an authenticated HELLO from rank q may open the connection (ACCEPT) or loses to
 * ours (DUPLICATE). */
static uint32_t verdict_for(int q)
{
    peer_t *p = &g.peers[q];
    if (!p->c)
        return TCP_VERDICT_ACCEPT;     /* none of ours, or ours lost already */
    if (p->c->state == UP)
        return TCP_VERDICT_DUPLICATE;  /* a stale attempt of the peer's */
    return g.rank < q ? TCP_VERDICT_DUPLICATE : TCP_VERDICT_ACCEPT;
}

static int acceptor_event(conn_t *c, uint32_t ev, char *err, int errlen)
{
    (void)ev;
    if (c->state == A_REFUSING) {
        if (write_handshake(c) != 0) {
            unlink_pending(c);
            conn_free(c);
        }
        return 1;
    }
    if (write_handshake(c) < 0) {
        unlink_pending(c);
        conn_free(c);
        return 1;
    }
    int rc = read_exact(c, TCP_HELLO_LEN);
    if (rc == 0)
        return 0;
    if (rc < 0) { /* e.g. the loser of simultaneous connects: nothing to report */
        unlink_pending(c);
        conn_free(c);
        return 1;
    }
    tcp_hello_t h;
    const char *bad =
        tcp_hello_parse(c->hs_in, &g.key, c->na, (uint32_t)g.size, (uint32_t)g.rank, &h);
    if (bad) {
        drop(c, bad);
        return 1;
    }
    int q = (int)h.rank;
    if (g.host_of[q] == g.host_of[g.rank]) { /* such a rank never comes by TCP: forged */
        char why[96];
        snprintf(why, sizeof why, "it claims to be rank %d, which shares this host", q);
        drop(c, why);
        return 1;
    }
    uint32_t verdict = verdict_for(q);
    tcp_welcome_encode(c->hs_out, &g.key, verdict, (uint32_t)g.rank, h.nonce, c->na);
    c->hs_len = TCP_WELCOME_LEN;
    c->hs_off = 0;
    if (verdict == TCP_VERDICT_DUPLICATE) {
        c->state = A_REFUSING;
        if (write_handshake(c) != 0) {
            unlink_pending(c);
            conn_free(c);
        } else {
            set_events(c, EPOLLOUT);
        }
        return 1;
    }
    unlink_pending(c);
    c->peer = q;
    peer_t *p = &g.peers[q];
    if (p->c) { /* our own attempt loses to the peer's */
        if (p->c->state == C_RETRY)
            retry_unlink(p->c);
        conn_free(p->c);
    }
    if (!p->have_card) { /* only for its host's name in messages */
        char ignored[256];
        fetch_card(q, ignored, sizeof ignored);
    }
    return peer_up(p, c, err, errlen) == 0 ? 1 : -1;
}

/* The pending FIFO is in accept order, and so in deadline order. Runs after the pass's
 * events, so a HELLO that arrived while this rank computed outside MPI is read first. */
static void expire_pending(void)
{
    uint64_t t = now_ms();
    while (g.pending && t > g.pending->deadline)
        drop_quiet(g.pending);
}

/* ---- frames in ---------------------------------------------------------------------------- */

static int peer_readable(int r, char *err, int errlen)
{
    peer_t *p = &g.peers[r];
    int eof = 0;
    int n = tcp_rx_run(&p->rx, p->c->fd, r, &g.rx_ops, FRAMES_PER_POLL, &eof, err, errlen);
    int rx_errno = errno;
    int more = n == FRAMES_PER_POLL;
    g.nbacklog += more - p->backlog;
    p->backlog = more;
    if (tcp_rx_midframe(&p->rx)) {
        /* The peer streams a large frame to us and may be limited by its congestion window:
         * ACK at once rather than after the delayed-ACK timer (the kernel leaves quick-ACK
         * mode by itself, so this is renewed while the frame lasts). */
        int one = 1;
        setsockopt(p->c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    }
    if (n < 0) {
        if (rx_errno == ETIMEDOUT) { /* the kernel gave up: keepalive or retransmissions */
            lost_text(err, errlen, r, ETIMEDOUT);
            return -1;
        }
        size_t l = strlen(err);
        snprintf(err + l, (size_t)errlen - l, " (rank %d on host %s)", r, peer_host(r));
        return -1;
    }
    if (eof) {
        if (!p->rx.bye) {
            snprintf(err, (size_t)errlen,
                     "lost the connection to rank %d (host %s): it ended without MPI_Finalize",
                     r, peer_host(r));
            return -1;
        }
        conn_free(p->c);
        p->c = NULL;
        p->closed = 1;
        tcp_rx_free(&p->rx);
    }
    return n;
}

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
static int listen_and_publish(char *err, int errlen)
{
    g.nlocal = tcp_local_addrs(tun_string(TUN_TCP_IF), g.local, TCP_CARD_MAX_ADDRS, err,
                               errlen);
    if (g.nlocal < 0)
        return -1;
    for (int i = 0; i < g.nlocal; i++)
        g.lfd[i] = -1;
    for (int i = 0; i < g.nlocal; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        g.lfd[i] = fd;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = g.local[i].ip };
        socklen_t al = sizeof a;
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 65535) != 0 ||
            getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
            char ip[INET_ADDRSTRLEN] = "?";
            inet_ntop(AF_INET, &g.local[i].ip, ip, sizeof ip);
            snprintf(err, (size_t)errlen, "cannot listen for TCP connections on %s: %s", ip,
                     strerror(errno));
            return -1;
        }
        g.local[i].port = ntohs(a.sin_port);
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = &g.lfd[i] };
        if (epoll_ctl(g.ep, EPOLL_CTL_ADD, fd, &e) != 0) {
            snprintf(err, (size_t)errlen, "epoll: %s", strerror(errno));
            return -1;
        }
    }
    char card[TCP_CARD_LEN], key[32];
    if (tcp_card_format(job.hostname, g.local, g.nlocal, card) != 0) {
        snprintf(err, (size_t)errlen, "the TCP address list does not fit a card");
        return -1;
    }
    snprintf(key, sizeof key, "tcp.%d", g.rank);
    return job_put(key, card, err, errlen);
}

/* Whether an epoll event names one of our listeners. */
static int listener_of(const void *ptr)
{
    for (int i = 0; i < g.nlocal; i++)
        if (ptr == &g.lfd[i])
            return g.lfd[i];
    return -1;
}

/* This transport's key, from the ranks' key. */
static int use_ranks_key(const auth_key_t *ranks, char *err, int errlen)
{
    if (auth_derive(ranks, AUTH_RANK_TCP, &g.key) != 0) {
        snprintf(err, (size_t)errlen, "cannot derive the TCP transport's key (libcrypto)");
        return -1;
    }
    g.have_key = 1;
    return 0;
}

static int tcp_open(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen)
{
    g.rank = boot->rank;
    g.size = boot->size;
    g.host_of = boot->host_of;
    g.deliver = deliver;
    g.rx_ops = (tcp_rx_ops_t){ .deliver = deliver, .place = boot->place,
                               .place_min = PLACE_MIN, .max_frame = MAX_FRAME };
    g.active = spans_hosts(boot);
    if (!g.active)
        return 0;
    if (liveness_timeout(&g.timeout_s, err, (size_t)errlen) != 0)
        return -1;
    /* a connection per peer and the unproven ones, on top of what the program was given */
    fdlimit_raise(fdlimit_raise(0) + g.size + PENDING_MAX);
    fdlimit_reserve();
    g.peers = calloc((size_t)g.size, sizeof *g.peers);
    g.ep = epoll_create1(EPOLL_CLOEXEC);
    if (!g.peers || g.ep < 0) {
        snprintf(err, (size_t)errlen, "cannot set up the TCP transport: %s", strerror(errno));
        return -1;
    }
    auth_key_t ranks;
    if (rank_key_get(&ranks)) {
        if (use_ranks_key(&ranks, err, errlen) != 0)
            return -1;
    } else if (g.rank == 0) { /* another launcher: share a ranks' key through it */
        char h[AUTH_KEY_HEX + 1];
        if (auth_key_generate(&ranks) != 0) {
            snprintf(err, (size_t)errlen, "no randomness for the job key");
            return -1;
        }
        auth_key_to_hex(&ranks, h);
        if (job_put("tcp.key", h, err, errlen) != 0 || use_ranks_key(&ranks, err, errlen) != 0)
            return -1;
    }
    return listen_and_publish(err, errlen);
}

static int tcp_connect(char *err, int errlen)
{
    if (!g.active || g.have_key)
        return 0;
    char h[AUTH_KEY_HEX + 1];
    auth_key_t ranks;
    int rc = job_get("tcp.key", h, sizeof h, err, errlen);
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
    return g.active && g.host_of[peer] != g.host_of[g.rank];
}

static int frame_check(int dst, size_t len, char *err, int errlen)
{
    if (len == 0 || len > MAX_FRAME) {
        snprintf(err, (size_t)errlen, "tcp: a %zu-byte frame to rank %d (limit %d)", len, dst,
                 MAX_FRAME);
        return -1;
    }
    return 0;
}

static int tcp_send(int dst, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                    char *err, int errlen)
{
    peer_t *p = &g.peers[dst];
    if (ensure_connection(dst, err, errlen) != 0)
        return -1;
    if (p->out.copied >= QUEUE_COPIED_MAX || p->out.borrowed >= QUEUE_BORROWED_MAX)
        return 0;
    size_t len = pk ? pk->len : 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    unsigned char hdr[TCP_FRAME_HDR];
    tcp_frame_hdr_t h = { .len = (uint32_t)len, .kind = TCP_KIND_FRAME,
                          .head_len = iovcnt > 0 && iov[0].iov_len <= TCP_HEAD_MAX
                                          ? (uint8_t)iov[0].iov_len : 0 };
    tcp_frame_hdr_encode(hdr, &h);
    int up = p->c && p->c->state == UP && p->c->hs_off == p->c->hs_len;
    int rc = tcp_outq_frame(&p->out, up ? p->c->fd : -1, hdr, sizeof hdr, iov, iovcnt, pk);
    if (rc == -2) {
        snprintf(err, (size_t)errlen, "lost the connection to rank %d (host %s): %s", dst,
                 peer_host(dst), strerror(errno));
        return -1;
    }
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return peer_flush(p, err, errlen) == 0 ? 1 : -1;
}

static int tcp_send_zc(int dst, const struct iovec *iov, int iovcnt, void (*sent)(void *ctx),
                       void *ctx, char *err, int errlen)
{
    peer_t *p = &g.peers[dst];
    if (ensure_connection(dst, err, errlen) != 0)
        return -1;
    if (p->out.copied >= QUEUE_COPIED_MAX || p->out.borrowed >= QUEUE_BORROWED_MAX)
        return 0;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    size_t head = iovcnt > 0 ? iov[0].iov_len : 0;
    unsigned char hdr[TCP_FRAME_HDR];
    tcp_frame_hdr_t fh = { .len = (uint32_t)len, .kind = TCP_KIND_FRAME,
                           .head_len = head <= TCP_HEAD_MAX ? (uint8_t)head : 0 };
    tcp_frame_hdr_encode(hdr, &fh);
    if (tcp_outq_frame_zc(&p->out, hdr, sizeof hdr, iov, iovcnt,
                          (tcp_completion_t){ sent, ctx }) != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return peer_flush(p, err, errlen) == 0 ? 1 : -1;
}

/* The connections that wait for acknowledgements nobody sends (runtime/liveness.h). */
static int check_silent(char *err, int errlen)
{
    if (g.timeout_s <= 0)
        return 0;
    for (int r = 0; r < g.size; r++) {
        const conn_t *c = g.peers[r].c;
        if (c && c->state == UP && liveness_silent(c->fd, g.timeout_s)) {
            lost_text(err, errlen, r, ETIMEDOUT);
            return -1;
        }
    }
    return 0;
}

static int tcp_progress(char *err, int errlen)
{
    if (!g.active)
        return 0;
    int events = 0;
    if (g.ndone) { /* completions found by flushes since the last call */
        tcp_completion_t d[MAX_COMPLETIONS];
        int n = g.ndone;
        memcpy(d, g.done, (size_t)n * sizeof *d);
        g.ndone = 0;
        for (int i = 0; i < n; i++)
            d[i].sent(d[i].ctx);
        events += n;
    }
    if (g.retrying) {
        int rc = retry_due(err, errlen);
        if (rc < 0)
            return -1;
        events += rc;
    }
    for (int r = 0; g.nbacklog && r < g.size; r++) {
        if (!g.peers[r].backlog || !g.peers[r].c)
            continue;
        int n = peer_readable(r, err, errlen);
        if (n < 0)
            return -1;
        events += n;
    }
    struct epoll_event ev[32];
    int n = epoll_wait(g.ep, ev, 32, 0);
    unsigned freed = g.freed;
    for (int i = 0; i < n && g.freed == freed; i++) {
        /* (a handler that freed a connection may have freed one that a later event names:
         * those events come again from the next epoll_wait) */
        int rc, lfd = listener_of(ev[i].data.ptr);
        if (lfd >= 0) {
            rc = accept_all(lfd, err, errlen);
        } else {
            conn_t *c = ev[i].data.ptr;
            uint32_t e = ev[i].events;
            if (c->state == UP) {
                peer_t *p = &g.peers[c->peer];
                rc = 0;
                if (e & EPOLLOUT)
                    rc = peer_flush(p, err, errlen);
                if (rc == 0 && (e & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                    rc = peer_readable(c->peer, err, errlen);
            } else if (c->peer >= 0 && c->state != A_REFUSING) {
                rc = connector_event(c, e, err, errlen);
            } else {
                rc = acceptor_event(c, e, err, errlen);
            }
        }
        if (rc < 0)
            return -1;
        events += rc;
    }
    if (g.pending)
        expire_pending();
    uint64_t t = coarse_ms();
    if (t >= g.next_check) {
        g.next_check = t + CHECK_MS;
        notes_roll(t);
        if (check_silent(err, errlen) != 0)
            return -1;
    }
    return events;
}

static int tcp_busy(void)
{
    if (!g.active)
        return 0;
    for (int r = 0; r < g.size; r++) {
        const peer_t *p = &g.peers[r];
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
    if (!g.active || max < 1)
        return 0;
    fds[0] = (struct pollfd){ .fd = g.ep, .events = POLLIN };
    return 1;
}

/* Flushes, says BYE and waits (bounded) for each peer's end of stream, so no socket is
 * closed with unread data (which would reset the connection and could lose the peer's last
 * frames). */
static void close_peers(void)
{
    uint64_t until = now_ms() + CLOSE_TIMEOUT_MS;
    char err[256];
    for (int r = 0; r < g.size; r++) {
        peer_t *p = &g.peers[r];
        if (!p->c || p->c->state != UP)
            continue;
        unsigned char bye[TCP_FRAME_HDR];
        tcp_frame_hdr_encode(bye, &(tcp_frame_hdr_t){ .kind = TCP_KIND_BYE });
        unsigned char *b = malloc(sizeof bye);
        if (b) {
            memcpy(b, bye, sizeof bye);
            tcp_outq_push(&p->out, b, sizeof bye, b, (tcp_completion_t){ 0 });
        }
        while (p->out.n && now_ms() < until) {
            g.ndone = 0; /* no completion is run any more */
            if (peer_flush(p, err, sizeof err) != 0)
                break;
            if (p->out.n) {
                struct pollfd f = { .fd = p->c->fd, .events = POLLOUT };
                poll(&f, 1, 10);
            }
        }
        shutdown(p->c->fd, SHUT_WR);
    }
    for (int r = 0; r < g.size; r++) {
        peer_t *p = &g.peers[r];
        while (p->c && p->c->state == UP && now_ms() < until) {
            unsigned char sink[4096];
            ssize_t n = read(p->c->fd, sink, sizeof sink);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                break;
            if (n < 0) {
                struct pollfd f = { .fd = p->c->fd, .events = POLLIN };
                poll(&f, 1, 10);
            }
        }
    }
}

static void tcp_close(void)
{
    if (g.active && g.peers) {
        close_peers();
        for (int r = 0; r < g.size; r++) {
            peer_t *p = &g.peers[r];
            if (p->c)
                conn_free(p->c);
            tcp_outq_free(&p->out);
            tcp_rx_free(&p->rx);
        }
        while (g.pending) {
            conn_t *c = g.pending;
            g.pending = c->next;
            conn_free(c);
        }
        notes_roll(now_ms() + NOTE_WINDOW_MS);
    }
    for (int i = 0; i < g.nlocal; i++)
        if (g.lfd[i] >= 0)
            close(g.lfd[i]);
    if (g.ep >= 0)
        close(g.ep);
    free(g.peers);
    memset(&g, 0, sizeof g);
    g.ep = -1;
}

const transport_t transport_tcp = {
    .name = "tcp",
    .open = tcp_open,
    .connect = tcp_connect,
    .ready = tcp_ready,
    .reaches = tcp_reaches,
    .max_frame = MAX_FRAME,
    .eager_default = EAGER_DEFAULT,
    .chunk_default = CHUNK_DEFAULT,
    .send = tcp_send,
    .send_zc = tcp_send_zc,
    .progress = tcp_progress,
    .prepare_sleep = tcp_sleep_hook,
    .end_sleep = tcp_sleep_hook,
    .pollfds = tcp_pollfds,
    .busy = tcp_busy,
    .close = tcp_close,
};
