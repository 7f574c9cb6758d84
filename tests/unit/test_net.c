/* The network library's mechanics on real sockets (the handshake's messages: test_net_
 * handshake.c):
 *   - framing: the plain header's parser; the reader cutting a stream fed one byte at a time
 *     into frames, with a body placed into scattered memory and a frame larger than its
 *     buffer; the writer over a socket whose buffer is smaller than the frames (partial
 *     writes), every byte arriving in order and every completion reported once, after its
 *     bytes; the drain at the end bounded by its deadline when the peer reads nothing;
 *   - the handshake's I/O: a message read in pieces and never a byte beyond it, a message
 *     written into a full socket and finished later;
 *   - the acceptor: the cap and the grace, the deadline, and out of descriptors (EMFILE) the
 *     oldest unproven connection evicted, or (none) the waiting one shed with the spare
 *     descriptor, or nothing without one — never a connection left on the queue to spin on;
 *   - notes, retries, addresses, bounded reads, congestion-control names. */
#include "net/accept.h"
#include "net/clock.h"
#include "net/fdlimit.h"
#include "net/frame.h"
#include "net/hsio.h"
#include "net/notes.h"
#include "net/outq.h"
#include "net/retry.h"
#include "net/rx.h"
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

static void pair(int sv[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
        perror("socketpair");
        exit(2);
    }
}

/* ---- framing ------------------------------------------------------------------------------ */

static void test_frame_header(void)
{
    unsigned char b[NET_FRAME_HDR];
    net_frame_hdr_t h;
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .len = 1000, .head_len = 24 });
    EXPECT(net_frame_hdr_parse(b, 1000, &h) == NULL && h.len == 1000 && h.head_len == 24 &&
           h.kind == NET_KIND_FRAME && h.src == -1);
    EXPECT(net_frame_hdr_parse(b, 999, &h) != NULL);            /* beyond the maximum */
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .len = 10, .head_len = 11 });
    EXPECT(net_frame_hdr_parse(b, 1000, &h) != NULL);           /* head beyond the frame */
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .kind = NET_KIND_BYE });
    EXPECT(net_frame_hdr_parse(b, 1000, &h) == NULL && h.kind == NET_KIND_BYE);
    b[0] = 1;
    EXPECT(net_frame_hdr_parse(b, 1000, &h) != NULL);           /* a BYE with a body */
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .len = 0 });
    EXPECT(net_frame_hdr_parse(b, 1000, &h) != NULL);           /* empty */
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .len = 5, .kind = 7 });
    EXPECT(net_frame_hdr_parse(b, 1000, &h) != NULL);           /* unknown kind */
    net_frame_hdr_encode(b, &(net_frame_hdr_t){ .len = 5 });
    b[6] = 1;
    EXPECT(net_frame_hdr_parse(b, 1000, &h) != NULL);           /* reserved bytes */
}

/* What the reader delivered and placed. */
static struct {
    int frames, placed, bad;
    size_t bytes;
    unsigned char body[70000];
    size_t body_at;
} got;

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + 3);
}

static void deliver(int src, const void *frame, size_t len)
{
    const unsigned char *f = frame;
    if (src != 5)
        got.bad++;
    for (size_t i = 0; i < len; i++)
        if (f[i] != pattern(i))
            got.bad++;
    got.frames++;
    got.bytes += len;
}

/* The body in pieces of 1000 bytes into got.body, in order. */
static int sink_next(void *ctx, struct iovec *iov, int max, size_t bytes)
{
    (void)ctx;
    (void)max;
    iov[0] = (struct iovec){ got.body + got.body_at, bytes < 1000 ? bytes : 1000 };
    got.body_at += iov[0].iov_len;
    return 1;
}

static void sink_done(void *ctx)
{
    (void)ctx;
    got.placed++;
}

static int place(int src, const void *head, size_t head_len, size_t body_len, net_sink_t *s)
{
    (void)src;
    (void)body_len;
    if (head_len != 4 || memcmp(head, "\x03\x0a\x11\x18", 4) != 0)
        return 0;
    got.body_at = 0;
    *s = (net_sink_t){ sink_next, sink_done, NULL };
    return 1;
}

