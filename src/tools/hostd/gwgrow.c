#include "gwgrow.h"

#include "parts_ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ready(gwgrow_t *w, uint32_t part, const char *why)
{
    const char *f[1] = { why };
    parts_ctl_send(w->ch, CTL_PARTS_GW_READY, part, 0, f, 1);
}

/* One answer line of the gateway: "ok TAG" or "no TAG WHY". */
static void answer(gwgrow_t *w, char *line)
{
    char *sp = strchr(line, ' ');
    if (!sp)
        return;
    *sp = '\0';
    char *tag = sp + 1, *rest = strchr(tag, ' ');
    if (rest)
        *rest++ = '\0';
    char *end;
    unsigned long part = strtoul(tag, &end, 10);
    if (*end || part == 0 || part > UINT32_MAX)
        return;   /* not ours: the gateway answers the tags it got */
    if (strcmp(line, "ok") == 0)
        ready(w, (uint32_t)part, "");
    else
        ready(w, (uint32_t)part, rest && *rest ? rest : "the site gateway refused the ranks");
}

static void on_answer(void *arg, int fd, short revents)
{
    (void)revents;
    gwgrow_t *w = arg;
    ssize_t got = read(fd, w->buf + w->len, sizeof w->buf - 1 - w->len);
    if (got <= 0) {
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        gwgrow_stop(w);   /* the gateway ended: its exit is reported on its own */
        return;
    }
    w->len += (size_t)got;
    char *nl;
    while ((nl = memchr(w->buf, '\n', w->len)) != NULL) {
        *nl = '\0';
        answer(w, w->buf);
        size_t used = (size_t)(nl + 1 - w->buf);
        memmove(w->buf, nl + 1, w->len - used);
        w->len -= used;
    }
    if (w->len == sizeof w->buf - 1)
        w->len = 0;   /* a line that long is none of ours */
}

void gwgrow_start(gwgrow_t *w, ev_loop_t *loop, chan_t *ch, gwproc_t *gw)
{
    memset(w, 0, sizeof *w);
    w->loop = loop;
    w->ch = ch;
    w->gw = gw;
    if (gw->pid > 0 && gw->control_fd >= 0) {
        ev_watch(loop, gw->control_fd, POLLIN, on_answer, w);
        w->watching = 1;
    }
}

void gwgrow_stop(gwgrow_t *w)
{
    if (w->watching)
        ev_unwatch(w->loop, w->gw->control_fd);
    w->watching = 0;
}

int gwgrow_frame(gwgrow_t *w, const ctl_frame_t *f, const char *host, char *why, size_t cap)
{
    ctl_strs_t fl = f->u.parts.fields;
    uint32_t part = f->u.parts.node;
    if (!w->gw || w->gw->pid <= 0 || fl.n != 3 || part == 0) {
        snprintf(why, cap, "a GW_RANKS to a host that runs no site gateway, or malformed");
        return -1;
    }
    const char *base = ctl_strs_next(&fl), *count = ctl_strs_next(&fl);
    const char *sites = ctl_strs_next(&fl);
    if (!*base || strspn(base, "0123456789") != strlen(base) || !*count ||
        strspn(count, "0123456789") != strlen(count) || !*sites ||
        strspn(sites, "0123456789*,") != strlen(sites)) {
        snprintf(why, cap, "a malformed GW_RANKS");
        return -1;
    }
    if (!w->watching || w->gw->reaped) {
        char text[200];
        snprintf(text, sizeof text, "the site gateway on host %s has ended", host);
        ready(w, part, text);
        return 0;
    }
    size_t n = strlen(base) + strlen(count) + strlen(sites) + 40;
    char *line = malloc(n);
    if (!line) {
        ready(w, part, "out of memory on the gateway's host");
        return 0;
    }
    int len = snprintf(line, n, "ranks %u %s %s %s\n", part, base, count, sites);
    ssize_t put = write(w->gw->control_fd, line, (size_t)len);
    free(line);
    if (put != len) {
        char text[200];
        snprintf(text, sizeof text, "cannot reach the site gateway on host %s", host);
        ready(w, part, text);
    }
    return 0;
}
