#include "pmi_server.h"

#include "arch_summary.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void conn_close(pmi_conn_t *c)
{
    if (c->fd < 0)
        return;
    if (c->watched)
        ev_unwatch(c->srv->loop, c->fd);
    c->watched = 0;
    close(c->fd);
    c->fd = -1;
    c->outlen = 0;
}

/* Stops processing a rank's commands for good; the fd stays open until the rank is gone. */
static void conn_stop(pmi_conn_t *c)
{
    c->stopped = 1;
    if (c->watched)
        ev_unwatch(c->srv->loop, c->fd);
    c->watched = 0;
}

static void conn_update_events(pmi_conn_t *c)
{
    if (c->watched)
        ev_set_events(c->srv->loop, c->fd, c->outlen ? POLLOUT : c->asking ? 0 : POLLIN);
}

static void conn_flush(pmi_conn_t *c)
{
    size_t off = 0;
    while (off < c->outlen && c->fd >= 0) {
        ssize_t n = send(c->fd, c->out + off, c->outlen - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else {  /* the rank closed its end: nobody will read the replies, but what it
                   sent before (e.g. finalize) must still be processed */
            c->out_broken = 1;
            off = c->outlen;
        }
    }
    memmove(c->out, c->out + off, c->outlen - off);
    c->outlen -= off;
    conn_update_events(c);
}

static void reply(pmi_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(pmi_conn_t *c, const char *fmt, ...)
{
    if (c->fd < 0 || c->out_broken)
        return;
    char line[PMI_WIRE_MAXLINE + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (c->outlen + (size_t)n > c->outcap) {
        c->outcap = 2 * (c->outlen + (size_t)n);
        c->out = util_xrealloc(c->out, c->outcap);
    }
    memcpy(c->out + c->outlen, line, (size_t)n);
    c->outlen += (size_t)n;
    conn_flush(c);
}

static void fail(pmi_conn_t *c, enum pmi_fail_kind kind, const char *detail)
{
    conn_stop(c);
    c->srv->ops.fail(c->srv->ctx, c->rank, kind, detail);
}

static void invalid(pmi_conn_t *c, const char *line, size_t len)
{
    char text[320];
    util_sanitize(text, sizeof text, line, len, 200);
    if (len >= PMI_WIRE_MAXLINE)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 " (line longer than %d bytes)", PMI_WIRE_MAXLINE);
    else if (len == 0)
        snprintf(text, sizeof text, "(empty line)");
    fail(c, PMI_FAIL_INVALID, text);
}

/* Reports the first departed, unfinalized rank when ranks wait in a barrier. */
static void check_barrier_reachable(pmi_server_t *s)
{
    if (s->nbarrier == 0)
        return;
    for (int r = 0; r < s->nlocal; r++) {
        if (s->conn[r].departed && !s->conn[r].finalized) {
            s->ops.fail(s->ctx, r, PMI_FAIL_ABSENT, "");
            return;
        }
    }
}

void pmi_server_departed(pmi_server_t *s, int rank)
{
    s->conn[rank].departed = 1;
    check_barrier_reachable(s);
}

static void journal_clear(pmi_server_t *s)
{
    for (size_t i = 0; i < s->njournal; i++)
        free(s->journal[i]);
    s->njournal = 0;
}

static void journal_add(pmi_server_t *s, const char *key, const char *value)
{
    if (s->njournal + 2 > s->capjournal) {
        s->capjournal = s->capjournal ? 2 * s->capjournal : 64;
        s->journal = util_xrealloc(s->journal, s->capjournal * sizeof *s->journal);
    }
    s->journal[s->njournal++] = util_xstrdup(key);
    s->journal[s->njournal++] = util_xstrdup(value);
}

static void barrier_in(pmi_server_t *s, pmi_conn_t *c)
{
    c->in_barrier = 1;
    if (++s->nbarrier < s->nlocal) {
        check_barrier_reachable(s);
        return;
    }
    if (s->ops.barrier) {  /* the other hosts' ranks must arrive too */
        s->waiting = 1;
        s->ops.barrier(s->ctx, (const char *const *)s->journal, s->njournal / 2);
        journal_clear(s);
        return;
    }
    pmi_server_release(s);
}

void pmi_server_release(pmi_server_t *s)
{
    /* every rank's pairs are here now: the job's architectures in one pair */
    arch_summary_publish(&s->kvs, s->size);
    /* Everyone is in: release all, and the barrier is ready for reuse. */
    s->waiting = 0;
    s->nbarrier = 0;
    for (int r = 0; r < s->nlocal; r++) {
        if (s->conn[r].in_barrier) {
            s->conn[r].in_barrier = 0;
            reply(&s->conn[r], "cmd=barrier_out");
        }
    }
}

/* cmd=spawn: hands the request received so far to the owner, or refuses it. */
static void start_spawn(pmi_conn_t *c)
{
    pmi_server_t *s = c->srv;
    const char *why = !s->ops.spawn      ? "this launcher cannot start ranks"
                      : c->spawn.refused ? "the request is too large"
                      : !c->spawn.napps  ? "the request names no program"
                                         : NULL;
    if (why) {
        pmi_spawn_free(&c->spawn);
        pmi_server_spawn_reply(s, c->rank, NULL, 0, why);
        return;
    }
    pmi_spawn_req_t *req = util_xmalloc(sizeof *req);
    *req = c->spawn;
    memset(&c->spawn, 0, sizeof c->spawn);
    s->ops.spawn(s->ctx, c->rank, req);
}

void pmi_server_spawn_reply(pmi_server_t *s, int rank, const char *kvsname, int size,
                            const char *err)
{
    pmi_conn_t *c = &s->conn[rank];
    if (!err) {
        reply(c, "cmd=spawn_result rc=0 kvsname=%s size=%d", kvsname, size);
        return;
    }
    char hex[2 * 400 + 2];
    char text[400];
    snprintf(text, sizeof text, "%s", err);
    pmi_spawn_hex_encode(text, hex);
    reply(c, "cmd=spawn_result rc=-1 msg=%s", hex);
}

void pmi_server_set_universe(pmi_server_t *s, int universe)
{
    s->universe = universe;
}

void pmi_server_set_appnum(pmi_server_t *s, int rank, int appnum)
{
    s->conn[rank].appnum = appnum;
}

/* Hands the line to the owner; the connection reads nothing more until the answer. */
static void ask(pmi_conn_t *c, const char *line, size_t len)
{
    char text[PMI_WIRE_MAXLINE + 1];
    memcpy(text, line, len);
    text[len] = '\0';
    c->asking = 1;
    free(c->asked);
    c->asked = util_xstrdup(text);
    if (c->watched && !c->outlen)
        ev_set_events(c->srv->loop, c->fd, 0);
    c->srv->ops.ask(c->srv->ctx, c->rank, text);
}

static int process_lines(pmi_conn_t *c);

void pmi_server_answer(pmi_server_t *s, int rank, const char *line)
{
    pmi_conn_t *c = &s->conn[rank];
    if (!c->asking)
        return;
    c->asking = 0;
    if (c->stopped || c->fd < 0)
        return;
    if (!line) {
        invalid(c, c->asked, strlen(c->asked));
        return;
    }
    reply(c, "%s", line);
    process_lines(c);   /* what the rank sent meanwhile */
    conn_update_events(c);
}

/* Handles one complete line (without its newline). */
static void handle_line(pmi_conn_t *c, const char *line, size_t len)
{
    pmi_server_t *s = c->srv;
    static pmi_msg_t m;  /* large; single-threaded */
    static char out[PMI_WIRE_MAXLINE];
    int shared;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (pmi_wire_parse(line, len, &m) != 0) {
        invalid(c, line, len);
        return;
    }
    const char *cmd = pmi_msg_cmd(&m);
    if (strcmp(cmd, "init") == 0) {
        const char *v = pmi_msg_get(&m, "pmi_version");
        if (!v || strcmp(v, "1") != 0) {
            reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1");
            fail(c, PMI_FAIL_VERSION, v ? v : "(none)");
            return;
        }
        c->inited = 1;
        reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(c, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0",
              PMI_WIRE_KVSNAME_MAX, PMI_WIRE_KEYLEN_MAX, PMI_WIRE_VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(c, "cmd=appnum appnum=%d rc=0", c->appnum);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(c, "cmd=universe_size size=%d rc=0", s->universe);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(c, "cmd=my_kvsname kvsname=%s rc=0", s->kvsname);
    } else if (strcmp(cmd, "put") == 0) {
        const char *k = pmi_msg_get(&m, "kvsname"), *key = pmi_msg_get(&m, "key"),
                   *val = pmi_msg_get(&m, "value");
        if (!k || strcmp(k, s->kvsname) != 0)
            reply(c, "cmd=put_result rc=-1 msg=wrong_kvsname");
        else if (!key || !pmi_wire_valid_key(key))
            reply(c, "cmd=put_result rc=-1 msg=invalid_key");
        else if (!val || !pmi_wire_valid_value(val))
            reply(c, "cmd=put_result rc=-1 msg=invalid_value");
        else if (kvs_put(&s->kvs, key, val) != 0)
            reply(c, "cmd=put_result rc=-1 msg=kvs_full");
        else {
            if (s->ops.barrier)
                journal_add(s, key, val);
            if (s->ops.put)
                s->ops.put(s->ctx, key, val);
            reply(c, "cmd=put_result rc=0 msg=success");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *k = pmi_msg_get(&m, "kvsname"), *key = pmi_msg_get(&m, "key");
        const char *val = NULL;
        int own = k && strcmp(k, s->kvsname) == 0;
        /* another space, or a key of ours put on another host since the last barrier */
        if (k && s->ops.ask && (!own || (key && !kvs_get(&s->kvs, key)))) {
            ask(c, line, len);
            return;
        }
        if (!k || (!own && !s->ops.lookup))
            reply(c, "cmd=get_result rc=-1 msg=wrong_kvsname");
        else if (!key || !pmi_wire_valid_key(key))
            reply(c, "cmd=get_result rc=-1 msg=invalid_key");
        else if (!(val = own ? kvs_get(&s->kvs, key) : s->ops.lookup(s->ctx, k, key)))
            reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found", key);
        else
            reply(c, "cmd=get_result rc=0 msg=success value=%s", val);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        if (c->in_barrier) {  /* a second barrier_in before barrier_out */
            invalid(c, line, len);
            return;
        }
        barrier_in(s, c);
    } else if (pmi_spawn_is_part(cmd)) {
        int rc = pmi_spawn_line(&c->spawn, &m);
        if (rc == PMI_SPAWN_INVALID) {
            invalid(c, line, len);
            return;
        }
        reply(c, "cmd=spawn_ack rc=%d", rc == PMI_SPAWN_OK ? 0 : -1);
    } else if (strcmp(cmd, "spawn") == 0) {
        start_spawn(c);
    } else if (s->ops.shared && (shared = s->ops.shared(s->ctx, &m, out, sizeof out)) != 0) {
        if (shared < 0) {
            invalid(c, line, len);
            return;
        }
        reply(c, "%s", out);
    } else if (strcmp(cmd, "finalize") == 0) {
        c->finalized = 1;
        reply(c, "cmd=finalize_ack");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = pmi_msg_get(&m, "exitcode");
        const char *msg = pmi_msg_get(&m, "error_msg");
        char *end = NULL;
        long v = code ? strtol(code, &end, 10) : 1;
        if (code && (end == code || *end))
            v = 1;
        char text[1024];
        if (msg)
            util_sanitize(text, sizeof text, msg, strlen(msg), 900);
        conn_stop(c);
        s->ops.abort(s->ctx, c->rank, (int)v, msg && *msg ? text : NULL);
    } else if (s->ops.ask) {
        ask(c, line, len);
    } else {
        invalid(c, line, len);
    }
}

/* Reads once and processes complete lines. Returns 1 if more data may follow, 0 if not. */
static int conn_read(pmi_conn_t *c)
{
    if (c->fd < 0 || c->stopped || c->outlen || c->asking)
        return 0;
    ssize_t n = read(c->fd, c->in + c->inlen, sizeof c->in - c->inlen);
    if (n < 0 && errno == EINTR)
        return 1;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0) {  /* EOF or error: the rank closed its end (an unterminated line is dropped) */
        conn_close(c);
        return 0;
    }
    c->inlen += (size_t)n;
    return process_lines(c);
}

/* Processes the complete lines read (until one is asked about). 1 if more may follow. */
static int process_lines(pmi_conn_t *c)
{
    size_t start = 0;
    while (!c->stopped && c->fd >= 0 && !c->asking) {
        char *nl = memchr(c->in + start, '\n', c->inlen - start);
        if (!nl)
            break;
        size_t len = (size_t)(nl - (c->in + start));
        handle_line(c, c->in + start, len);
        start += len + 1;
    }
    if (c->stopped || c->fd < 0)
        return 0;
    memmove(c->in, c->in + start, c->inlen - start);
    c->inlen -= start;
    if (c->inlen == sizeof c->in && !c->asking) {
        invalid(c, c->in, c->inlen);  /* no newline within PMI_WIRE_MAXLINE bytes */
        return 0;
    }
    return 1;
}

static void on_event(void *arg, int fd, short revents)
{
    (void)fd;
    pmi_conn_t *c = arg;
    if (revents & POLLOUT)
        conn_flush(c);
    else if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
        conn_read(c);
}

void pmi_server_init(pmi_server_t *s, ev_loop_t *loop, const char *kvsname, int nlocal,
                     int size, const char *mapping, const pmi_server_ops_t *ops, void *ctx)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    snprintf(s->kvsname, sizeof s->kvsname, "%s", kvsname);
    s->nlocal = nlocal;
    s->size = size;
    s->universe = size;
    s->conn = util_xmalloc((size_t)nlocal * sizeof *s->conn);
    memset(s->conn, 0, (size_t)nlocal * sizeof *s->conn);
    for (int r = 0; r < nlocal; r++) {
        s->conn[r].srv = s;
        s->conn[r].rank = r;
        s->conn[r].fd = -1;
    }
    kvs_init(&s->kvs);
    /* The placement of ranks on hosts, in the format of MPICH's process managers, so the
     * library learns which ranks share its host without an exchange; by default one host,
     * all ranks. Every host's server holds it before any rank starts: never journalled. */
    char single[64];
    snprintf(single, sizeof single, "(vector,(0,1,%d))", size);
    if (!mapping || *mapping)
        kvs_put(&s->kvs, "PMI_process_mapping", mapping ? mapping : single);
    s->ops = *ops;
    s->ctx = ctx;
}

int pmi_server_put(pmi_server_t *s, const char *key, const char *value)
{
    return kvs_put(&s->kvs, key, value);
}

void pmi_server_attach(pmi_server_t *s, int rank, int fd)
{
    pmi_conn_t *c = &s->conn[rank];
    util_set_nonblock(fd);
    c->fd = fd;
    c->watched = 1;
    ev_watch(s->loop, fd, POLLIN, on_event, c);
}

void pmi_server_drain(pmi_server_t *s, int rank)
{
    pmi_conn_t *c = &s->conn[rank];
    /* Bounded: the dead rank's socket holds a finite amount of data. */
    for (int i = 0; i < 1024 && c->fd >= 0 && !c->stopped; i++) {
        if (c->outlen)
            conn_flush(c);
        if (c->outlen) {  /* replies cannot be delivered; the rank is gone: drop them */
            c->outlen = 0;
            conn_update_events(c);
        }
        if (!conn_read(c))
            break;
    }
}

int pmi_server_inited(const pmi_server_t *s, int rank)
{
    return s->conn[rank].inited;
}

int pmi_server_finalized(const pmi_server_t *s, int rank)
{
    return s->conn[rank].finalized;
}

void pmi_server_free(pmi_server_t *s)
{
    for (int r = 0; r < s->nlocal; r++) {
        conn_close(&s->conn[r]);
        free(s->conn[r].out);
        free(s->conn[r].asked);
        pmi_spawn_free(&s->conn[r].spawn);
    }
    free(s->conn);
    journal_clear(s);
    free(s->journal);
    kvs_free(&s->kvs);
}