static void frame(unsigned char *out, size_t *n, size_t len, uint8_t head_len)
{
    net_frame_hdr_encode(out + *n, &(net_frame_hdr_t){ .len = (uint32_t)len,
                                                       .head_len = head_len });
    *n += NET_FRAME_HDR;
    for (size_t i = 0; i < len; i++)
        out[(*n)++] = pattern(i);
}

/* A stream of a small frame, a frame whose body is placed, a frame larger than the reader's
 * buffer and a BYE, fed through a socket one byte at a time, then all at once. */
static void test_reader(void)
{
    static unsigned char s[200000];
    size_t n = 0;
    frame(s, &n, 100, 0);
    frame(s, &n, 60004, 4);   /* head 03 0a 11 18: placed */
    frame(s, &n, 9000, 0);    /* more than the 4 KiB buffer */
    net_frame_hdr_encode(s + n, &(net_frame_hdr_t){ .kind = NET_KIND_BYE });
    n += NET_FRAME_HDR;
    net_rx_ops_t ops = { .deliver = deliver, .place = place, .place_min = 1000,
                         .max_frame = 100000, .peer = "peer" };
    for (int whole = 0; whole < 2; whole++) {
        memset(&got, 0, sizeof got);
        int sv[2];
        pair(sv);
        net_rx_t rx;
        EXPECT(net_rx_init(&rx, 4096) == 0);
        char err[256];
        int eof = 0, frames = 0;
        for (size_t at = 0; at < n;) {
            size_t k = whole ? n - at : 1;
            ssize_t w = write(sv[0], s + at, k);
            if (w > 0)
                at += (size_t)w;
            int r = net_rx_run(&rx, sv[1], 5, &ops, 1000, &eof, err, sizeof err);
            EXPECT(r >= 0);
            frames += r > 0 ? r : 0;
        }
        close(sv[0]);
        while (!eof) {
            int r = net_rx_run(&rx, sv[1], 5, &ops, 1000, &eof, err, sizeof err);
            EXPECT(r >= 0);
            if (r < 0)
                break;
            frames += r;
        }
        EXPECT(frames == 3 && got.frames == 2 && got.placed == 1 && !got.bad);
        EXPECT(got.bytes == 100 + 9000 && got.body_at == 60000 && rx.bye);
        for (size_t i = 0; i < 60000; i++)
            if (got.body[i] != pattern(i + 4)) {
                got.bad++;
                break;
            }
        EXPECT(!got.bad && !net_rx_midframe(&rx));
        net_rx_free(&rx);
        close(sv[1]);
    }
    /* a stream cut in a frame's middle, and a malformed header, are errors naming the peer */
    memset(&got, 0, sizeof got);
    net_rx_t rx;
    char err[256];
    EXPECT(net_rx_init(&rx, 4096) == 0);
    EXPECT(net_rx_feed(&rx, s, 50, 7, 5, &ops, err, sizeof err) < 0 &&
           strstr(err, "peer 5 closed the connection in the middle of a frame"));
    net_rx_free(&rx);
    EXPECT(net_rx_init(&rx, 4096) == 0);
    unsigned char bad[NET_FRAME_HDR] = { 1, 0, 0, 0, 0, 9, 0, 0 };
    EXPECT(net_rx_feed(&rx, bad, sizeof bad, 3, 5, &ops, err, sizeof err) < 0 &&
           strstr(err, "malformed stream from peer 5"));
    net_rx_free(&rx);
}

static int completions[8], ncompletions;
static size_t written_when[8], queued_total;
static const net_outq_t *watched;

/* Reported from our flush loop: how much of the stream had left the queue by then. */
static void sent(void *ctx)
{
    int i = (int)(long)ctx;
    completions[ncompletions++] = i;
    written_when[i] = queued_total - (watched->copied + watched->borrowed);
}

/* A frame of more iovecs than outq writes from the caller's memory (16): every byte arrives,
 * in order, small (one gathered send) and large (queued copy). */
