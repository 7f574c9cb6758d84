/* wanemu: the WAN between the sites of an emulated cluster (tests/cluster/vcluster.sh
 * --sites). The router namespace routes every packet between sites into one TUN device;
 * wanemu reads it, passes it through the link of its direction (site of the source address
 * to site of the destination address: the third octet, see README.md), and writes it back
 * into the device when the link lets it out, whereupon the kernel routes it to the
 * destination site. Single-threaded: one loop of ppoll() with a nanosecond timeout for the
 * next departure (the last SPIN_NS of it polled without sleeping). SIGTERM or SIGINT ends it
 * with one line of counters per link on stderr. Each SIGUSR1 arms one flip (tamper.h): the
 * next TCP segment with a payload (from or to --flip-port) is altered as it arrives. */
#include "link.h"
#include "options.h"
#include "packet.h"
#include "tamper.h"
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_PACKET = 1 << 18,   /* more than a TUN_GSO_HEADER and a 64 KiB segment */
    MAX_SITES = 256,
    MAX_QUEUED = 65536,     /* packets held at once over all links: a memory bound */
    READ_BATCH = 64,        /* packets read before due ones are written again */
};
/* A departure closer than this is waited for by polling without sleeping: waking from a
 * sleep takes about 50 us here, which would add to every delay. */
static const uint64_t SPIN_NS = 100000;

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t flips_asked;  /* SIGUSR1s; the handler runs only inside ppoll() */
static int flips_done;
static link_t *links[MAX_SITES * MAX_SITES];
static link_t *active[MAX_SITES * MAX_SITES];
static int nactive;
static size_t queued;
static uint64_t not_ip, no_memory, write_errors;
static uint64_t late_sum_ns, late_max_ns, departed;   /* departure time - due time */
static uint64_t rng_state;

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        flips_asked++;
    else
        stop_signal = sig;
}

/* An armed flip alters k if it qualifies (tamper.h), with one line on stderr. */
static void maybe_flip(pkt_t *k, int gso, unsigned port)
{
    tamper_report_t r;
    if (flips_done >= flips_asked || !tamper_flip(k->data, k->len, gso, port, &r))
        return;
    flips_done++;
    fprintf(stderr, "wanemu: flipped bit 0x%x of byte %zu of the %zu-byte TCP payload from %s "
            "port %u to %s port %u (sequence number %u); %s\n", TAMPER_BIT, r.offset,
            r.payload, r.src, r.sport, r.dst, r.dport, (unsigned)r.seq,
            r.mended ? "the TCP checksum mended"
                     : "the TCP checksum left partial, for the kernel to complete");
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* xorshift64*: reproducible losses for a given seed */
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static link_t *link_of(int src, int dst, const wan_params_t *p)
{
    link_t **slot = &links[src * MAX_SITES + dst];
    if (!*slot) {
        *slot = malloc(sizeof **slot);
        if (!*slot)
            return NULL;
        link_init(*slot, src, dst, p);
        active[nactive++] = *slot;
    }
    return *slot;
}

/* Takes one packet read from the device at time now. */
static void arrive(const unsigned char *buf, size_t len, const wan_options_t *o, uint64_t now)
{
    const wan_params_t *p = &o->p;
    packet_info_t info;
    if (packet_classify(buf, len, o->gso, &info)) {
        not_ip++;
        return;
    }
    link_t *l = link_of(info.src_site, info.dst_site, p);
    if (!l) {
        no_memory++;
        return;
    }
    if (link_lost(p, uniform())) {
        l->st.lost++;
        return;
    }
    pkt_t *k = queued < MAX_QUEUED ? malloc(sizeof *k + len) : NULL;
    if (!k) {
        no_memory++;
        return;
    }
    k->len = len;
    k->wire_bytes = info.wire_bytes;
    memcpy(k->data, buf, len);
    if (link_admit(l, p, k, now)) {
        queued++;
        maybe_flip(k, o->gso, o->flip_port);
    } else {
        free(k);
    }
}

/* Writes every due packet; returns the earliest departure still pending (UINT64_MAX: none). */
static uint64_t depart(int fd, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < nactive; i++) {
        link_t *l = active[i];
        pkt_t *k;
        while ((k = link_due(l, now))) {
            if (write(fd, k->data, k->len) != (ssize_t)k->len)
                write_errors++;
            uint64_t late = now - k->due_ns;
            late_sum_ns += late;
            late_max_ns = late > late_max_ns ? late : late_max_ns;
            departed++;
            free(k);
            queued--;
        }
        if (l->head && l->head->due_ns < next)
            next = l->head->due_ns;
    }
    return next;
}

