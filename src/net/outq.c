#include "net/outq.h"

#include "net/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum {
    FLUSH_IOV = 64,
    GATHER_MAX = 1024, /* frames up to this size go out by one send() of a gathered copy */
    FRAME_IOV_MAX = 16, /* a frame's iovecs written from the caller's memory; more: copied */
};

/* The queue's writes: through its secure stream when it has one. */
static long q_sendv(const net_outq_t *q, int fd, const struct iovec *iov, int iovcnt)
{
    return q->sec ? net_secure_writev(q->sec, iov, iovcnt) : net_sendv(fd, iov, iovcnt);
}

long net_sendv(int fd, const struct iovec *iov, int iovcnt)
{
    struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
    for (;;) {
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0)
            return (long)n;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

/* One buffer without blocking: as net_sendv. */
static long send1(int fd, const void *p, size_t len)
{
    for (;;) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0)
            return (long)n;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

/* A small frame's iovecs copied into one buffer and written by send(): the kernel takes one
 * user buffer by a shorter path than sendmsg's iovec array (docs/tcp-transport.md, "Small
 * messages"). */
static long send_gathered(int fd, const struct iovec *v, int nv)
{
    unsigned char b[GATHER_MAX], *w = b;
    for (int i = 0; i < nv; i++) {
        memcpy(w, v[i].iov_base, v[i].iov_len);
        w += v[i].iov_len;
    }
    return send1(fd, b, (size_t)(w - b));
}

int net_outq_push(net_outq_t *q, const void *p, size_t len, void *owned, net_completion_t done)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        net_seg_t *s = malloc(cap * sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < q->n; i++)
            s[i] = q->seg[(q->first + i) % q->cap];
        free(q->seg);
        q->seg = s;
        q->cap = cap;
        q->first = 0;
    }
    q->seg[(q->first + q->n++) % q->cap] =
        (net_seg_t){ .p = p, .len = len, .owned = owned, .done = done };
    if (owned)
        q->copied += len;
    else
        q->borrowed += len;
    return 0;
}

int net_outq_push_copy(net_outq_t *q, const struct iovec *iov, int iovcnt, size_t skip)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    len -= skip;
    unsigned char *b = malloc(len ? len : 1), *w = b;
    if (!b)
        return -1;
    for (int i = 0; i < iovcnt; i++) {
        size_t l = iov[i].iov_len;
        const unsigned char *src = iov[i].iov_base;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(w, src + skip, l - skip);
        w += l - skip;
        skip = 0;
    }
    if (net_outq_push(q, b, len, b, (net_completion_t){ 0 }) != 0) {
        free(b);
        return -1;
    }
    return 0;
}

int net_outq_flush(net_outq_t *q, int fd, net_completion_t *out, int max, int *nout)
{
    *nout = 0;
    while (q->n) {
        struct iovec iov[FLUSH_IOV];
        int k = 0, reports = 0;
        size_t asked = 0;
        for (size_t i = 0; i < q->n && k < FLUSH_IOV; i++) {
            const net_seg_t *s = &q->seg[(q->first + i) % q->cap];
            if (s->done.sent && *nout + reports == max)
                break;
            iov[k++] = (struct iovec){ (void *)s->p, s->len };
            asked += s->len;
            reports += s->done.sent != NULL;
        }
        if (k == 0)
            return 0; /* the caller's completion array is full: flush again after it runs */
        long w = q_sendv(q, fd, iov, k);
        if (w < 0)
            return -1;
        size_t left = (size_t)w;
        while (q->n) {
            net_seg_t *s = &q->seg[q->first];
            size_t take = left < s->len ? left : s->len;
            s->p += take;
            s->len -= take;
            left -= take;
            if (s->owned)
                q->copied -= take;
            else
                q->borrowed -= take;
            if (s->len)
                break;
            free(s->owned);
            if (s->done.sent)
                out[(*nout)++] = s->done;
            q->first = (q->first + 1) % q->cap;
            q->n--;
        }
        if ((size_t)w < asked)
            return 0; /* the socket is full */
    }
    return 1;
}

int net_outq_frame(net_outq_t *q, int fd, const void *hdr, size_t hlen,
                   const struct iovec *iov, int iovcnt, const net_packer_t *pk)
{
    size_t len = pk ? pk->len : 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (pk || iovcnt > FRAME_IOV_MAX) { /* the packer writes into our own copy of the frame;
                                         * more iovecs than v[] holds go the same way */
        unsigned char *b = malloc(hlen + len), *w = b + hlen;
        if (!b)
            return -1;
        memcpy(b, hdr, hlen);
        for (int i = 0; i < iovcnt; i++) {
            memcpy(w, iov[i].iov_base, iov[i].iov_len);
            w += iov[i].iov_len;
        }
        for (size_t done = 0; pk && done < pk->len;)
            done += pk->pack(pk->ctx, w + done, pk->len - done);
        if (net_outq_push(q, b, hlen + len, b, (net_completion_t){ 0 }) != 0) {
            free(b);
            return -1;
        }
        return 0;
    }
    struct iovec v[1 + FRAME_IOV_MAX];
    int nv = 0;
    v[nv++] = (struct iovec){ (void *)hdr, hlen };
    for (int i = 0; i < iovcnt; i++)
        if (iov[i].iov_len)
            v[nv++] = iov[i];
    size_t written = 0;
    if (fd >= 0 && !q->n) {
        long w = !q->sec && hlen + len <= GATHER_MAX ? send_gathered(fd, v, nv)
                                                      : q_sendv(q, fd, v, nv);
        if (w < 0)
            return -2;
        written = (size_t)w;
        if (written == hlen + len)
            return 0;
    }
    return net_outq_push_copy(q, v, nv, written);
}

int net_outq_frame_zc(net_outq_t *q, const void *hdr, size_t hlen, const struct iovec *iov,
                      int iovcnt, net_completion_t done)
{
    size_t head = iovcnt > 0 ? iov[0].iov_len : 0;
    unsigned char *h = malloc(hlen + head);
    if (!h)
        return -1;
    memcpy(h, hdr, hlen);
    if (head)
        memcpy(h + hlen, iov[0].iov_base, head);
    int last = iovcnt - 1;
    while (last > 0 && !iov[last].iov_len)
        last--;
    net_completion_t none = { 0 };
    if (net_outq_push(q, h, hlen + head, h, last <= 0 ? done : none) != 0) {
        free(h);
        return -1;
    }
    for (int i = 1; i <= last; i++)
        if (iov[i].iov_len &&
            net_outq_push(q, iov[i].iov_base, iov[i].iov_len, NULL, i == last ? done : none))
            return -1;
    return 0;
}

int net_outq_drain(net_outq_t *q, int fd, long long deadline)
{
    while (q->n) {
        if (net_now_ms() >= deadline)
            return 0;
        net_completion_t ignored[64];
        int n;
        if (net_outq_flush(q, fd, ignored, 64, &n) < 0)
            return -1;
        if (q->n) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, 10);
        }
    }
    return 1;
}

void net_outq_free(net_outq_t *q)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->seg[(q->first + i) % q->cap].owned);
    free(q->seg);
    memset(q, 0, sizeof *q);
}
