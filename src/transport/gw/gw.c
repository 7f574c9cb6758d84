/*
 * The gateway transport: frames to ranks at other sites of a metacomputer, through this
 * site's gateway (metampi-gateway, tools/gateway) when the job runs in gateway mode.
 *
 * Gateway mode: the launcher publishes the gateway of every site in the job's key-value
 * space, "metampi.gw.<site>" = "IP:PORT" (tr_boot_t numbers the sites); without that
 * key for our site (one site, --direct-wan, another launcher) the transport is off and TCP
 * reaches the other sites directly.
 *
 * One connection to our site's gateway carries the frames of every peer at another site, in
 * both directions; each frame's header names its destination and source ranks (wire.h).
 * It is opened in connect() (MPI_Init), retried while the gateway is still starting and
 * while the gateway closes it before its WELCOME (a flood on its port evicts the oldest
 * unproven connections), and authenticated with the key for rank-gateway connections,
 * derived from the ranks' key (net/auth.h, tr_boot_t's ranks_key). Liveness
 * (net/liveness.h): keepalive, and once a second the silent-peer check. Sending and
 * receiving reuse the TCP transport's stream code: framed queues with zero-copy sends (net/outq.h) and the
 * frame reader with placement of large bodies (net/rx.h). Invariant: frames leave in the
 * order send() took them, on one connection, and the gateways keep the order per (source,
 * destination) pair end to end (tools/gateway/link.h), so the transport's per-pair order
 * holds.
 *
 * Flow control: one queue for all remote peers; send() refuses (0) while it holds
 * QUEUE_COPIED_MAX copied or QUEUE_BORROWED_MAX borrowed bytes, and refuses frames for a
 * peer between the gateway's STOP for it and its GO (wire.h): the frames the gateway holds
 * for a peer that does not read pass a bound (tools/gateway/link.h), so the protocol keeps
 * the sends to that peer queued, and this rank's traffic to every other peer goes on.
 *
 * Groups (transport.h): while a group is open, a frame of at most GW_MULTI_ITEM_MAX bytes
 * (header included) is copied into its site's *stage* instead of the queue; a stage is
 * queued as one MULTI frame (wire.h) when the next frame would not fit it (GW_MULTI_MAX),
 * before any other frame to that site (order), and at the group's end — as a plain frame
 * when it holds one. The gateway sends a MULTI's frames on as one WAN frame. A zero-copy
 * send that is staged is a copy: its completion is reported by the next progress().
 *
 * Numbers (docs/dynproc.md, "Several sites"): frames and the HELLO name job-wide numbers,
 * which the gateways know every process by: a process of this part is id_base + its job rank,
 * one of another part peer_id(r) once the layer above grew us (transport.h, "Growing"). A
 * frame from a number not known yet (a child that sends before this parent has met it)
 * waits, copied, in arrival order, until a grow makes it known; progress() delivers it then,
 * before anything newer from the same process (per-pair order).
 *
 * Failures: the end of the gateway's connection without BYE means the gateway died or ended
 * the job (a lost WAN link): the launcher reports that; this rank waits LOST_GRACE_MS for the
 * teardown before it ends the job with its own report. MPI_Finalize (close) flushes, says
 * BYE and waits (bounded) for the gateway's end of stream.
 */
#include "net/gw_wire.h"
#include "net/outq.h"
#include "net/rx.h"
#include "transport/transport.h"

