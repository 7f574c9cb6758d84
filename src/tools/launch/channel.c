#include "channel.h"

#include "util.h"
#include "net/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void end_input(chan_t *c, const char *why)
{
    if (c->ended)
        return;
    c->ended = 1;
    if (c->rfd >= 0) {
        ev_unwatch(c->loop, c->rfd);
        close(c->rfd);
        c->rfd = -1;
    }
    c->ops.closed(c->ctx, why);
}

/* Parses and delivers every complete frame in the input buffer. */
static void dispatch(chan_t *c)
{
    size_t off = 0;
    while (!c->ended) {
        ctl_frame_t f;
        size_t used;
        char err[256];
        int rc = ctl_parse(c->in + off, c->inlen - off, &f, &used, err, sizeof err);
        if (rc == CTL_MORE)
            break;
        if (rc == CTL_BAD) {
            char why[320];
            snprintf(why, sizeof why, "malformed control frame: %s", err);
            end_input(c, why);
            return;
        }
        c->ops.frame(c->ctx, &f);
        off += used;
    }
    if (c->ended)
        return;
    memmove(c->in, c->in + off, c->inlen - off);
    c->inlen -= off;
}

/* One read. 1: data arrived; 0: nothing now; -1: the input ended. */
static int read_once(chan_t *c)
{
    if (c->ended || c->rfd < 0)
        return -1;
    if (c->incap - c->inlen < 65536 && c->incap < CTL_MAX_FRAME + 4 + 65536) {
        c->incap = c->incap ? 2 * c->incap : 65536 * 2;
        if (c->incap > CTL_MAX_FRAME + 4 + 65536)
            c->incap = CTL_MAX_FRAME + 4 + 65536;
        c->in = util_xrealloc(c->in, c->incap);
    }
    ssize_t n = read(c->rfd, c->in + c->inlen, c->incap - c->inlen);
    if (n > 0) {
        c->t_in = net_now_ms();
        c->inlen += (size_t)n;
        dispatch(c);
        return c->ended ? -1 : 1;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    char why[160];
    if (n < 0)
        snprintf(why, sizeof why, "read error: %s", strerror(errno));
    else if (c->inlen)
        snprintf(why, sizeof why, "channel closed within a frame (%zu bytes of it received)",
                 c->inlen);
    end_input(c, n == 0 && !c->inlen ? NULL : why);
    return -1;
}

static void on_read(void *arg, int fd, short revents)
{
    (void)fd;
    (void)revents;
    read_once(arg);
}

static void flush(chan_t *c);

static void on_write(void *arg, int fd, short revents)
{
    (void)fd;
    (void)revents;
    flush(arg);
}

static void drop_output(chan_t *c)
{
    c->wbroken = 1;
    c->out.len = 0;
    c->outoff = 0;
}

/* Writes all of buf to the non-blocking fd, waiting for room, unless no byte goes out for
 * stall_ms (0: wait for ever). 0, or -1 (error, or the stall). */
static int write_bounded(chan_t *c, const unsigned char *p, size_t len)
{
    long long progress = net_now_ms();
    while (len > 0) {
        ssize_t n = write(c->wfd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            progress = c->t_out = net_now_ms();
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            long long wait = 1000;
            if (c->stall_ms) {
                wait = progress + c->stall_ms - net_now_ms();
                if (wait <= 0)
                    return -1;
                if (wait > 1000)
                    wait = 1000;
            }
            struct pollfd pfd = { .fd = c->wfd, .events = POLLOUT };
            poll(&pfd, 1, (int)wait);
        } else {
            return -1;
        }
    }
    return 0;
}

static void flush(chan_t *c)
{
    if (c->wfd < 0 || c->wbroken) {
        drop_output(c);
        return;
    }
    if (c->blocking) {
        if (write_bounded(c, c->out.p + c->outoff, c->out.len - c->outoff) != 0)
            drop_output(c);
        c->out.len = c->outoff = 0;
        return;
    }
    while (c->outoff < c->out.len) {
        ssize_t n = write(c->wfd, c->out.p + c->outoff, c->out.len - c->outoff);
        if (n > 0) {
            c->outoff += (size_t)n;
            c->t_out = net_now_ms();
        }
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else {
            drop_output(c);
            break;
        }
    }
    if (c->outoff == c->out.len)
        c->out.len = c->outoff = 0;
    else if (c->outoff > (1u << 20)) {  /* keep the queue compact */
        memmove(c->out.p, c->out.p + c->outoff, c->out.len - c->outoff);
        c->out.len -= c->outoff;
        c->outoff = 0;
    }
    if (c->wfd >= 0)
        ev_set_events(c->loop, c->wfd, c->out.len ? POLLOUT : 0);
}

void chan_open(chan_t *c, ev_loop_t *loop, int rfd, int wfd, int blocking,
               const chan_ops_t *ops, void *ctx)
{
    memset(c, 0, sizeof *c);
    c->loop = loop;
    c->rfd = rfd;
    c->wfd = wfd;
    c->blocking = blocking;
    c->ops = *ops;
    c->ctx = ctx;
    c->t_in = c->t_out = net_now_ms();
    util_set_nonblock(rfd);
    ev_watch(loop, rfd, POLLIN, on_read, c);
    util_set_nonblock(wfd); /* blocking mode waits in write_bounded */
    if (!blocking)
        ev_watch(loop, wfd, 0, on_write, c);
}

ctl_buf_t *chan_out(chan_t *c)
{
    return &c->out;
}

void chan_send(chan_t *c)
{
    flush(c);
}

void chan_drain(chan_t *c)
{
    for (int i = 0; i < 256 && read_once(c) > 0; i++)
        ;
}

size_t chan_pending(const chan_t *c)
{
    return c->out.len - c->outoff;
}

static void close_write(chan_t *c)
{
    if (c->wfd < 0)
        return;
    if (!c->blocking)
        ev_unwatch(c->loop, c->wfd);
    close(c->wfd);
    c->wfd = -1;
}

void chan_close_write(chan_t *c)
{
    flush(c);
    close_write(c);
    drop_output(c);
}

void chan_close(chan_t *c)
{
    close_write(c);
    if (c->rfd >= 0) {
        ev_unwatch(c->loop, c->rfd);
        close(c->rfd);
        c->rfd = -1;
    }
    c->ended = 1;
    ctl_buf_free(&c->out);
    free(c->in);
    c->in = NULL;
    c->inlen = c->incap = 0;
}