static void test_many_iovecs(void)
{
    for (int big = 0; big < 2; big++) {
        int sv[2];
        pair(sv);
        enum { N = 20 };
        size_t each = big ? 4000 : 8;
        static unsigned char data[N][4000];
        struct iovec v[N];
        for (int i = 0; i < N; i++) {
            memset(data[i], 'a' + i, each);
            v[i] = (struct iovec){ data[i], each };
        }
        net_outq_t q = { 0 };
        unsigned char hdr[NET_FRAME_HDR];
        net_frame_hdr_encode(hdr, &(net_frame_hdr_t){ .len = (uint32_t)(N * each) });
        EXPECT(net_outq_frame(&q, sv[0], hdr, NET_FRAME_HDR, v, N, NULL) == 0);
        static unsigned char in[NET_FRAME_HDR + N * 4000];
        size_t want = NET_FRAME_HDR + N * each, got = 0;
        while (got < want) {
            net_completion_t done[4];
            int nd = 0;
            EXPECT(net_outq_flush(&q, sv[0], done, 4, &nd) >= 0);
            ssize_t r = read(sv[1], in + got, want - got);
            if (r > 0)
                got += (size_t)r;
        }
        for (int i = 0; i < N; i++)
            for (size_t b = 0; b < each; b++)
                EXPECT(in[NET_FRAME_HDR + (size_t)i * each + b] == 'a' + i);
        EXPECT(q.n == 0);
        net_outq_free(&q);
        close(sv[0]);
        close(sv[1]);
    }
}

/* Frames larger than the socket's buffer: written in pieces as the peer reads, each byte
 * once and in order, zero-copy frames reported once their last byte is written. */
static void test_writer(void)
{
    int sv[2];
    pair(sv);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    static unsigned char big[3][50000];
    for (int f = 0; f < 3; f++)
        for (size_t i = 0; i < sizeof big[f]; i++)
            big[f][i] = (unsigned char)(f * 31 + i);
    net_outq_t q = { 0 };
    unsigned char hdr[3][NET_FRAME_HDR];
    size_t expect = 0;
    for (int f = 0; f < 3; f++) {
        net_frame_hdr_encode(hdr[f], &(net_frame_hdr_t){ .len = sizeof big[f] });
        struct iovec v[2] = { { big[f], 10 }, { big[f] + 10, sizeof big[f] - 10 } };
        if (f == 1) /* copied, and written straight from our memory as far as it goes */
            EXPECT(net_outq_frame(&q, sv[0], hdr[f], NET_FRAME_HDR, v, 2, NULL) == 0);
        else /* borrowed: reported when written */
            EXPECT(net_outq_frame_zc(&q, hdr[f], NET_FRAME_HDR, v, 2,
                                     (net_completion_t){ sent, (void *)(long)f }) == 0);
        expect += NET_FRAME_HDR + sizeof big[f];
    }
    EXPECT(q.borrowed > 0 && q.copied > 0);
    static unsigned char in[200000];
    ncompletions = 0;
    size_t total_read = 0;
    watched = &q;
    queued_total = expect;
    int flushes = 0;
    while (total_read < expect) {
        net_completion_t done[8];
        int nd = 0;
        int rc = net_outq_flush(&q, sv[0], done, 8, &nd);
        EXPECT(rc >= 0);
        flushes++;
        for (int i = 0; i < nd; i++)
            done[i].sent(done[i].ctx);
        ssize_t r = read(sv[1], in + total_read, sizeof in - total_read);
        if (r > 0)
            total_read += (size_t)r;
    }
    EXPECT(flushes > 3);          /* the socket took the frames in pieces */
    EXPECT(q.n == 0 && q.copied == 0 && q.borrowed == 0);
    EXPECT(ncompletions == 2 && completions[0] == 0 && completions[1] == 2);
    /* a frame is reported only once all of it is written */
    EXPECT(written_when[0] >= NET_FRAME_HDR + sizeof big[0]);
    EXPECT(written_when[2] == expect);
    size_t at = 0;
    for (int f = 0; f < 3; f++) {
        net_frame_hdr_t h;
        EXPECT(net_frame_hdr_parse(in + at, 100000, &h) == NULL && h.len == sizeof big[f]);
        at += NET_FRAME_HDR;
        EXPECT(memcmp(in + at, big[f], sizeof big[f]) == 0);
        at += sizeof big[f];
    }
    /* the end of a connection whose peer reads nothing: bounded by the deadline */
    for (int f = 0; f < 3; f++) {
        struct iovec v = { big[f], sizeof big[f] };
        net_outq_push_copy(&q, &v, 1, 0);
    }
    long long t0 = net_now_ms();
    EXPECT(net_outq_drain(&q, sv[0], t0 + 200) == 0);
    long long took = net_now_ms() - t0;
    EXPECT(took >= 190 && took < 2000);
    net_outq_free(&q);
    close(sv[0]);
    close(sv[1]);
}

