#include "iofwd.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- output ------------------------------------------------------------------------- */

static void emit(ostream_t *o, const char *data, size_t len, int add_newline)
{
    iofwd_sink_t *k = o->sink;
    if (k->emit) {
        if (len)
            k->emit(k->emit_ctx, k, o->rank, data, len, add_newline);
        return;
    }
    iofwd_sink_write(k, o->rank, data, len, add_newline);
}

void iofwd_sink_write(iofwd_sink_t *k, int rank, const char *data, size_t len, int add_newline)
{
    if (k->broken || len == 0)
        return;
    if (!k->tag_output) {
        if (util_write_all(k->fd, data, len) != 0)
            k->broken = 1;
        return;
    }
    char prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "[1,%d]<%s>:", rank, k->name);
    size_t total = (size_t)pl + len + (add_newline ? 1 : 0);
    char *line = util_xmalloc(total);
    memcpy(line, prefix, (size_t)pl);
    memcpy(line + pl, data, len);
    if (add_newline)
        line[total - 1] = '\n';
    if (util_write_all(k->fd, line, total) != 0)
        k->broken = 1;
    free(line);
}

/* Emits every complete line in the buffer; a full buffer without newline goes out as is. */
static void emit_lines(ostream_t *o)
{
    size_t start = 0;
    while (start < o->len) {
        char *nl = memchr(o->buf + start, '\n', o->len - start);
        if (!nl)
            break;
        size_t l = (size_t)(nl - (o->buf + start)) + 1;
        emit(o, o->buf + start, l, 0);
        start += l;
    }
    memmove(o->buf, o->buf + start, o->len - start);
    o->len -= start;
    if (o->len == IOFWD_MAX_LINE) {
        emit(o, o->buf, o->len, 1);
        o->len = 0;
    }
}

/* One read. Returns 1 if data was read, 0 on EAGAIN, -1 after EOF/error (stream closed). */
static int ostream_read(ostream_t *o)
{
    if (o->fd < 0)
        return -1;
    ssize_t n = read(o->fd, o->buf + o->len, IOFWD_MAX_LINE - o->len);
    if (n > 0) {
        o->len += (size_t)n;
        emit_lines(o);
        return 1;
    }
    if (n < 0 && errno == EINTR)
        return 1;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    ostream_close(o);
    return -1;
}

static void on_output(void *arg, int fd, short revents)
{
    (void)fd;
    (void)revents;
    ostream_read(arg);
}

void ostream_open(ostream_t *o, ev_loop_t *loop, iofwd_sink_t *sink, int rank, int fd)
{
    o->loop = loop;
    o->sink = sink;
    o->rank = rank;
    o->fd = fd;
    o->buf = util_xmalloc(IOFWD_MAX_LINE);
    o->len = 0;
    util_set_nonblock(fd);
    ev_watch(loop, fd, POLLIN, on_output, o);
}

void ostream_drain(ostream_t *o)
{
    /* Bounded so that a rank's child that keeps writing cannot stall mpirun here. */
    for (int i = 0; i < 256 && ostream_read(o) > 0; i++)
        ;
}

void ostream_close(ostream_t *o)
{
    if (o->fd >= 0) {
        ev_unwatch(o->loop, o->fd);
        close(o->fd);
        o->fd = -1;
    }
    if (o->len) {
        emit(o, o->buf, o->len, 1);
        o->len = 0;
    }
    free(o->buf);
    o->buf = NULL;
}

int ostream_is_open(const ostream_t *o)
{
    return o->fd >= 0;
}

/* ---- input -------------------------------------------------------------------------- */

static void istream_update(istream_t *s);

static void stop_input(istream_t *s)
{
    if (s->in_fd >= 0) {
        ev_unwatch(s->loop, s->in_fd);  /* mpirun's stdin itself stays open */
        s->in_fd = -1;
    }
    s->eof = 1;
}

static void on_stdin(void *arg, int fd, short revents)
{
    istream_t *s = arg;
    (void)revents;
    size_t tail = (s->head + s->len) % IOFWD_STDIN_BUF;
    size_t room = IOFWD_STDIN_BUF - s->len;
    if (room > IOFWD_STDIN_BUF - tail)
        room = IOFWD_STDIN_BUF - tail;  /* contiguous part */
    ssize_t n = read(fd, s->buf + tail, room);
    if (n > 0)
        s->len += (size_t)n;
    else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        stop_input(s);  /* EOF, or an error such as EIO for a background terminal */
    istream_update(s);
}

static void on_pipe(void *arg, int fd, short revents)
{
    istream_t *s = arg;
    (void)revents;
    while (s->len > 0) {
        size_t chunk = s->len;
        if (chunk > IOFWD_STDIN_BUF - s->head)
            chunk = IOFWD_STDIN_BUF - s->head;
        ssize_t n = write(fd, s->buf + s->head, chunk);
        if (n > 0) {
            s->head = (s->head + (size_t)n) % IOFWD_STDIN_BUF;
            s->len -= (size_t)n;
            if (s->consumed)
                s->consumed(s->ctx, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {  /* EPIPE: rank 0 closed its stdin or exited; forward nothing more */
            s->len = 0;
            stop_input(s);
            break;
        }
    }
    istream_update(s);
}

/* Keeps the watchers consistent with the buffer state (see the header's invariants). */
static void istream_update(istream_t *s)
{
    if (s->out_fd < 0)
        return;
    if (s->eof && s->len == 0) {
        istream_close(s);
        return;
    }
    if (s->in_fd >= 0)
        ev_set_events(s->loop, s->in_fd, s->len < IOFWD_STDIN_BUF ? POLLIN : 0);
    ev_set_events(s->loop, s->out_fd, s->len > 0 ? POLLOUT : 0);
}

void istream_open(istream_t *s, ev_loop_t *loop, int in_fd, int out_fd)
{
    s->loop = loop;
    s->in_fd = in_fd;
    s->out_fd = out_fd;
    s->eof = 0;
    s->buf = util_xmalloc(IOFWD_STDIN_BUF);
    s->head = s->len = 0;
    util_set_nonblock(out_fd);
    if (in_fd >= 0)
        ev_watch(loop, in_fd, POLLIN, on_stdin, s);
    ev_watch(loop, out_fd, 0, on_pipe, s);
}

int istream_push(istream_t *s, const void *data, size_t len)
{
    if (s->out_fd < 0 || s->eof || len > IOFWD_STDIN_BUF - s->len)
        return -1;
    const char *p = data;
    while (len > 0) {
        size_t tail = (s->head + s->len) % IOFWD_STDIN_BUF;
        size_t chunk = IOFWD_STDIN_BUF - tail < len ? IOFWD_STDIN_BUF - tail : len;
        memcpy(s->buf + tail, p, chunk);
        s->len += chunk;
        p += chunk;
        len -= chunk;
    }
    istream_update(s);
    return 0;
}

void istream_push_eof(istream_t *s)
{
    if (s->out_fd < 0)
        return;
    s->eof = 1;
    istream_update(s);
}

void istream_close(istream_t *s)
{
    int was_open = s->out_fd >= 0;
    stop_input(s);
    if (s->out_fd >= 0) {
        ev_unwatch(s->loop, s->out_fd);
        close(s->out_fd);
        s->out_fd = -1;
    }
    free(s->buf);
    s->buf = NULL;
    if (was_open && s->closed)
        s->closed(s->ctx);
}
