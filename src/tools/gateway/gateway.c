/*
 * The gateway's loop (gateway.h): its start (keys, signals, the links, the listener, the
 * streams it opens), one pass of the event loop after another, the work no descriptor
 * announces after each pass, and the one-line reports. The connections' handshakes are
 * handshake.c's, the ranks' frames ranks.c's, the WAN streams streams.c's (gateway_int.h).
 */
#include "gateway.h"

#include "gateway_int.h"

#include "net/clock.h"
#include "net/fdlimit.h"
#include "net/secure.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

gwd_t gwd;

const char *gwd_site_name(int s)
{
    return gwd.c->names[s];
}

/* One line "<prefix><message>\n" on fd, written at once. */
static void vline(int fd, const char *prefix, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s", prefix);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t l = strlen(line);
    line[l++] = '\n';
    ssize_t w = write(fd, line, l);
    (void)w;
}

void gwd_fail(const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "gateway of site %s: ", gwd_site_name(gwd.c->site));
    va_list ap;
    va_start(ap, fmt);
    vline(gwd.c->report_fd, prefix, fmt, ap);
    va_end(ap);
    _exit(1);
}

void gwd_note(const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "metampi-gateway (site %s): ", gwd_site_name(gwd.c->site));
    va_list ap;
    va_start(ap, fmt);
    vline(2, prefix, fmt, ap);
    va_end(ap);
}

const char *gwd_link_text(int s)
{
    static char b[256];
    char a[64];
    gw_config_addr_text(gwd.c, s, a, sizeof a);
    snprintf(b, sizeof b, "the WAN link to site %s (%s)", gwd_site_name(s), a);
    return b;
}

/* The sites that dial our links to them (gwd_dials) open them; one that has not done so in
 * the time we give our own links will not come: its gateway never started or died first (in a federated job,
 * mpirun --rendezvous, its part may have failed before the link was up, and we would
 * otherwise wait for ever). */
static void check_links_opened(long long t)
{
    if (gwd.links_checked || t < gwd.t_start + CONNECT_TIMEOUT_MS)
        return;
    gwd.links_checked = 1;
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site() || gwd_dials(s))
            continue;
        int ranks = 0;  /* a site without ranks runs no gateway */
        for (uint32_t r = 0; r < gwd.size && !ranks; r++)
            ranks = gwd.c->rank_site[r] == s;
        if (ranks && !gwd.conn[s].opened && !gwd.links[s].st[0].bye_in)
            gwd_fail("%s was not opened within %d s: the gateway of site %s never connected",
                     gwd_link_text(s), CONNECT_TIMEOUT_MS / 1000, gwd_site_name(s));
    }
}

/* Work that no descriptor announces: frames left in buffers, waits that ended. Nonzero when
 * frames were left that the next pass must come back for. */
static int after_pass(void)
{
    long long t = net_now_ms();
    int again = gwd_streams_after_pass(t);
    gwd_links_after_pass(t);
    gwd_go_if_unparked();
    again |= gwd_ranks_after_pass();
    check_links_opened(t);
    gwd_hs_after_pass(t);
    return again;
}

static void on_signal(void *arg, int fd, short revents)
{
    (void)arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
        gwd.ending = 1;
}

static void take_signals(void)
{
    signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    gwd.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (gwd.sigfd < 0)
        gwd_fail("cannot set up its signals: %s", strerror(errno));
    ev_watch(&gwd.loop, gwd.sigfd, POLLIN, on_signal, NULL);
}

int gateway_run(const gw_config_t *c, const auth_key_t *key)
{
    memset(&gwd, 0, sizeof gwd);
    gwd.t_start = net_now_ms();
    gwd.c = c;
    auth_key_t ranks;
    if (auth_derive(key, AUTH_RANKS, &ranks) != 0 ||
        auth_derive(&ranks, AUTH_RANK_GATEWAY, &gwd.keys.rank) != 0 ||
        auth_derive(key, AUTH_GATEWAY_LINK, &gwd.keys.link) != 0)
        gwd_fail("cannot derive its keys from the job key (libcrypto)");
    auth_key_wipe(&ranks);
    char err[512];
    if (c->cert && net_secure_x509_load(c->cert, c->key, c->ca, c->crl, err, sizeof err) != 0)
        gwd_fail("X.509 ([site %s] cert, key, ca%s): %s", gwd_site_name(c->site),
                 c->crl ? ", crl" : "", err);
    gwd.size = (uint32_t)c->size;
    ev_init(&gwd.loop);
    take_signals();
    gwd_ranks_init();
    gwd_streams_init();
    gwd_hs_init();
    gwd_grow_init(); /* ranks spawned later (grow.c) */
    fdlimit_raise(-1); /* a connection per rank of the site, the links' streams, and floods */
    fdlimit_reserve();
    gwd_choose_congestion();
    gwd_listen();
    gwd_open_links(); /* the lower (or unreachable) site opens each link */
    int again = 0;
    gwd.last_pass = net_now_ms();
    while (!gwd.ending) {
        ev_run_once(&gwd.loop, again ? 0 : 100);
        long long t = net_now_ms();
        if (t - gwd.last_pass > gwd.c->timeout_ms / 2)
            gwd_streams_clocks_restart(t); /* we were not running: the silence was ours */
        gwd.last_pass = t;
        if (!gwd.ending)
            again = after_pass();
    }
    gwd_end_links();
    return 0;
}
