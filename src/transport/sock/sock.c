/*
 * Unix-domain stream socket transport between ranks of one host.
 *
 * Every rank listens on the abstract socket "@metampi.<job id>.<rank>" (abstract names vanish
 * with the process: nothing is left in the file system). A rank opens one connection to each
 * peer it sends to, on first use, and uses it only for sending; the connections a rank accepts
 * are only read. One stream per ordered pair keeps frames in order, and no two ranks ever race
 * to set up the same connection.
 *
 * Stream format: the connecting rank first writes its rank (uint32, host order — both ends
 * are on one host); then frames follow, each as a uint64 length and that many bytes.
 * End of stream at a frame boundary is a peer that finished; inside a frame it is a failure.
 */
#include "transport/transport.h"

#include "runtime/job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct out_link {
    int fd;                     /* -1 until the first send to this peer */
    tr_send_t *head, *tail;     /* frames not yet fully written, oldest first */
} out_link_t;

typedef struct in_link {
    int fd;
    int peer;                   /* -1 until the 4-byte hello has arrived */
    unsigned char hdr[8];
    size_t hdr_got;
    char *frame;                /* NULL while reading a header */
    size_t frame_len, frame_got;
} in_link_t;

static tr_deliver_fn deliver_up;
static int listen_fd = -1;
static out_link_t *out;         /* indexed by rank */
static in_link_t *in;
static int nin, in_cap;

static void listen_address(int rank, struct sockaddr_un *sa, socklen_t *len)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    /* sun_path[0] = '\0' selects the abstract namespace */
    int n = snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "metampi.%s.%d", job.id, rank);
    if (n < 0 || (size_t)n >= sizeof sa->sun_path - 1) {
        /* a very long job id: use a hash of it instead */
        unsigned long long h = 1469598103934665603ull;
        for (const char *p = job.id; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        n = snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "metampi.%016llx.%d", h, rank);
    }
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int fail(char *err, int errlen, const char *what, int peer)
{
    if (peer >= 0)
        snprintf(err, (size_t)errlen, "%s rank %d: %s", what, peer, strerror(errno));
    else
        snprintf(err, (size_t)errlen, "%s: %s", what, strerror(errno));
    return -1;
}

static int sock_open(tr_deliver_fn deliver, char *err, int errlen)
{
    deliver_up = deliver;
    out = calloc((size_t)job.size, sizeof *out);
    if (!out)
        return fail(err, errlen, "out of memory", -1);
    for (int r = 0; r < job.size; r++)
        out[r].fd = -1;

    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd < 0)
        return fail(err, errlen, "cannot create a socket", -1);
    struct sockaddr_un sa;
    socklen_t len;
    listen_address(job.rank, &sa, &len);
    if (bind(listen_fd, (struct sockaddr *)&sa, len) != 0)
        return fail(err, errlen, "cannot bind the rank's socket", -1);
    if (listen(listen_fd, SOMAXCONN) != 0)
        return fail(err, errlen, "cannot listen", -1);
    return 0;
}

static int connect_to(int peer, char *err, int errlen)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "cannot create a socket for", peer);
    struct sockaddr_un sa;
    socklen_t len;
    listen_address(peer, &sa, &len);
    int rc;
    do
        rc = connect(fd, (struct sockaddr *)&sa, len);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        close(fd);
        return fail(err, errlen, "cannot connect to", peer);
    }
    uint32_t hello = (uint32_t)job.rank;
    if (send(fd, &hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello) {
        close(fd);
        return fail(err, errlen, "cannot greet", peer);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    out[peer].fd = fd;
    return 0;
}

/* Writes as much of the queued frames to peer as the socket takes. Returns the number of
 * frames completed, or -1. */
static int flush_link(int peer, char *err, int errlen)
{
    out_link_t *l = &out[peer];
    int completed = 0;
    while (l->head) {
        tr_send_t *op = l->head;
        struct msghdr mh = { .msg_iov = op->wire + op->wire_first,
                             .msg_iovlen = (size_t)(op->wire_count - op->wire_first) };
        ssize_t n = sendmsg(l->fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            return fail(err, errlen, "lost the connection to", peer);
        }
        /* advance the cursor past n bytes */
        while (n > 0) {
            struct iovec *v = &op->wire[op->wire_first];
            size_t take = (size_t)n < v->iov_len ? (size_t)n : v->iov_len;
            v->iov_base = (char *)v->iov_base + take;
            v->iov_len -= take;
            n -= (ssize_t)take;
            if (v->iov_len == 0)
                op->wire_first++;
        }
        while (op->wire_first < op->wire_count && op->wire[op->wire_first].iov_len == 0)
            op->wire_first++;
        if (op->wire_first < op->wire_count)
            break; /* socket full */
        l->head = op->next;
        if (!l->head)
            l->tail = NULL;
        op->done = 1;
        completed++;
    }
    return completed;
}

static int sock_send(int dst_rank, tr_send_t *op, char *err, int errlen)
{
    if (out[dst_rank].fd < 0 && connect_to(dst_rank, err, errlen) != 0) {
        op->error = 1;
        op->done = 1;
        return -1;
    }
    op->length_prefix = 0;
    op->wire[0].iov_base = &op->length_prefix;
    op->wire[0].iov_len = sizeof op->length_prefix;
    for (int i = 0; i < op->iovcnt; i++) {
        op->wire[i + 1] = op->iov[i];
        op->length_prefix += op->iov[i].iov_len;
    }
    op->wire_first = 0;
    op->wire_count = op->iovcnt + 1;
    op->done = 0;
    op->error = 0;
    op->next = NULL;

    out_link_t *l = &out[dst_rank];
    if (l->tail)
        l->tail->next = op;
    else
        l->head = op;
    l->tail = op;
    if (l->head == op && flush_link(dst_rank, err, errlen) < 0) {
        op->error = 1;
        op->done = 1;
        return -1;
    }
    return 0;
}

static void accept_new(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (nin == in_cap) {
            int cap = in_cap ? 2 * in_cap : 8;
            in_link_t *grown = realloc(in, (size_t)cap * sizeof *in);
            if (!grown) {
                close(fd);
                return;
            }
            in = grown;
            in_cap = cap;
        }
        in[nin++] = (in_link_t){ .fd = fd, .peer = -1 };
    }
}