#include "net/clock.h"
#include "net/liveness.h"
#include "runtime/peer_timeout.h"
#include "net/retry.h"
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_FRAME = (4 << 20) + 256,   /* as the TCP transport's */
    EAGER_DEFAULT = 64 << 10,      /* chosen by measurement: docs/sites.md, gateways */
    CHUNK_DEFAULT = 1 << 20,
    RX_BUFFER = 256 << 10,
    PLACE_MIN = 16 << 10,
    QUEUE_COPIED_MAX = 4 << 20,
    QUEUE_BORROWED_MAX = 16 << 20,
    FRAMES_PER_POLL = 64,
    MAX_COMPLETIONS = 256,
    CONNECT_TIMEOUT_MS = 60000,    /* the gateway starts with the ranks: wait for it */
    RETRY_MIN_MS = 20,             /* between attempts, doubling up to */
    RETRY_MAX_MS = 640,
    STEP_MS = 2000,                /* an attempt's connect and CHALLENGE: else another one */
    CLOSE_TIMEOUT_MS = 5000,
    LOST_GRACE_MS = 3000,
    CHECK_MS = 1000,               /* how often the connection is checked for silence */
};

/* The bound of job-wide numbers in frame headers (mpirun's CTL_MAX_RANK_ID). */
#define ID_BOUND ((uint32_t)1 << 30)

/* A frame from a process not known yet (see "Numbers"). */
typedef struct waiting {
    struct waiting *next;
    int id;
    size_t len;
    unsigned char f[];
} waiting_t;

static struct {
    int active;
    int rank, size, site, nsites;
    int part_size;                 /* size before any grow */
    const int *site_of;
    const char *(*site_name)(int site);
    uint32_t usize;
    int fd;
    net_addr_t gw;
    char gw_text[NET_ADDR_TEXT];
    auth_key_t key;
    net_outq_t out;
    net_rx_t rx;
    net_rx_ops_t rx_ops;
    net_completion_t done[MAX_COMPLETIONS];
    int ndone;
    int closed;
    int lost_frame;                /* a frame could not wait: out of memory */
    int grouping;                  /* open groups (nested) */
    unsigned char **stage;         /* per site: GW_FRAME_HDR + GW_MULTI_MAX bytes, or NULL */
    size_t *staged;                /* per site: the inner frames' bytes in it */
    int *staged_n;                 /* per site: how many */
    unsigned char *stopped;        /* per rank: the gateway said STOP and not yet GO */
    tr_deliver_fn deliver;         /* the protocol's */
    tr_place_fn place;             /* the protocol's */
    int id_base;                   /* this part's rank 0's job-wide number */
    int (*peer_id)(int r);         /* after a grow: job rank -> job-wide number, and back */
    int (*peer_of_id)(int id);
    waiting_t *waiting, **waiting_tail;
    int timeout_s;                 /* METAMPI_PEER_TIMEOUT */
    long long next_check;
} g = { .fd = -1 };

/* The job-wide number of job rank r, and the job rank of job-wide number id (-1: unknown). */
static int wire_id(int r)
{
    return g.peer_id ? g.peer_id(r) : g.id_base + r;
}

static int rank_of(int id)
{
    if (g.peer_of_id)
        return g.peer_of_id(id);
    return id >= g.id_base && id - g.id_base < g.size ? id - g.id_base : -1;
}

static int waits(int id)
{
    for (waiting_t *w = g.waiting; w; w = w->next)
        if (w->id == id)
            return 1;
    return 0;
}

/* A frame from the gateway, header first: STOP and GO are ours, the rest the protocol's. */
static void deliver_frame(int id, const void *frame, size_t len)
{
    const unsigned char *f = frame;
    uint8_t kind = gw_frame_kind(f);
    int src = rank_of(id);
    if (kind == GW_KIND_STOP || kind == GW_KIND_GO) {
        if (src >= 0)   /* the gateway stops only frames we sent, to processes we know */
            g.stopped[src] = kind == GW_KIND_STOP;
    } else if (src >= 0 && !waits(id)) {
        g.deliver(src, f + GW_FRAME_HDR, len - GW_FRAME_HDR);
    } else {   /* not known yet: it waits (an allocation failure loses it: see gw_progress) */
        waiting_t *w = malloc(sizeof *w + len);
        if (!w) {
            g.lost_frame = 1;
            return;
        }
        w->next = NULL;
        w->id = id;
        w->len = len;
        memcpy(w->f, f, len);
        *g.waiting_tail = w;
        g.waiting_tail = &w->next;
    }
}