/* ---- the handshake's I/O ------------------------------------------------------------------ */

static void test_hsio(void)
{
    int sv[2];
    pair(sv);
    net_hs_io_t a = { 0 }, b = { 0 };
    const char msg[] = "0123456789abcdefghij";   /* 20 bytes, then frames */
    EXPECT(net_hs_read(&b, sv[1], 20) == 0);    /* nothing yet */
    for (int i = 0; i < 19; i++) {
        EXPECT(write(sv[0], msg + i, 1) == 1);
        EXPECT(net_hs_read(&b, sv[1], 20) == 0 && b.got == (size_t)i + 1);
    }
    EXPECT(write(sv[0], msg + 19, 1) == 1 && write(sv[0], "FRAMES", 6) == 6);
    EXPECT(net_hs_read(&b, sv[1], 20) == 1 && memcmp(b.in, msg, 20) == 0);
    char rest[8];
    EXPECT(read(sv[1], rest, sizeof rest) == 6 && memcmp(rest, "FRAMES", 6) == 0);
    /* a message into a full socket: the rest goes with net_hs_flush once there is room */
    unsigned char fill[65536];
    memset(fill, 'x', sizeof fill);
    while (write(sv[0], fill, sizeof fill) > 0)
        ;
    unsigned char m[NET_HS_MSG_MAX];
    for (size_t i = 0; i < sizeof m; i++)
        m[i] = (unsigned char)i;
    EXPECT(net_hs_send(&a, sv[0], m, sizeof m) == 0 && net_hs_sending(&a));
    /* the reader takes what is there, then the rest is flushed, then the reader takes all:
     * what it got ends with our message, whole */
    unsigned char last[sizeof m], sink[65536];
    size_t total = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            EXPECT(total > 0 && net_hs_flush(&a, sv[0]) == 1 && !net_hs_sending(&a));
            close(sv[0]);
        }
        for (;;) {
            ssize_t r = read(sv[1], sink, sizeof sink);
            if (r <= 0)
                break;
            total += (size_t)r;
            size_t k = (size_t)r < sizeof m ? (size_t)r : sizeof m;
            memmove(last, last + k, sizeof m - k);
            memcpy(last + sizeof m - k, sink + r - k, k);
        }
    }
    EXPECT(total > sizeof m && memcmp(last, m, sizeof m) == 0);
    net_hs_io_t c = { 0 };
    EXPECT(net_hs_read(&c, sv[1], 4) == -1 && c.last_errno == 0);  /* end of stream */
    close(sv[1]);
}

/* ---- the acceptor ------------------------------------------------------------------------- */

typedef struct conn {
    int fd;
    net_pending_t p;
} conn_t;

static int dropped[2];

static void drop(void *ctx, net_pending_t *p, enum net_drop_why why)
{
    (void)ctx;
    conn_t *c = p->owner;
    dropped[why]++;
    close(c->fd);
    c->fd = -1;
}

static int listener(net_addr_t *a)
{
    EXPECT(net_addr_parse("127.0.0.1:0", NET_ADDR_NUMERIC | NET_ADDR_PORT_ZERO, 0, a, NULL,
                          0) == NULL);
    int l = net_listen(a, 256, 0);
    EXPECT(l >= 0 && net_addr_port(a) != 0);
    return l;
}

static int dial(const net_addr_t *a)
{
    int fd = net_socket_for(a, 1);
    connect(fd, &a->u.sa, a->len);
    return fd;
}

/* The next connection net_accept gives, waiting up to 1 s for one to arrive. */
static int next(net_acceptor_t *acc, int l, long long now)
{
    struct sockaddr_in from;
    for (int i = 0; i < 100; i++) {
        socklen_t fl = sizeof from;
        int fd = net_accept(acc, l, (struct sockaddr *)&from, &fl, now);
        if (fd != NET_ACCEPT_NONE)
            return fd;
        struct pollfd p = { .fd = l, .events = POLLIN };
        poll(&p, 1, 10);
    }
    return NET_ACCEPT_NONE;
}

