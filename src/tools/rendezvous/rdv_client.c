#include "rdv_client.h"
#include "rdv_link.h"
#include "net/clock.h"
#include "net/secure.h"

#include <openssl/crypto.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define RETRY_MS 500   /* between connection attempts while the server is not there */

typedef struct cl {
    int fd, sigfd;
    net_secure_t *sec;  /* TLS once the server's verdict has accepted the key */
    int closed;       /* the server closed the connection (end of stream, a reset) */
    int *signo;
    const char *server;
    const char *x509_host; /* X.509: the name the server's certificate must carry; NULL: PSK */
    char *err;
    size_t errlen;
    unsigned char *rest;  /* bytes read after the LAYOUT (kept by a link) */
    size_t restlen;
} cl_t;

enum { W_READY = 0, W_TIMEOUT = 1, W_SIGNAL = 2 };

static void fail(cl_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(cl_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
}

/* Waits until fd (-1: none) has events or the deadline passes or a signal comes. */
static int wait_for(cl_t *c, int fd, short events, long long deadline)
{
    for (;;) {
        struct pollfd p[2] = { { .fd = fd, .events = events },
                               { .fd = c->sigfd, .events = POLLIN } };
        long long left = deadline - net_now_ms();
        if (left <= 0)
            return W_TIMEOUT;
        int rc = poll(p, 2, left > 60000 ? 60000 : (int)left);
        if (rc < 0 && errno != EINTR)
            return W_TIMEOUT;
        if (rc <= 0)
            continue;
        if (p[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(c->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                *c->signo = (int)si.ssi_signo;
                return W_SIGNAL;
            }
        }
        if (p[0].revents)
            return W_READY;
    }
}

int rdv_split_hostport(const char *s, char *host, size_t hostcap, char *port, size_t portcap,
                       int min_port)
{
    const char *colon, *h = s;
    size_t hl;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return -1;
        h = s + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || strchr(s, ':') != colon)
            return -1;
        hl = (size_t)(colon - s);
    }
    const char *p = colon + 1;
    size_t pl = strlen(p);
    if (hl == 0 || hl >= hostcap || pl == 0 || pl > 5 || pl >= portcap)
        return -1;
    long v = 0;
    for (size_t i = 0; i < pl; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = 10 * v + (p[i] - '0');
    }
    if (v < min_port || v > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    memcpy(port, p, pl + 1);
    return 0;
}

/* Connects c->fd to one of the server's addresses; retries while nobody listens. */
static int connect_server(cl_t *c, int wait_ms)
{
    char host[256], port[8];
    if (rdv_split_hostport(c->server, host, sizeof host, port, sizeof port, 1) != 0) {
        fail(c, "the rendezvous address '%s' is not HOST:PORT", c->server);
        return RDV_CLIENT_FAIL;
    }
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g != 0) {
        fail(c, "cannot resolve the rendezvous server's host '%s': %s", host, gai_strerror(g));
        return RDV_CLIENT_FAIL;
    }
    long long deadline = net_now_ms() + wait_ms;
    int last = 0;
    for (;;) {
        for (struct addrinfo *a = ai; a; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                            a->ai_protocol);
            if (fd < 0) {
                last = errno;
                continue;
            }
            int e = 0;
            if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
                e = errno;
                if (e == EINPROGRESS) {
                    int w = wait_for(c, fd, POLLOUT, deadline);
                    if (w != W_READY) {
                        close(fd);
                        freeaddrinfo(ai);
                        if (w == W_SIGNAL)
                            return RDV_CLIENT_SIGNAL;
                        fail(c, "cannot reach the rendezvous server at %s within %d s: "
                             "connection attempt timed out", c->server, wait_ms / 1000);
                        return RDV_CLIENT_FAIL;
                    }
                    socklen_t l = sizeof e;
                    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
                        e = errno;
                }
            }
            if (e == 0) {
                freeaddrinfo(ai);
                c->fd = fd;
                return RDV_CLIENT_OK;
            }
            close(fd);
            last = e;
        }
        if (net_now_ms() + RETRY_MS > deadline)
            break;
        if (wait_for(c, -1, 0, net_now_ms() + RETRY_MS) == W_SIGNAL) {
            freeaddrinfo(ai);
            return RDV_CLIENT_SIGNAL;
        }
    }
    freeaddrinfo(ai);
    fail(c, "cannot reach the rendezvous server at %s within %d s: %s", c->server,
         wait_ms / 1000, strerror(last));
    return RDV_CLIENT_FAIL;
}