static int place_frame(int id, const void *head, size_t head_len, size_t body_len,
                       tr_sink_t *sink)
{
    int src = rank_of(id);
    return src >= 0 && g.place && !waits(id) ? g.place(src, head, head_len, body_len, sink)
                                             : 0;
}

/* The waiting frames whose senders are known now, in arrival order. */
static int deliver_waiting(void)
{
    int n = 0;
    waiting_t **pw = &g.waiting;
    while (*pw) {
        waiting_t *w = *pw;
        int src = rank_of(w->id);
        int earlier = 0;   /* an older frame of the same sender still waits */
        for (waiting_t *o = g.waiting; o != w && !earlier; o = o->next)
            earlier = o->id == w->id;
        if (src < 0 || earlier) {
            pw = &w->next;
            continue;
        }
        *pw = w->next;
        if (g.waiting_tail == &w->next)
            g.waiting_tail = pw;
        g.deliver(src, w->f + GW_FRAME_HDR, w->len - GW_FRAME_HDR);
        free(w);
        n++;
    }
    return n;
}

static int gw_open(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen)
{
    g.rank = boot->rank;
    g.size = g.part_size = boot->size;
    g.usize = ID_BOUND;
    g.deliver = deliver;
    g.place = boot->place;
    g.id_base = boot->id_base;
    g.waiting_tail = &g.waiting;
    g.rx_ops = (net_rx_ops_t){ .deliver = deliver_frame, .place = place_frame,
                               .place_min = PLACE_MIN, .max_frame = MAX_FRAME,
                               .hdr_len = GW_FRAME_HDR, .parse_hdr = gw_frame_parse_rx,
                               .hdr_ctx = &g.usize, .with_header = 1, .peer = "rank" };
    g.nsites = boot->nsites;
    g.site_of = boot->site_of;
    g.site_name = boot->site_name;
    if (g.nsites < 2)
        return 0;
    if (peer_timeout_read(&g.timeout_s, err, (size_t)errlen) != 0)
        return -1;
    g.site = g.site_of[g.rank];
    char key[48], val[64];
    snprintf(key, sizeof key, "metampi.gw.%d", g.site);
    int rc = boot->kv_get(key, val, sizeof val, err, errlen);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return 0; /* no gateways: --direct-wan, or another launcher */
    const char *why = gw_addr_parse(val, &g.gw);
    if (why) {
        snprintf(err, (size_t)errlen, "the launcher published a bad gateway address %s=\"%s\" "
                 "for site %s: %s", key, val, g.site_name ? g.site_name(g.site) : "?", why);
        return -1;
    }
    snprintf(g.gw_text, sizeof g.gw_text, "%s", val);
    if (!boot->ranks_key) {
        snprintf(err, (size_t)errlen, "gateway mode needs the ranks' key in METAMPI_RANK_KEY "
                 "(%d hex digits), which our mpirun sets", AUTH_KEY_HEX);
        return -1;
    }
    if (auth_derive(boot->ranks_key, AUTH_RANK_GATEWAY, &g.key) != 0) {
        snprintf(err, (size_t)errlen, "cannot derive the key for the gateway (libcrypto)");
        return -1;
    }
    int ns = g.nsites;
    g.stage = calloc((size_t)ns, sizeof *g.stage);
    g.staged = calloc((size_t)ns, sizeof *g.staged);
    g.staged_n = calloc((size_t)ns, sizeof *g.staged_n);
    g.stopped = calloc((size_t)g.size, 1);
    if (net_rx_init(&g.rx, RX_BUFFER) != 0 || !g.stage || !g.staged || !g.staged_n ||
        !g.stopped) {
        snprintf(err, (size_t)errlen, "out of memory for the gateway connection");
        return -1;
    }
    g.active = 1;
    return 0;
}