static void test_acceptor_caps(void)
{
    net_addr_t a;
    int l = listener(&a);
    net_acceptor_t acc = { .max = 3, .grace_ms = 250, .hello_ms = 1000, .drop = drop };
    conn_t c[5];
    int clients[5];
    memset(dropped, 0, sizeof dropped);
    for (int i = 0; i < 5; i++)
        clients[i] = dial(&a);
    long long t0 = 1000000;
    for (int i = 0; i < 3; i++) {
        c[i].fd = next(&acc, l, t0 + i);
        EXPECT(c[i].fd >= 0);
        net_pending_push(&acc, &c[i].p, &c[i], t0 + i);
    }
    EXPECT(next(&acc, l, t0 + 100) == NET_ACCEPT_WAIT);     /* at the cap, within the grace */
    EXPECT(net_accept_resume_at(&acc) == t0 + 250);
    c[3].fd = next(&acc, l, t0 + 250);                       /* the oldest makes room */
    EXPECT(c[3].fd >= 0 && dropped[NET_DROP_EVICTED] == 1 && c[0].fd == -1);
    net_pending_push(&acc, &c[3].p, &c[3], t0 + 250);
    net_pending_remove(&acc, &c[2].p);                       /* proven */
    EXPECT(acc.n == 2);
    net_pending_expire(&acc, t0 + 1002);                     /* c[1]'s deadline passed */
    EXPECT(dropped[NET_DROP_LATE] == 1 && c[1].fd == -1 && acc.n == 1 && c[3].fd >= 0);
    net_pending_expire(&acc, t0 + 1251);
    EXPECT(dropped[NET_DROP_LATE] == 2 && acc.n == 0 && !acc.head && !acc.tail);
    c[4].fd = next(&acc, l, t0 + 2000);
    EXPECT(c[4].fd >= 0);
    close(c[2].fd);
    close(c[4].fd);
    for (int i = 0; i < 5; i++)
        close(clients[i]);
    close(l);
}

/* Out of descriptors: the oldest unproven goes; none unproven: the waiting one is taken off
 * the queue and closed with the spare descriptor; no spare: nothing (the owner tries later).
 * Runs in a child: it lowers its descriptor limit. */
static void acceptor_emfile(void)
{
    net_addr_t a;
    int l = listener(&a);
    net_acceptor_t acc = { .max = 100, .grace_ms = 250, .hello_ms = 10000, .drop = drop };
    int clients[40];
    for (int i = 0; i < 40; i++)
        clients[i] = dial(&a);
    /* room for 6 more descriptors, one of them the spare */
    struct rlimit r = { (rlim_t)(clients[39] + 1 + 6), (rlim_t)(clients[39] + 1 + 6) };
    EXPECT(setrlimit(RLIMIT_NOFILE, &r) == 0);
    fdlimit_reserve();
    static conn_t c[64];
    int taken = 0, shed = 0;
    memset(dropped, 0, sizeof dropped);
    for (int i = 0; i < 40; i++) {
        int fd = next(&acc, l, 1000);
        if (fd == NET_ACCEPT_SHED) {
            shed++;
            continue;
        }
        EXPECT(fd >= 0);
        if (fd < 0)
            break;
        c[taken].fd = fd;
        net_pending_push(&acc, &c[taken].p, &c[taken], 1000);
        taken++;
    }
    /* five fit; every later one took the oldest one's descriptor */
    EXPECT(taken == 40 && shed == 0 && dropped[NET_DROP_EVICTED] == 35 && acc.n == 5);
    /* none unproven left to evict: the waiting connection is shed, and the spare comes back */
    for (int i = 0; i < 40; i++)
        if (c[i].fd >= 0)
            net_pending_remove(&acc, &c[i].p); /* "proven": they keep their descriptors */
    int more[3];
    for (int i = 0; i < 3; i++)
        more[i] = -1;
    EXPECT(acc.n == 0);
    for (int i = 0; i < 2; i++) {
        for (int k = 35; k < 40; k++) /* free client descriptors to dial with */
            if (clients[k] >= 0 && more[i] < 0) {
                close(clients[k]);
                clients[k] = -1;
                more[i] = dial(&a);
            }
        EXPECT(next(&acc, l, 2000) == NET_ACCEPT_SHED);
    }
    for (int i = 0; i < 40; i++) {
        if (clients[i] >= 0)
            close(clients[i]);
        if (c[i].fd >= 0)
            close(c[i].fd);
    }
    for (int i = 0; i < 3; i++)
        if (more[i] >= 0)
            close(more[i]);
    close(l);
}