static int send_all(cl_t *c, const void *buf, size_t len, long long deadline)
{
    const unsigned char *p = buf;
    while (len) {
        struct iovec v = { .iov_base = (void *)p, .iov_len = len };
        ssize_t n = c->sec ? net_secure_writev(c->sec, &v, 1)
                           : send(c->fd, p, len, MSG_NOSIGNAL);
        if (n == 0 && c->sec)
            errno = EAGAIN; /* the socket is full; the same bytes go again */
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = wait_for(c, c->fd, POLLOUT, deadline);
            if (w == W_SIGNAL)
                return RDV_CLIENT_SIGNAL;
            if (w == W_TIMEOUT) {
                fail(c, "the rendezvous server at %s does not take what this part sends",
                     c->server);
                return RDV_CLIENT_FAIL;
            }
            continue;
        }
        int e = errno;
        c->closed = e == ECONNRESET || e == EPIPE;
        if (e != EBADMSG && c->sec) {
            /* an X.509 server that refused this part's certificate has sent its alert and
             * closed: the alert, still to be read, says why */
            unsigned char b;
            struct iovec one = { .iov_base = &b, .iov_len = 1 };
            if (net_secure_readv(c->sec, &one, 1) < 0 && errno == EBADMSG)
                e = EBADMSG;
        }
        fail(c, "lost the connection to the rendezvous server at %s: %s", c->server,
             e == EBADMSG ? net_secure_error(c->sec) : strerror(e));
        return RDV_CLIENT_FAIL;
    }
    return RDV_CLIENT_OK;
}

/* Reads up to cap bytes that are there (at least one). what: for messages. */
static int recv_some(cl_t *c, unsigned char *buf, size_t cap, size_t *got, long long deadline,
                     const char *what)
{
    for (;;) {
        struct iovec v = { .iov_base = buf, .iov_len = cap };
        ssize_t n = c->sec ? net_secure_readv(c->sec, &v, 1) : recv(c->fd, buf, cap, 0);
        if (n > 0) {
            *got = (size_t)n;
            return RDV_CLIENT_OK;
        }
        if (n == 0) {
            c->closed = 1;
            fail(c, "the rendezvous server at %s closed the connection %s", c->server, what);
            return RDV_CLIENT_FAIL;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            c->closed = errno == ECONNRESET;
            fail(c, "lost the connection to the rendezvous server at %s %s: %s", c->server,
                 what, errno == EBADMSG ? net_secure_error(c->sec) : strerror(errno));
            return RDV_CLIENT_FAIL;
        }
        int w = wait_for(c, c->fd, POLLIN, deadline);
        if (w == W_SIGNAL)
            return RDV_CLIENT_SIGNAL;
        if (w == W_TIMEOUT) {
            fail(c, "the rendezvous server at %s sent nothing %s in time", c->server, what);
            return RDV_CLIENT_FAIL;
        }
    }
}

static int recv_exact(cl_t *c, unsigned char *buf, size_t len, long long deadline,
                      const char *what)
{
    size_t have = 0;
    while (have < len) {
        size_t got;
        int rc = recv_some(c, buf + have, len - have, &got, deadline, what);
        if (rc != RDV_CLIENT_OK)
            return rc;
        have += got;
    }
    return RDV_CLIENT_OK;
}

/* TLS from the proven handshake on (rdv_wire.h): the part is the TLS client. */
static int secure(cl_t *c, const auth_key_t *key, const unsigned char na[AUTH_NONCE],
                  const unsigned char nc[AUTH_NONCE], long long deadline)
{
    unsigned char psk[NET_SECURE_PSK];
    char why[700];
    if (c->x509_host) {
        c->sec = net_secure_start_x509(c->fd, 0, c->x509_host, why, sizeof why);
    } else {
        net_secure_psk(key, "rdv", na, nc, psk);
        c->sec = net_secure_start(c->fd, 0, psk, why, sizeof why);
        OPENSSL_cleanse(psk, sizeof psk);
    }
    int rc = c->sec ? 0 : -1;
    short wants = POLLOUT;
    while (c->sec && (rc = net_secure_step(c->sec, &wants, why, sizeof why)) == 0) {
        int w = wait_for(c, c->fd, wants, deadline);
        if (w == W_SIGNAL)
            return RDV_CLIENT_SIGNAL;
        if (w == W_TIMEOUT) {
            fail(c, "the rendezvous server at %s did not finish the TLS handshake in time",
                 c->server);
            return RDV_CLIENT_FAIL;
        }
    }
    if (rc < 0) {
        /* a server flooded with connections may have dropped this one in its handshake:
         * connect again (rdv_client_join), as when that happens before the verdict */
        char b;
        ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        /* (a refused certificate is final: the server closing after it is no flood) */
        c->closed = c->sec && !net_secure_refused(c->sec) &&
                    (n == 0 || (n < 0 && errno == ECONNRESET));
        fail(c, "no secure connection to the rendezvous server at %s: %s", c->server, why);
        return RDV_CLIENT_FAIL;
    }
    return RDV_CLIENT_OK;
}

