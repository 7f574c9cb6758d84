#include "net/rx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { RX_HDR, RX_PLACED, RX_BIG };

int net_rx_init(net_rx_t *rx, size_t cap)
{
    memset(rx, 0, sizeof *rx);
    rx->h.src = -1;
    rx->buf = malloc(cap);
    rx->cap = cap;
    return rx->buf ? 0 : -1;
}

void net_rx_free(net_rx_t *rx)
{
    free(rx->buf);
    free(rx->big);
    memset(rx, 0, sizeof *rx);
}

/* Where the bytes come from: a socket, or (fuzzing) memory. */
typedef struct source {
    int fd;                     /* -1: memory */
    net_secure_t *sec;          /* not NULL: fd is read through it */
    const unsigned char *mem;
    size_t len, piece;
    int drained;                /* a read returned less than asked: the source is empty for
                                 * now (a stream socket), so the next read is not tried */
} source_t;

/* A read from a socket (or any descriptor): recv() and recvmsg() take the socket layer's
 * path directly, readv() goes through the file layer first; on the kernels measured an empty
 * readv() cost about 1.5x an empty recv() (docs/tcp-transport.md, "Small messages"). A
 * descriptor that is no socket (ENOTSOCK) is read by readv(). */
static ssize_t sock_readv(int fd, const struct iovec *iov, int n)
{
    ssize_t r;
    if (n == 1)
        r = recv(fd, iov[0].iov_base, iov[0].iov_len, 0);
    else
        r = recvmsg(fd, &(struct msghdr){ .msg_iov = (struct iovec *)iov,
                                          .msg_iovlen = (size_t)n }, 0);
    return r < 0 && errno == ENOTSOCK ? readv(fd, iov, n) : r;
}

/* readv from the source: bytes read, 0 at its end (eof), -1 when nothing is there now
 * (EAGAIN), -2 on an error (errno). */
static long src_readv(source_t *s, const struct iovec *iov, int n)
{
    if (s->drained)
        return -1;
    size_t asked = 0;
    for (int i = 0; i < n; i++)
        asked += iov[i].iov_len;
    if (s->fd >= 0) {
        for (;;) {
            ssize_t r = s->sec ? net_secure_readv(s->sec, iov, n) : sock_readv(s->fd, iov, n);
            s->drained = r > 0 && (size_t)r < asked;
            if (r >= 0)
                return (long)r;
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
        }
    }
    if (s->len == 0)
        return 0;
    size_t want = s->piece < s->len ? s->piece : s->len, got = 0;
    for (int i = 0; i < n && got < want; i++) {
        size_t k = iov[i].iov_len < want - got ? iov[i].iov_len : want - got;
        memcpy(iov[i].iov_base, s->mem + got, k);
        got += k;
    }
    s->mem += got;
    s->len -= got;
    s->drained = got < asked;
    return (long)got;
}

/* Reads into the buffer's free tail, first compacting when the tail is short or the `need`
 * bytes from start would not fit. Same results as src_readv. */
static long fill(net_rx_t *rx, source_t *s, size_t need)
{
    if (rx->start == rx->end)
        rx->start = rx->end = 0;
    if (rx->start + need > rx->cap || rx->cap - rx->end < rx->cap / 4) {
        memmove(rx->buf, rx->buf + rx->start, rx->end - rx->start);
        rx->end -= rx->start;
        rx->start = 0;
    }
    struct iovec iov = { rx->buf + rx->end, rx->cap - rx->end };
    long r = src_readv(s, &iov, 1);
    if (r > 0)
        rx->end += (size_t)r;
    return r;
}

/* Moves n bytes that arrived into the placed body's iovecs. */
static void advance_iov(net_rx_t *rx, size_t n)
{
    rx->body_left -= n;
    while (n) {
        struct iovec *v = &rx->iov[rx->iovi];
        size_t k = n < v->iov_len ? n : v->iov_len;
        v->iov_base = (char *)v->iov_base + k;
        v->iov_len -= k;
        n -= k;
        if (!v->iov_len)
            rx->iovi++;
    }
    while (rx->iovi < rx->niov && !rx->iov[rx->iovi].iov_len)
        rx->iovi++;
}

static void next_iovs(net_rx_t *rx)
{
    if (rx->iovi == rx->niov) {
        rx->niov = rx->sink.next(rx->sink.ctx, rx->iov, NET_RX_IOV, rx->body_left);
        rx->iovi = 0;
    }
}

/* Reads the rest of a placed body. 1 done, 0 wait for more, <0 as src_readv (-3: eof). */
static int run_placed(net_rx_t *rx, source_t *s)
{
    while (rx->body_left && rx->start < rx->end) { /* what was read ahead with the head */
        next_iovs(rx);
        struct iovec *v = &rx->iov[rx->iovi];
        size_t k = rx->end - rx->start;
        if (k > v->iov_len)
            k = v->iov_len;
        if (k > rx->body_left)
            k = rx->body_left;
        memcpy(v->iov_base, rx->buf + rx->start, k);
        rx->start += k;
        advance_iov(rx, k);
    }
    while (rx->body_left) {
        next_iovs(rx);
        long r = src_readv(s, rx->iov + rx->iovi, rx->niov - rx->iovi);
        if (r < 0)
            return r == -1 ? 0 : -2;
        if (r == 0)
            return -3;
        advance_iov(rx, (size_t)r);
    }
    rx->state = RX_HDR;
    rx->sink.done(rx->sink.ctx);
    return 1;
}

static const char *peer(const net_rx_ops_t *ops)
{
    return ops->peer ? ops->peer : "peer";
}

