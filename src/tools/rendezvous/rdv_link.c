#include "rdv_link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rdv_link_fd(const rdv_link_t *l)
{
    return l->fd;
}

int rdv_link_wants_out(const rdv_link_t *l)
{
    return l->outoff < l->out.len;
}

int rdv_link_flush(rdv_link_t *l, char *err, size_t errlen)
{
    while (l->outoff < l->out.len) {
        /* a write that found the socket full offers the same bytes again (net/secure.h) */
        struct iovec v = { .iov_base = l->out.p + l->outoff, .iov_len = l->out.len - l->outoff };
        long n = net_secure_writev(l->sec, &v, 1);
        if (n > 0) {
            l->outoff += (size_t)n;
            continue;
        }
        if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno == EINTR)
            continue;
        snprintf(err, errlen, "lost the connection to the rendezvous server at %s: %s",
                 l->server, errno == EBADMSG ? net_secure_error(l->sec) : strerror(errno));
        return -1;
    }
    l->outoff = l->out.len = 0;
    return 0;
}

int rdv_link_numbers(rdv_link_t *l, const char *kvsname, uint32_t count, const char *sites,
                     char *err, size_t errlen)
{
    rdv_begin(&l->out, RDV_NUMBERS);
    rdv_put_str(&l->out, kvsname);
    rdv_put_u32(&l->out, count);
    rdv_put_str(&l->out, sites);
    if (rdv_end(&l->out, &l->tx) != 0) {
        snprintf(err, errlen, "the request for numbers exceeds %u bytes", RDV_MAX_FRAME);
        return -1;
    }
    return rdv_link_flush(l, err, errlen);
}

int rdv_link_gw_ok(rdv_link_t *l, uint32_t base, uint32_t site, const char *why, char *err,
                   size_t errlen)
{
    rdv_begin(&l->out, RDV_GW_OK);
    rdv_put_u32(&l->out, base);
    rdv_put_u32(&l->out, site);
    rdv_put_str(&l->out, why);
    rdv_end(&l->out, &l->tx);   /* small: fits */
    return rdv_link_flush(l, err, errlen);
}

int rdv_link_relay(rdv_link_t *l, uint32_t site, uint32_t kind, uint32_t id,
                   const char *const *fields, uint32_t n, char *err, size_t errlen)
{
    rdv_begin(&l->out, RDV_RELAY);
    rdv_put_u32(&l->out, site);
    rdv_put_u32(&l->out, kind);
    rdv_put_u32(&l->out, id);
    rdv_put_strs(&l->out, fields, n);
    if (rdv_end(&l->out, &l->tx) != 0) {
        snprintf(err, errlen, "a message for another site exceeds %u bytes", RDV_MAX_FRAME);
        return -1;
    }
    return rdv_link_flush(l, err, errlen);
}

/* The frames in l->in, each handed to cb. 0, or -1 (err). */
static int frames(rdv_link_t *l, rdv_link_cb cb, void *ctx, char *err, size_t errlen)
{
    for (;;) {
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        char why[256], tmp[32];
        int rc = rdv_frame_open(l->in, l->inlen, &l->rx, &type, &body, &blen, &used, why,
                                sizeof why);
        if (rc == RDV_MORE)
            return 0;
        rdv_ranks_t r;
        rdv_relay_t m;
        memset(&m, 0, sizeof m);
        if (rc == RDV_OK && type == RDV_RELAY) {
            memset(&r, 0, sizeof r);
            rc = rdv_relay_parse(body, blen, &m, why, sizeof why) == 0 ? RDV_OK : RDV_BAD;
        } else if (rc == RDV_OK && type == RDV_RANKS) {
            rc = rdv_ranks_parse(body, blen, &r, why, sizeof why) == 0 ? RDV_OK : RDV_BAD;
        } else if (rc == RDV_OK && type == RDV_GW_OK) {
            memset(&r, 0, sizeof r);
            rc = rdv_gw_ok_parse(body, blen, &r.base, &r.site, &r.why, why, sizeof why) == 0
                     ? RDV_OK : RDV_BAD;
        } else if (rc == RDV_OK) {
            snprintf(why, sizeof why, "unexpected %s frame", rdv_type_name(type, tmp,
                                                                           sizeof tmp));
            rc = RDV_BAD;
        }
        if (rc == RDV_BAD) {
            snprintf(err, errlen, "the rendezvous server at %s broke the protocol: %s",
                     l->server, why);
            return -1;
        }
        cb(ctx, type, &r, &m);
        memmove(l->in, l->in + used, l->inlen - used);
        l->inlen -= used;
    }
}

int rdv_link_read(rdv_link_t *l, rdv_link_cb cb, void *ctx, char *err, size_t errlen)
{
    /* frames read with the layout come first (no poll announces them) */
    if (l->inlen && frames(l, cb, ctx, err, errlen) != 0)
        return -1;
    for (;;) {
        if (l->incap - l->inlen < 4096) {
            size_t cap = l->incap < RDV_MAX_FRAME + 8 ? RDV_MAX_FRAME + 8 : 2 * l->incap;
            unsigned char *p = realloc(l->in, cap);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            l->in = p;
            l->incap = cap;
        }
        struct iovec v = { .iov_base = l->in + l->inlen, .iov_len = l->incap - l->inlen };
        long n = net_secure_readv(l->sec, &v, 1);
        if (n > 0) {
            l->inlen += (size_t)n;
            if (frames(l, cb, ctx, err, errlen) != 0)
                return -1;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n == 0)
            snprintf(err, errlen, "the rendezvous server at %s closed the connection",
                     l->server);
        else
            snprintf(err, errlen, "lost the connection to the rendezvous server at %s: %s",
                     l->server, errno == EBADMSG ? net_secure_error(l->sec) : strerror(errno));
        return -1;
    }
}

void rdv_link_close(rdv_link_t *l)
{
    if (!l)
        return;
    net_secure_free(l->sec);
    if (l->fd >= 0)
        close(l->fd);
    free(l->in);
    rdv_buf_free(&l->out);
    free(l);
}