static int handshake(cl_t *c, const auth_key_t *key, rdv_mac_ctx_t *tx, rdv_mac_ctx_t *rx)
{
    long long deadline = net_now_ms() + RDV_JOIN_ANSWER_MS;
    unsigned char ch[RDV_CHALLENGE_LEN], hello[RDV_HELLO_LEN], verdict[RDV_VERDICT_LEN];
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    int rc = recv_exact(c, ch, sizeof ch, deadline, "before its challenge");
    if (rc != RDV_CLIENT_OK)
        return rc;
    const char *bad = rdv_challenge_parse(ch, na);
    if (bad) {
        fail(c, "%s: %s", c->server, bad);
        return RDV_CLIENT_FAIL;
    }
    if (auth_nonce(nc) != 0) {
        fail(c, "no randomness for a nonce");
        return RDV_CLIENT_FAIL;
    }
    rdv_hello_encode(hello, key, na, nc);
    if ((rc = send_all(c, hello, sizeof hello, deadline)) != RDV_CLIENT_OK)
        return rc;
    rc = recv_exact(c, verdict, sizeof verdict, deadline, "during the handshake");
    if (rc != RDV_CLIENT_OK)
        return rc;
    if ((bad = rdv_verdict_parse(verdict, key, nc, na))) {
        fail(c, "the rendezvous server at %s %s", c->server, bad);
        return RDV_CLIENT_FAIL;
    }
    if ((rc = secure(c, key, na, nc, deadline)) != RDV_CLIENT_OK)
        return rc;
    *tx = (rdv_mac_ctx_t){ .key = *key, .seq = 0, .dir = RDV_FROM_PART };
    memcpy(tx->na, na, AUTH_NONCE);
    memcpy(tx->nc, nc, AUTH_NONCE);
    *rx = *tx;
    rx->dir = RDV_FROM_SERVER;
    return RDV_CLIENT_OK;
}

/* Joins and waits for the answer frames until LAYOUT (kept in res). */
static int join_and_wait(cl_t *c, const rdv_request_t *q, rdv_mac_ctx_t *tx, rdv_mac_ctx_t *rx,
                         rdv_result_t *res)
{
    rdv_buf_t b = { 0 };
    rdv_begin(&b, RDV_JOIN);
    rdv_put_u32(&b, RDV_VERSION);
    rdv_put_str(&b, q->job);
    rdv_put_str(&b, q->site);
    rdv_put_strs(&b, q->sites, q->nsites);
    rdv_put_str(&b, q->wan ? q->wan : "");
    rdv_put_u32(&b, q->nranks);
    rdv_put_strs(&b, q->hosts, q->nhosts);
    rdv_put_u32s(&b, q->rank_host, q->nranks);
    rdv_put_str(&b, q->gateway);
    if (rdv_end(&b, tx) != 0) {
        rdv_buf_free(&b);
        fail(c, "this part's JOIN exceeds %u bytes (too many hosts)", RDV_MAX_FRAME);
        return RDV_CLIENT_FAIL;
    }
    long long deadline = net_now_ms() + RDV_JOIN_ANSWER_MS;
    int rc = send_all(c, b.p, b.len, deadline);
    rdv_buf_free(&b);
    if (rc != RDV_CLIENT_OK)
        return rc;
    size_t cap = RDV_MAX_FRAME + 4, have = 0;
    unsigned char *in = malloc(cap);
    if (!in) {
        fail(c, "out of memory");
        return RDV_CLIENT_FAIL;
    }
    const char *what = "before answering the JOIN";
    for (;;) {
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        char err[256], tmp[32];
        int fr = rdv_frame_open(in, have, rx, &type, &body, &blen, &used, err, sizeof err);
        if (fr == RDV_MORE) {
            size_t got;
            rc = recv_some(c, in + have, cap - have, &got, deadline, what);
            if (rc != RDV_CLIENT_OK)
                break;
            have += got;
            continue;
        }
        if (fr == RDV_BAD) {
            fail(c, "the rendezvous server at %s broke the protocol: %s", c->server, err);
            rc = RDV_CLIENT_FAIL;
            break;
        }
        const char *text;
        if (type == RDV_WAITING) {
            uint32_t ms_left;
            rdv_strs_t missing;
            if (rdv_waiting_parse(body, blen, &ms_left, &missing, err, sizeof err) != 0) {
                fail(c, "the rendezvous server at %s broke the protocol: %s", c->server, err);
                rc = RDV_CLIENT_FAIL;
                break;
            }
            deadline = net_now_ms() + ms_left + RDV_LAYOUT_GRACE_MS;
            what = "before all sites joined";
            if (q->waiting && missing.n) {
                char names[1024];
                size_t len = 0;
                names[0] = '\0';
                for (uint32_t i = 0; i < missing.n; i++) {
                    int w = snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                     rdv_strs_next(&missing));
                    if (w < 0 || (size_t)w >= sizeof names - len)
                        break; /* the names so far (snprintf cut the last) */
                    len += (size_t)w;
                }
                q->waiting(names, (ms_left + 999) / 1000);
            }
        } else if (type == RDV_REFUSED || type == RDV_ABORT) {
            if (rdv_text_parse(body, blen, &text, err, sizeof err) != 0)
                fail(c, "the rendezvous server at %s broke the protocol: %s", c->server, err);
            else if (type == RDV_REFUSED)
                fail(c, "the rendezvous server at %s refused this part: %s", c->server, text);
            else
                fail(c, "the rendezvous server at %s called the job off: %s", c->server, text);
            rc = RDV_CLIENT_FAIL;
            break;
        } else if (type == RDV_LAYOUT) {
            res->l = malloc(sizeof *res->l);
            res->body = malloc(blen ? blen : 1);
            if (!res->l || !res->body) {
                fail(c, "out of memory");
                rc = RDV_CLIENT_FAIL;
                break;
            }
            memcpy(res->body, body, blen);
            if (rdv_layout_parse(res->body, blen, res->l, err, sizeof err) != 0) {
                fail(c, "the rendezvous server at %s broke the protocol: %s", c->server, err);
                rc = RDV_CLIENT_FAIL;
                break;
            }
            rc = RDV_CLIENT_OK;
            if (have > used && (c->rest = malloc(have - used))) {
                memcpy(c->rest, in + used, have - used);
                c->restlen = have - used;
            }
            break;
        } else {
            fail(c, "the rendezvous server at %s broke the protocol: unexpected %s frame",
                 c->server, rdv_type_name(type, tmp, sizeof tmp));
            rc = RDV_CLIENT_FAIL;
            break;
        }
        memmove(in, in + used, have - used);
        have -= used;
    }
    free(in);
    if (rc != RDV_CLIENT_OK)
        rdv_result_free(res);
    return rc;
}