static size_t hdr_len(const net_rx_ops_t *ops)
{
    return ops->parse_hdr ? ops->hdr_len : NET_FRAME_HDR;
}

static const char *parse_hdr(const net_rx_ops_t *ops, const unsigned char *in,
                             net_frame_hdr_t *h)
{
    return ops->parse_hdr ? ops->parse_hdr(in, ops->max_frame, h, ops->hdr_ctx)
                          : net_frame_hdr_parse(in, ops->max_frame, h);
}

static int run(net_rx_t *rx, source_t *s, int src, const net_rx_ops_t *ops, int budget,
               int *eof, char *err, int errlen)
{
    const size_t hl = hdr_len(ops);
    /* a relay gets the header in front of the frame: `lead` bytes of it */
    const size_t lead = ops->with_header ? hl : 0;
    int events = 0;
    *eof = 0;
    s->drained = 0;
    rx->refused = 0;
    while (events < budget) {
        long r = 1;
        int from = rx->h.src >= 0 ? rx->h.src : src;
        if (rx->state == RX_PLACED) {
            int p = run_placed(rx, s);
            if (p == 1) {
                events++;
                continue;
            }
            r = p == 0 ? -1 : p == -3 ? 0 : -2;
        } else if (rx->state == RX_BIG) {
            struct iovec iov = { rx->big + lead + rx->big_got, rx->h.len - rx->big_got };
            r = src_readv(s, &iov, 1);
            if (r > 0) {
                rx->big_got += (size_t)r;
                if (rx->big_got == rx->h.len) {
                    ops->deliver(from, rx->big, lead + rx->h.len);
                    free(rx->big);
                    rx->big = NULL;
                    rx->state = RX_HDR;
                    events++;
                }
                continue;
            }
        } else {
            size_t avail = rx->end - rx->start;
            if (avail >= hl) {
                const unsigned char *f = rx->buf + rx->start;
                const char *bad = parse_hdr(ops, f, &rx->h);
                from = rx->h.src >= 0 ? rx->h.src : src;
                if (bad) {
                    snprintf(err, (size_t)errlen, "malformed stream from %s %d: %s", peer(ops),
                             src, bad);
                    return -1;
                }
                if (rx->h.kind == NET_KIND_BYE) {
                    rx->bye = 1;
                    rx->start += hl;
                    continue;
                }
                if (ops->admit && !ops->admit(ops->admit_ctx, f, &rx->h)) {
                    rx->refused = 1;
                    break;
                }
                size_t whole = hl + rx->h.len, body = rx->h.len - rx->h.head_len;
                size_t need = whole;
                if (ops->place && rx->h.head_len && body >= ops->place_min) {
                    need = hl + rx->h.head_len;
                    if (avail >= need &&
                        ops->place(from, f + hl, rx->h.head_len, body, &rx->sink)) {
                        rx->start += need;
                        rx->body_left = body;
                        rx->niov = rx->iovi = 0;
                        rx->state = RX_PLACED;
                        continue;
                    }
                    if (avail >= need)
                        need = whole; /* not placed: it comes whole */
                }
                if (whole <= avail) {
                    ops->deliver(from, f + hl - lead, lead + rx->h.len);
                    rx->start += whole;
                    events++;
                    continue;
                }
                if (need == whole && whole > rx->cap) {
                    if (!(rx->big = malloc(lead + rx->h.len))) {
                        snprintf(err, (size_t)errlen, "out of memory for a %u-byte frame",
                                 (unsigned)rx->h.len);
                        return -1;
                    }
                    memcpy(rx->big, f + hl - lead, lead);
                    rx->big_got = avail - hl;
                    memcpy(rx->big + lead, f + hl, rx->big_got);
                    rx->start = rx->end = 0;
                    rx->state = RX_BIG;
                    continue;
                }
                r = fill(rx, s, need);
                if (r > 0)
                    continue;
            } else {
                r = fill(rx, s, hl);
                if (r > 0)
                    continue;
            }
        }
        if (r == -1)
            break; /* nothing more to read now */
        if (r == 0) {
            if (rx->state != RX_HDR || rx->start != rx->end) {
                snprintf(err, (size_t)errlen,
                         "%s %d closed the connection in the middle of a frame", peer(ops), src);
                return -1;
            }
            *eof = 1;
            break;
        }
        if (errno == EBADMSG && s->sec)
            snprintf(err, (size_t)errlen, "%s %d: %s", peer(ops), src, net_secure_error(s->sec));
        else
            snprintf(err, (size_t)errlen, "reading from %s %d: %s", peer(ops), src,
                     strerror(errno));
        return -1;
    }
    return events;
}

int net_rx_midframe(const net_rx_t *rx)
{
    return rx->state != RX_HDR || rx->start != rx->end;
}

int net_rx_run(net_rx_t *rx, int fd, int src, const net_rx_ops_t *ops, int budget, int *eof,
               char *err, int errlen)
{
    source_t s = { .fd = fd, .sec = rx->sec };
    return run(rx, &s, src, ops, budget, eof, err, errlen);
}

int net_rx_feed(net_rx_t *rx, const void *data, size_t len, size_t piece, int src,
                const net_rx_ops_t *ops, char *err, int errlen)
{
    source_t s = { .fd = -1, .mem = data, .len = len, .piece = piece ? piece : 1 };
    int total = 0, eof = 0;
    while (!eof) {
        int n = run(rx, &s, src, ops, 1 << 30, &eof, err, errlen);
        if (n < 0)
            return -1;
        total += n;
        if (rx->refused)
            break; /* the rest waits for admission, which nothing here will change */
    }
    return total;
}