/* One attempt: connect and prove the key. 1 up; 0 try again: the gateway is not listening
 * yet, or closed the connection before its WELCOME (it may be starting, or evicting unproven
 * connections in a flood), or the connection or the CHALLENGE took longer than STEP_MS (in a
 * flood its accept queue overflows and its kernel, having dropped our ACK, offers the
 * connection again only seconds later), with why in err; -1 failed (err). */
static int attempt(long long deadline, char *err, int errlen)
{
    long long step = net_now_ms() + STEP_MS;
    if (step > deadline)
        step = deadline;
    int fd = net_socket_for(&g.gw, 0);
    if (fd < 0 || net_stream_options(fd, g.timeout_s) != 0) {
        snprintf(err, (size_t)errlen, "cannot make a socket: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = connect(fd, &g.gw.u.sa, g.gw.len);
    if (rc != 0 && errno == EINPROGRESS) {
        int soerr = 0;
        socklen_t l = sizeof soerr;
        if (net_wait(fd, POLLOUT, step) != 0)
            soerr = ETIMEDOUT;
        else
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        rc = soerr ? -1 : 0;
        errno = soerr;
    }
    if (rc != 0) {
        int e = errno;
        close(fd);
        if (e == ECONNREFUSED || e == ENETUNREACH || e == EHOSTUNREACH)
            return 0;
        if (e == ETIMEDOUT) {
            snprintf(err, (size_t)errlen, "the connection attempts timed out");
            return 0;
        }
        snprintf(err, (size_t)errlen, "%s", strerror(e));
        return -1;
    }
    unsigned char ch[GW_CHALLENGE_LEN], na[AUTH_NONCE], nc[AUTH_NONCE];
    unsigned char hello[GW_HELLO_LEN], wel[GW_WELCOME_LEN];
    const char *bad = NULL, *again = NULL;
    if (net_read_full(fd, ch, sizeof ch, step) != 0)
        again = net_now_ms() >= step ? "it took the connection but did not answer"
                                     : "it closed the connection at once";
    else if ((bad = gw_challenge_parse(ch, na)) == NULL) {
        if (auth_nonce(nc) != 0) {
            bad = "no randomness for a nonce";
        } else {
            /* our job-wide number, and the numbers we know of: the first ones up to our
             * part's last (the gateway knows at least those) */
            gw_hello_encode(hello, &g.key, GW_ROLE_RANK, (uint32_t)wire_id(g.rank),
                            (uint32_t)(g.id_base + g.part_size), na, nc);
            struct iovec v = { hello, sizeof hello };
            if (net_sendv(fd, &v, 1) != (long)sizeof hello)
                again = "cannot send the hello";
            else if (net_read_full(fd, wel, sizeof wel, deadline) != 0)
                again = "it refused this rank (another job key?)";
            else
                bad = gw_welcome_parse(wel, &g.key, nc, na, (uint32_t)g.site);
        }
    }
    if (bad || again) {
        close(fd);
        snprintf(err, (size_t)errlen, "%s", bad ? bad : again);
        return bad ? -1 : 0;
    }
    liveness_opening(fd, g.timeout_s, 0);
    g.fd = fd;
    return 1;
}

static int gw_connect(char *err, int errlen)
{
    if (!g.active)
        return 0;
    long long deadline = net_now_ms() + CONNECT_TIMEOUT_MS;
    net_retry_t retry = { .min_ms = RETRY_MIN_MS, .max_ms = RETRY_MAX_MS };
    char why[200];
    for (;;) {
        snprintf(why, sizeof why, "it does not listen");
        int rc = attempt(deadline, why, sizeof why);
        if (rc == 1)
            return 0;
        if (rc < 0 || net_now_ms() >= deadline)
            break;
        long long ms = net_retry_failed(&retry, net_now_ms());
        struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
    snprintf(err, (size_t)errlen, "cannot connect to the gateway of site %s at %s: %s",
             g.site_name(g.site), g.gw_text, why);
    return -1;
}

static int gw_ready(char *err, int errlen)
{
    (void)err;
    (void)errlen;
    return 0;
}

static int gw_reaches(int peer)
{
    return g.active && peer < g.size && g.site_of[peer] != g.site;
}

static int lost(const char *why, char *err, int errlen)
{
    /* The gateway's end is the launcher's to report (a lost WAN link, a gateway that died):
     * give its teardown time to reach us first. */
    struct timespec ts = { LOST_GRACE_MS / 1000, (LOST_GRACE_MS % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    snprintf(err, (size_t)errlen, "lost the connection to the gateway of site %s (%s): %s",
             g.site_name(g.site), g.gw_text, why);
    return -1;
}

static int silent(char *err, int errlen)
{
    if (g.timeout_s <= 0)
        return lost(strerror(ETIMEDOUT), err, errlen);
    char why[128];
    snprintf(why, sizeof why, "no answer for %d s (its host is down or unreachable; %s)",
             g.timeout_s, LIVENESS_ENV);
    return lost(why, err, errlen);
}

static int flush(char *err, int errlen)
{
    int nout;
    int rc = net_outq_flush(&g.out, g.fd, g.done + g.ndone, MAX_COMPLETIONS - g.ndone, &nout);
    g.ndone += nout;
    if (rc < 0)
        return lost(strerror(errno), err, errlen);
    return 0;
}

static int frame_check(int dst, size_t len, char *err, int errlen)
{
    if (len == 0 || len > MAX_FRAME) {
        snprintf(err, (size_t)errlen, "gw: a %zu-byte frame to rank %d (limit %d)", len, dst,
                 MAX_FRAME);
        return -1;
    }
    return 0;
}

static void header(unsigned char hdr[GW_FRAME_HDR], int dst, size_t len, size_t head)
{
    gw_frame_encode(hdr, &(gw_frame_t){ .len = (uint32_t)len, .kind = GW_KIND_FRAME,
                                        .head_len = head <= NET_HEAD_MAX ? (uint8_t)head : 0,
                                        .dst = (uint32_t)wire_id(dst),
                                        .src = (uint32_t)wire_id(g.rank) });
}

static int full(void)
{
    return g.out.copied >= QUEUE_COPIED_MAX || g.out.borrowed >= QUEUE_BORROWED_MAX;
}

/* Queues site t's stage: a MULTI of its frames, or the frame itself when it is alone. */
static int unstage(int t, char *err, int errlen)
{
    unsigned char *b = g.stage[t];
    if (!b || !g.staged_n[t])
        return 0;
    size_t n = g.staged[t];
    int one = g.staged_n[t] == 1;
    if (!one) {
        gw_frame_t first;
        gw_frame_parse(b + GW_FRAME_HDR, MAX_FRAME, g.usize, &first);
        gw_frame_encode(b, &(gw_frame_t){ .len = (uint32_t)n, .kind = GW_KIND_MULTI,
                                          .dst = first.dst,
                                          .src = (uint32_t)wire_id(g.rank) });
    }
    g.stage[t] = NULL;
    g.staged[t] = 0;
    g.staged_n[t] = 0;
    size_t at = one ? GW_FRAME_HDR : 0;
    if (net_outq_push(&g.out, b + at, n + GW_FRAME_HDR - at, b, (net_completion_t){ 0 }) != 0) {
        free(b);
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return 0;
}

/* While a group is open: 1 when the frame (len bytes after its header; iov then packer) went
 * into its site's stage, 0 when it goes to the queue as usual (after the stage: order), -1
 * failed. may: whether it may be staged at all. */
static int stage(int dst, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                 size_t len, int may, char *err, int errlen)
{
    if (!g.grouping)
        return 0;
    int t = g.site_of[dst];
    if (!may || GW_FRAME_HDR + len > GW_MULTI_ITEM_MAX)
        return unstage(t, err, errlen) == 0 ? 0 : -1;
    if (g.staged[t] + GW_FRAME_HDR + len > GW_MULTI_MAX && unstage(t, err, errlen) != 0)
        return -1;
    if (!g.stage[t] && !(g.stage[t] = malloc(GW_FRAME_HDR + GW_MULTI_MAX))) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    unsigned char *w = g.stage[t] + GW_FRAME_HDR + g.staged[t];
    header(w, dst, len, iovcnt > 0 ? iov[0].iov_len : 256);
    w += GW_FRAME_HDR;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(w, iov[i].iov_base, iov[i].iov_len);
        w += iov[i].iov_len;
    }
    for (size_t done = 0; pk && done < pk->len;)
        done += pk->pack(pk->ctx, w + done, pk->len - done);
    g.staged[t] += GW_FRAME_HDR + len;
    g.staged_n[t]++;
    return 1;
}

static void gw_group_begin(void)
{
    if (g.active)
        g.grouping++;
}

static int gw_group_end(char *err, int errlen)
{
    if (!g.active || !g.grouping || --g.grouping)
        return 0;
    for (int t = 0; t < g.nsites; t++)
        if (unstage(t, err, errlen) != 0)
            return -1;
    return g.out.n ? flush(err, errlen) : 0;
}

static int gw_send(int dst, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                   char *err, int errlen)
{
    if (full() || g.stopped[dst])
        return 0;
    size_t len = pk ? pk->len : 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    int st = stage(dst, iov, iovcnt, pk, len, 1, err, errlen);
    if (st != 0)
        return st;
    unsigned char hdr[GW_FRAME_HDR];
    header(hdr, dst, len, iovcnt > 0 ? iov[0].iov_len : 256);
    int rc = net_outq_frame(&g.out, g.fd, hdr, sizeof hdr, iov, iovcnt, pk);
    if (rc == -2)
        return lost(strerror(errno), err, errlen);
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return flush(err, errlen) == 0 ? 1 : -1;
}

static int gw_send_zc(int dst, const struct iovec *iov, int iovcnt, void (*sent)(void *ctx),
                      void *ctx, char *err, int errlen)
{
    if (full() || g.stopped[dst])
        return 0;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (frame_check(dst, len, err, errlen) != 0)
        return -1;
    /* staged: a copy, whose completion the next progress() reports */
    int st = stage(dst, iov, iovcnt, NULL, len, g.ndone < MAX_COMPLETIONS, err, errlen);
    if (st < 0)
        return -1;
    if (st > 0) {
        g.done[g.ndone++] = (net_completion_t){ sent, ctx };
        return 1;
    }
    unsigned char hdr[GW_FRAME_HDR];
    header(hdr, dst, len, iovcnt > 0 ? iov[0].iov_len : 256);
    if (net_outq_frame_zc(&g.out, hdr, sizeof hdr, iov, iovcnt,
                          (net_completion_t){ sent, ctx }) != 0) {
        snprintf(err, (size_t)errlen, "out of memory queuing a frame");
        return -1;
    }
    return flush(err, errlen) == 0 ? 1 : -1;
}

static int gw_progress(char *err, int errlen)
{
    if (!g.active || g.closed)
        return 0;
    int events = deliver_waiting();
    if (g.lost_frame) {
        snprintf(err, (size_t)errlen, "gw: out of memory keeping a frame from a process not "
                 "known yet");
        return -1;
    }
    if (g.ndone) {
        net_completion_t d[MAX_COMPLETIONS];
        int n = g.ndone;
        memcpy(d, g.done, (size_t)n * sizeof *d);
        g.ndone = 0;
        for (int i = 0; i < n; i++)
            d[i].sent(d[i].ctx);
        events += n;
    }
    if (g.out.n && flush(err, errlen) != 0)
        return -1;
    int eof = 0;
    /* (frames left in the buffer when the budget runs out make this return nonzero, so the
     * progress engine comes back before it sleeps) */
    int n = net_rx_run(&g.rx, g.fd, -1, &g.rx_ops, FRAMES_PER_POLL, &eof, err, errlen);
    int e = errno;
    if (net_rx_midframe(&g.rx)) { /* see the TCP transport: ACK a streamed frame at once */
        int one = 1;
        setsockopt(g.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    }
    if (n < 0) {
        if (strstr(err, "malformed"))
            return -1;
        if (e == ETIMEDOUT) /* the kernel gave up: keepalive or retransmissions */
            return silent(err, errlen);
        return lost(strerror(e), err, errlen);
    }
    if (eof)
        return lost(g.rx.bye ? "it ended the connection" : "it closed the connection",
                    err, errlen);
    long long t = net_coarse_ms();
    if (t >= g.next_check) {
        g.next_check = t + CHECK_MS;
        if (liveness_silent(g.fd, g.timeout_s))
            return silent(err, errlen);
    }
    return events + n;
}

/* Processes of other parts (transport.h, "Growing"): those at another site go through the
 * gateway, which mpirun told about them before they started (docs/dynproc.md). */
static int gw_grow(const tr_boot_t *boot, char *err, int errlen)
{
    if (!g.active || boot->size <= g.size)
        return 0;
    unsigned char *st = realloc(g.stopped, (size_t)boot->size);
    if (!st) {
        snprintf(err, (size_t)errlen, "out of memory for %d processes", boot->size);
        return -1;
    }
    memset(st + g.size, 0, (size_t)(boot->size - g.size));
    g.stopped = st;
    g.site_of = boot->site_of;
    g.peer_id = boot->peer_id;
    g.peer_of_id = boot->peer_of_id;
    g.size = boot->size;
    return 0;
}

static int gw_busy(void)
{
    return g.active && !g.closed && g.out.n;
}

static void gw_sleep_hook(void)
{
}

static int gw_pollfds(struct pollfd *fds, int max)
{
    if (!g.active || g.closed || max < 1)
        return 0;
    fds[0] = (struct pollfd){ .fd = g.fd, .events = (short)(POLLIN | (g.out.n ? POLLOUT : 0)) };
    return 1;
}

static void gw_close(void)
{
    if (g.active && g.fd >= 0) {
        long long until = net_now_ms() + CLOSE_TIMEOUT_MS;
        unsigned char bye[GW_FRAME_HDR];
        gw_frame_encode(bye, &(gw_frame_t){ .kind = GW_KIND_BYE });
        struct iovec v = { bye, sizeof bye };
        net_outq_push_copy(&g.out, &v, 1, 0);
        g.ndone = 0; /* no completion runs any more */
        net_outq_drain(&g.out, g.fd, until);
        shutdown(g.fd, SHUT_WR);
        net_drain_to_eof(g.fd, until);
        close(g.fd);
    }
    net_outq_free(&g.out);
    net_rx_free(&g.rx);
    for (int t = 0; g.stage && t < g.nsites; t++)
        free(g.stage[t]);
    free(g.stage);
    free(g.staged);
    free(g.staged_n);
    free(g.stopped);
    while (g.waiting) {
        waiting_t *w = g.waiting;
        g.waiting = w->next;
        free(w);
    }
    memset(&g, 0, sizeof g);
    g.fd = -1;
}

const transport_t transport_gw = {
    .name = "gw",
    .open = gw_open,
    .connect = gw_connect,
    .ready = gw_ready,
    .reaches = gw_reaches,
    .max_frame = MAX_FRAME,
    .eager_default = EAGER_DEFAULT,
    .chunk_default = CHUNK_DEFAULT,
    .send = gw_send,
    .send_zc = gw_send_zc,
    .progress = gw_progress,
    .prepare_sleep = gw_sleep_hook,
    .end_sleep = gw_sleep_hook,
    .pollfds = gw_pollfds,
    .busy = gw_busy,
    .group_begin = gw_group_begin,
    .group_end = gw_group_end,
    .grow = gw_grow,
    .close = gw_close,
};