static void report(void)
{
    for (int i = 0; i < nactive; i++) {
        const link_t *l = active[i];
        fprintf(stderr,
                "wanemu: site %d -> %d: %llu in, %llu out (%llu bytes), %llu lost, "
                "%llu dropped by the full queue\n",
                l->src, l->dst, (unsigned long long)l->st.in, (unsigned long long)l->st.out,
                (unsigned long long)l->st.out_bytes, (unsigned long long)l->st.lost,
                (unsigned long long)l->st.overflow);
    }
    fprintf(stderr, "wanemu: %llu neither IPv4 nor IPv6, %llu without memory, %llu failed writes, "
            "%d flipped\n", (unsigned long long)not_ip, (unsigned long long)no_memory,
            (unsigned long long)write_errors, flips_done);
    fprintf(stderr, "wanemu: packets left %.1f us after their due time on average, %.1f us at most\n",
            departed ? (double)late_sum_ns / (double)departed / 1e3 : 0.0, (double)late_max_ns / 1e3);
}

static int signal_ready(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "wanemu: cannot create the ready file %s: %s\n", path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    wan_options_t o;
    char err[256];
    int rc = options_parse(argc, argv, &o, err, sizeof err);
    if (rc) {
        if (rc < 0)
            fprintf(stderr, "wanemu: %s\n", err);
        fputs(wanemu_usage, stderr);
        return rc < 0 ? 2 : 0;
    }
    rng_state = o.seed * 0x9E3779B97F4A7C15ull + 1;     /* never 0 */

    int fd = tun_attach(o.tun, o.gso, err, sizeof err);
    if (fd < 0) {
        fprintf(stderr, "wanemu: %s\n", err);
        return 1;
    }
    /* nanosecond timeouts are honoured to the nanosecond, not to the default 50 us slack */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    /* SIGTERM/SIGINT/SIGUSR1 are blocked except inside ppoll(), so none is missed between
     * checks and the handler never runs while the loop uses what it sets */
    sigset_t block, during_poll;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &during_poll);
    sigdelset(&during_poll, SIGTERM);
    sigdelset(&during_poll, SIGINT);
    sigdelset(&during_poll, SIGUSR1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    if (o.ready && signal_ready(o.ready))
        return 1;

    static unsigned char buf[MAX_PACKET];
    while (!stop_signal) {
        uint64_t now = now_ns();
        uint64_t next = depart(fd, now);
        struct timespec ts, *timeout = NULL;
        if (next != UINT64_MAX) {
            uint64_t wait = next - now > SPIN_NS ? next - now - SPIN_NS : 0;
            ts.tv_sec = (time_t)(wait / 1000000000u);
            ts.tv_nsec = (long)(wait % 1000000000u);
            timeout = &ts;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int n = ppoll(&pfd, 1, timeout, &during_poll);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "wanemu: ppoll on %s: %s\n", o.tun, strerror(errno));
            return 1;
        }
        if (n <= 0)
            continue;
        if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
            fprintf(stderr, "wanemu: TUN device %s went away\n", o.tun);
            return 1;
        }
        now = now_ns();
        for (int i = 0; i < READ_BATCH; i++) {
            ssize_t len = read(fd, buf, sizeof buf);
            if (len < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    break;
                fprintf(stderr, "wanemu: read from %s: %s\n", o.tun, strerror(errno));
                return 1;
            }
            arrive(buf, (size_t)len, &o, now);
        }
    }
    report();
    for (int i = 0; i < nactive; i++) {
        pkt_t *k;
        while ((k = link_due(active[i], UINT64_MAX)))
            free(k);
        free(active[i]);
    }
    return 0;
}