static void test_acceptor_emfile(void)
{
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        acceptor_emfile();
        _exit(failures ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- small helpers ------------------------------------------------------------------------ */

static void test_helpers(void)
{
    net_notes_t n = { 0 };
    int held, may = 0;
    long long t = 5000000;
    for (int i = 0; i < 25; i++)
        may += net_notes_take(&n, t + i, &held);
    EXPECT(may == NET_NOTES_MAX && n.held == 25 - NET_NOTES_MAX);
    EXPECT(net_notes_roll(&n, t + NET_NOTES_WINDOW_MS - 1) == 0);
    EXPECT(net_notes_roll(&n, t + NET_NOTES_WINDOW_MS) == 25 - NET_NOTES_MAX);
    EXPECT(net_notes_take(&n, t + NET_NOTES_WINDOW_MS + 1, &held) == 1 && held == 0);

    net_retry_t r = { .min_ms = 10, .max_ms = 1000 };
    long long waits[9];
    for (int i = 0; i < 9; i++)
        waits[i] = net_retry_failed(&r, 100 + i);
    EXPECT(waits[0] == 10 && waits[1] == 20 && waits[6] == 640 && waits[7] == 1000 &&
           waits[8] == 1000 && r.fails == 9 && r.since == 100);
    net_retry_reset(&r);
    EXPECT(net_retry_failed(&r, 7) == 10 && r.since == 7);
    net_retry_t fixed = { .min_ms = 500, .max_ms = 500 };
    EXPECT(net_retry_failed(&fixed, 0) == 500 && net_retry_failed(&fixed, 0) == 500);

    char text[NET_ADDR_TEXT];
    struct sockaddr_in v4 = { .sin_family = AF_INET, .sin_port = htons(7000) };
    inet_pton(AF_INET, "10.0.2.1", &v4.sin_addr);
    net_addr_text((struct sockaddr *)&v4, text, sizeof text);
    EXPECT(strcmp(text, "10.0.2.1:7000") == 0);
    struct sockaddr_in6 v6 = { .sin6_family = AF_INET6, .sin6_port = htons(80) };
    inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr);
    net_addr_text((struct sockaddr *)&v6, text, sizeof text);
    EXPECT(strcmp(text, "[fe80::1]:80") == 0);

    EXPECT(net_congestion_name_ok("cubic") && net_congestion_name_ok("bbr") &&
           net_congestion_name_ok("a_1") && net_congestion_name_ok("abcdefghijklmno"));
    EXPECT(!net_congestion_name_ok("") && !net_congestion_name_ok("Cubic") &&
           !net_congestion_name_ok("a-b") && !net_congestion_name_ok("abcdefghijklmnop") &&
           !net_congestion_name_ok("cu bic"));
    EXPECT(net_congestion_try("nosuchcontrol") != 0);

    /* bounded reads: the deadline, the end of stream, all of it */
    int sv[2];
    pair(sv);
    char buf[8];
    long long t0 = net_now_ms();
    EXPECT(net_read_full(sv[1], buf, 4, t0 + 100) == -1 && net_now_ms() - t0 >= 90);
    EXPECT(write(sv[0], "abcd", 4) == 4);
    EXPECT(net_read_full(sv[1], buf, 4, net_now_ms() + 1000) == 0 &&
           memcmp(buf, "abcd", 4) == 0);
    EXPECT(write(sv[0], "xy", 2) == 2);
    shutdown(sv[0], SHUT_WR);
    EXPECT(net_read_full(sv[1], buf, 4, net_now_ms() + 1000) == -1);
    t0 = net_now_ms();
    net_drain_to_eof(sv[1], t0 + 5000);                  /* at the end of stream at once */
    EXPECT(net_now_ms() - t0 < 1000);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    test_frame_header();
    test_reader();
    test_writer();
    test_many_iovecs();
    test_hsio();
    test_acceptor_caps();
    test_acceptor_emfile();
    test_helpers();
    return expect_done("net");
}
