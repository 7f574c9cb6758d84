/*
 * Ranks spawned while the job runs (docs/dynproc.md, "Several sites"). Before mpirun lets a
 * new part start, the helper of this gateway's host announces the part's job-wide numbers
 * and sites on the control socket (--control-fd), one line each:
 *
 *     ranks TAG BASE COUNT SITES      SITES run-length coded as --rank-sites ("0*2,1")
 *
 * and this gateway grows every table indexed by job-wide number: the ranks' sites
 * (gw_config_t.rank_site), their connection records (gwd.ranks), the STOP marks
 * (gwd.stopped, stopped_list) and each link's per-destination credit (gw_link_t.dst, report,
 * size); then it answers "ok TAG", or "no TAG WHY" having grown nothing. TAG is the helper's
 * (mpirun's part id), returned as it came.
 *
 * Invariants: growth is append-only and contiguous (BASE must be the current size: mpirun
 * never reuses a number, also of a part it dropped), so the indices that frames in flight and
 * parked frames hold stay valid; it runs in its own event callback, never while a rank's
 * frames are being read (gwd.cur), and the watchers of connected ranks are pointed at their
 * moved records (ev_watch on a watched fd replaces its callback's argument).
 */
#include "gateway_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINE_MAX_BYTES = 64 << 10 };

static struct {
    char buf[LINE_MAX_BYTES];
    size_t len;
} ctl;

static void *grown(void *p, size_t old_n, size_t new_n, size_t el)
{
    unsigned char *q = realloc(p, new_n * el);
    if (q)
        memset(q + old_n * el, 0, (new_n - old_n) * el);
    return q;
}

/* Every table from gwd.size to size entries. NULL, or why not (nothing changed that
 * matters: the larger allocations stay, the sizes do not). */
static const char *grow_to(uint32_t size, const int *sites)
{
    gw_config_t *c = (gw_config_t *)gwd.c;   /* main's, ours to change: only here */
    uint32_t old = gwd.size;
    int *rs = grown(c->rank_site, old, size, sizeof *rs);
    if (!rs)
        return "out of memory";
    c->rank_site = rs;
    unsigned char *st = grown(gwd.stopped, old, size, 1);
    if (!st)
        return "out of memory";
    gwd.stopped = st;
    uint32_t *sl = grown(gwd.stopped_list, old, size, sizeof *sl);
    if (!sl)
        return "out of memory";
    gwd.stopped_list = sl;
    for (int s = 0; s < c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        gw_link_t *l = &gwd.links[s];
        gw_dst_t *d = grown(l->dst, old, size, sizeof *d);
        if (!d)
            return "out of memory";
        l->dst = d;
        uint32_t *rep = grown(l->report, old, size, sizeof *rep);
        if (!rep)
            return "out of memory";
        l->report = rep;
    }
    rconn_t *r = grown(gwd.ranks, old, size, sizeof *r);
    if (!r)
        return "out of memory";
    gwd.ranks = r;
    /* from here on nothing fails: the new sizes */
    for (uint32_t i = 0; i < old; i++) {
        int fd = gwd.ranks[i].fd;
        if (fd >= 0 && fd < gwd.loop.cap && gwd.loop.e[fd].used)
            ev_watch(&gwd.loop, fd, gwd.loop.e[fd].events, gwd.loop.e[fd].cb, &gwd.ranks[i]);
    }
    for (uint32_t i = old; i < size; i++) {
        gwd.ranks[i].rank = (int)i;
        gwd.ranks[i].fd = -1;
        c->rank_site[i] = sites[i - old];
    }
    for (int s = 0; s < c->nsites; s++)
        if (s != gwd_my_site())
            gwd.links[s].size = size;
    c->size = (int)size;
    gwd.size = size;
    return NULL;
}

/* One line: its answer in out. */
static void command(char *line, char *out, size_t cap)
{
    char tag[32] = "?", *save = NULL;
    const char *why = NULL;
    char *w = strtok_r(line, " ", &save), *t = strtok_r(NULL, " ", &save);
    char *b = strtok_r(NULL, " ", &save), *n = strtok_r(NULL, " ", &save);
    char *sites = strtok_r(NULL, " ", &save);
    if (t)
        snprintf(tag, sizeof tag, "%.31s", t);
    char *end = NULL;
    long base = b ? strtol(b, &end, 10) : -1, count = n ? strtol(n, &end, 10) : -1;
    if (!w || strcmp(w, "ranks") != 0 || !t || !sites || strtok_r(NULL, " ", &save) ||
        base < 0 || count < 1)
        why = "a malformed line";
    else if (base != (long)gwd.size)
        why = "ranks not announced in order";
    else if (count > GW_RANKS_MAX - base)
        why = "too many ranks for a site gateway";
    int *s = NULL, decoded = 0;
    if (!why)
        why = gw_rank_sites_decode(sites, gwd.c->nsites, count, &s, &decoded);
    if (!why && decoded != count)
        why = "fewer sites than ranks";
    if (!why)
        why = grow_to((uint32_t)(base + count), s);
    free(s);
    if (why)
        snprintf(out, cap, "no %s site gateway %s: %s\n", tag, gwd_site_name(gwd_my_site()),
                 why);
    else
        snprintf(out, cap, "ok %s\n", tag);
}

static void on_control(void *arg, int fd, short revents)
{
    (void)arg;
    (void)revents;
    ssize_t got = read(fd, ctl.buf + ctl.len, sizeof ctl.buf - 1 - ctl.len);
    if (got <= 0) {
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        ev_unwatch(&gwd.loop, fd);   /* the helper is gone: the job ends without us */
        return;
    }
    ctl.len += (size_t)got;
    char *nl;
    while ((nl = memchr(ctl.buf, '\n', ctl.len)) != NULL) {
        *nl = '\0';
        char out[512];
        command(ctl.buf, out, sizeof out);
        size_t k = strlen(out);
        if (write(fd, out, k) != (ssize_t)k)
            gwd_fail("cannot answer its helper on --control-fd: %s", strerror(errno));
        size_t used = (size_t)(nl + 1 - ctl.buf);
        memmove(ctl.buf, nl + 1, ctl.len - used);
        ctl.len -= used;
    }
    if (ctl.len == sizeof ctl.buf - 1)
        gwd_fail("a line of more than %d bytes on --control-fd", LINE_MAX_BYTES);
}

void gwd_grow_init(void)
{
    if (gwd.c->control_fd >= 0)
        ev_watch(&gwd.loop, gwd.c->control_fd, POLLIN, on_control, NULL);
}