int rdv_client_join(const char *server, const auth_key_t *key, const rdv_request_t *req,
                    int connect_wait_ms, int sigfd, rdv_result_t *res, int *signo,
                    rdv_link_t **link, char *err, size_t errlen)
{
    if (link)
        *link = NULL;
    cl_t c = { .fd = -1, .sigfd = sigfd, .signo = signo, .server = server, .err = err,
               .errlen = errlen };
    memset(res, 0, sizeof *res);
    err[0] = '\0';
    char host[256], port[8];
    if (req->x509) {
        if (rdv_split_hostport(server, host, sizeof host, port, sizeof port, 1) != 0) {
            fail(&c, "the rendezvous address '%s' is not HOST:PORT", server);
            return RDV_CLIENT_FAIL;
        }
        c.x509_host = host;
    }
    /* A server flooded with idle connections drops the oldest ones in the handshake: a part
     * whose connection is closed before the server's verdict connects again, for as long as
     * it would wait for the server to be there at all. */
    long long deadline = net_now_ms() + connect_wait_ms;
    rdv_mac_ctx_t tx, rx;
    int rc;
    for (;;) {
        long long left = deadline - net_now_ms();
        rc = connect_server(&c, left > 0 ? (int)left : 0);
        if (rc != RDV_CLIENT_OK)
            break;
        c.closed = 0;
        rc = handshake(&c, key, &tx, &rx);
        if (rc != RDV_CLIENT_FAIL || !c.closed || net_now_ms() + RETRY_MS > deadline)
            break;
        net_secure_free(c.sec);
        c.sec = NULL;
        close(c.fd);
        c.fd = -1;
        if (wait_for(&c, -1, 0, net_now_ms() + RETRY_MS) == W_SIGNAL) {
            rc = RDV_CLIENT_SIGNAL;
            break;
        }
    }
    if (rc == RDV_CLIENT_OK)
        rc = join_and_wait(&c, req, &tx, &rx, res);
    rdv_link_t *l = rc == RDV_CLIENT_OK && link ? calloc(1, sizeof *l) : NULL;
    if (l) {
        /* the connection stays for the running job (rdv_link.h) */
        *l = (rdv_link_t){ .fd = c.fd, .sec = c.sec, .tx = tx, .rx = rx, .in = c.rest,
                           .inlen = c.restlen, .incap = c.restlen };
        snprintf(l->server, sizeof l->server, "%s", server);
        *link = l;
        return rc;
    }
    free(c.rest);
    net_secure_free(c.sec);
    if (c.fd >= 0)
        close(c.fd);
    return rc;
}

void rdv_result_free(rdv_result_t *res)
{
    free(res->body);
    free(res->l);
    res->body = NULL;
    res->l = NULL;
}