static void drop_in_link(int i)
{
    close(in[i].fd);
    free(in[i].frame);
    in[i] = in[--nin];
}

/* Reads what is available on one incoming link. Returns frames delivered, -1 on failure,
 * -2 when the peer closed cleanly. */
static int read_link(in_link_t *l, char *err, int errlen)
{
    int delivered = 0;
    for (int budget = 64; budget > 0; budget--) {
        void *dst;
        size_t want;
        if (l->peer < 0) {
            dst = l->hdr + l->hdr_got;
            want = 4 - l->hdr_got;
        } else if (!l->frame) {
            dst = l->hdr + l->hdr_got;
            want = 8 - l->hdr_got;
        } else {
            dst = l->frame + l->frame_got;
            want = l->frame_len - l->frame_got;
        }
        ssize_t n = want ? read(l->fd, dst, want) : 0;
        if (want && n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return delivered;
            return fail(err, errlen, "lost the connection from", l->peer);
        }
        if (want && n == 0) {
            if (l->peer >= 0 && !l->frame && l->hdr_got == 0)
                return -2;
            errno = ECONNRESET;
            return fail(err, errlen, "connection closed in the middle of a frame from", l->peer);
        }
        if (l->peer < 0) {
            l->hdr_got += (size_t)n;
            if (l->hdr_got == 4) {
                uint32_t r;
                memcpy(&r, l->hdr, 4);
                if (r >= (uint32_t)job.size) {
                    snprintf(err, (size_t)errlen, "connection from an unknown rank %u", r);
                    return -1;
                }
                l->peer = (int)r;
                l->hdr_got = 0;
            }
        } else if (!l->frame) {
            l->hdr_got += (size_t)n;
            if (l->hdr_got == 8) {
                uint64_t len;
                memcpy(&len, l->hdr, 8);
                l->frame = malloc(len ? len : 1);
                if (!l->frame) {
                    snprintf(err, (size_t)errlen, "out of memory for a %llu-byte frame",
                             (unsigned long long)len);
                    return -1;
                }
                l->frame_len = len;
                l->frame_got = 0;
                l->hdr_got = 0;
            }
        } else {
            l->frame_got += (size_t)n;
        }
        if (l->frame && l->frame_got == l->frame_len) {
            char *frame = l->frame;
            l->frame = NULL;
            deliver_up(l->peer, frame, l->frame_len);
            delivered++;
        }
    }
    return delivered;
}

static int sock_progress(char *err, int errlen)
{
    int events = 0;
    accept_new();
    for (int i = 0; i < nin;) {
        int n = read_link(&in[i], err, errlen);
        if (n == -1)
            return -1;
        if (n == -2) {
            drop_in_link(i);
            continue;
        }
        events += n;
        i++;
    }
    for (int r = 0; r < job.size; r++) {
        if (!out[r].head)
            continue;
        int n = flush_link(r, err, errlen);
        if (n < 0)
            return -1;
        events += n;
    }
    return events;
}

static int sock_pollfds(struct pollfd *fds, int max)
{
    int n = 0;
    if (listen_fd >= 0 && n < max)
        fds[n++] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
    for (int i = 0; i < nin && n < max; i++)
        fds[n++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
    for (int r = 0; r < job.size && n < max; r++)
        if (out[r].head)
            fds[n++] = (struct pollfd){ .fd = out[r].fd, .events = POLLOUT };
    return n;
}

static void sock_close(void)
{
    for (int r = 0; out && r < job.size; r++)
        if (out[r].fd >= 0)
            close(out[r].fd);
    free(out);
    out = NULL;
    while (nin > 0)
        drop_in_link(nin - 1);
    free(in);
    in = NULL;
    in_cap = 0;
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
}

const transport_t transport_sock = {
    .name = "sock",
    .open = sock_open,
    .send = sock_send,
    .progress = sock_progress,
    .pollfds = sock_pollfds,
    .close = sock_close,
};
