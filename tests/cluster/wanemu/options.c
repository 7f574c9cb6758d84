#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char wanemu_usage[] =
    "usage: wanemu --tun NAME [--delay D] [--rate R] [--burst B] [--queue Q] [--loss P]\n"
    "              [--seed N] [--gso 0|1] [--flip-port P] [--ready FILE]\n"
    "  Carries the IPv4 packets read from TUN device NAME back into it, each direction\n"
    "  between two sites (third octet of the addresses) through its own link:\n"
    "  --delay D   one-way delay (ns, us, ms, s; default 5ms)\n"
    "  --rate R    token-bucket rate (bit, kbit, mbit, gbit; 0 = unlimited; default 1gbit)\n"
    "  --burst B   bucket depth in bytes (k, m suffixes; default 16k)\n"
    "  --queue Q   longest wait for the bucket before a packet is dropped (default: one\n"
    "              round trip, 2 x delay, at least 20ms)\n"
    "  --loss P    probability of losing a packet (0..1, or N%; default 0)\n"
    "  --seed N    seed of the loss generator (default 1)\n"
    "  --gso 0|1   carry TCP segments of up to 64 KiB as one packet (default: 1 without\n"
    "              loss; with loss, packets are lost one by one as on a real link)\n"
    "  --flip-port P  see SIGUSR1 (default: any port)\n"
    "  --ready F   create file F once attached to the device\n"
    "  Each SIGUSR1 has the next TCP segment with a payload, from or to port P, altered as\n"
    "  an on-path attacker would: one bit of its payload's middle byte flipped, its TCP\n"
    "  checksum mended; one line on stderr names it.\n";

typedef struct unit {
    const char *name;
    double factor;
} unit_t;

/* Parses "NUMBER[UNIT]" with a unit from units (NULL-terminated); a bare number is allowed
 * only if it is zero or bare_factor is non-zero. */
static int parse_scaled(const char *s, const unit_t *units, double bare_factor, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -1;
    if (*end == '\0') {
        if (v != 0 && bare_factor == 0)
            return -1;
        *out = v * bare_factor;
        return 0;
    }
    for (const unit_t *u = units; u->name; u++)
        if (strcmp(end, u->name) == 0) {
            *out = v * u->factor;
            return 0;
        }
    return -1;
}

static const unit_t time_units[] = {
    {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0}};
static const unit_t rate_units[] = {
    {"bit", 1}, {"k", 1e3}, {"kbit", 1e3}, {"m", 1e6}, {"mbit", 1e6}, {"g", 1e9}, {"gbit", 1e9},
    {NULL, 0}};
static const unit_t size_units[] = {{"k", 1024}, {"m", 1024 * 1024}, {NULL, 0}};
static const unit_t loss_units[] = {{"%", 0.01}, {NULL, 0}};

int options_parse(int argc, char **argv, wan_options_t *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->p.delay_ns = 5000000;
    o->p.rate_bps = 1000000000;
    o->p.burst_bytes = 16 * 1024;
    int queue_given = 0;
    o->gso = -1;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help"))
            return 1;
        if (i + 1 >= argc) {
            snprintf(err, errlen, "option %s needs a value (or is unknown)", opt);
            return -1;
        }
        const char *val = argv[++i];
        double v;
        int bad = 0;
        if (!strcmp(opt, "--tun")) {
            o->tun = val;
        } else if (!strcmp(opt, "--ready")) {
            o->ready = val;
        } else if (!strcmp(opt, "--delay")) {
            bad = parse_scaled(val, time_units, 0, &v) || v > 60e9;
            o->p.delay_ns = (uint64_t)v;
        } else if (!strcmp(opt, "--queue")) {
            bad = parse_scaled(val, time_units, 0, &v) || v > 60e9;
            o->p.queue_ns = (uint64_t)v;
            queue_given = 1;
        } else if (!strcmp(opt, "--rate")) {
            bad = parse_scaled(val, rate_units, 1, &v) || v > 1e12;
            o->p.rate_bps = (uint64_t)v;
        } else if (!strcmp(opt, "--burst")) {
            bad = parse_scaled(val, size_units, 1, &v) || v < 1 || v > 1e9;
            o->p.burst_bytes = (uint64_t)v;
        } else if (!strcmp(opt, "--loss")) {
            bad = parse_scaled(val, loss_units, 1, &v) || v > 1;
            o->p.loss = v;
        } else if (!strcmp(opt, "--gso")) {
            bad = strcmp(val, "0") && strcmp(val, "1");
            o->gso = val[0] == '1';
        } else if (!strcmp(opt, "--flip-port")) {
            char *end;
            errno = 0;
            unsigned long port = strtoul(val, &end, 10);
            bad = *val < '0' || *val > '9' || *end != '\0' || errno != 0 || port < 1 ||
                  port > 65535;
            o->flip_port = (unsigned)port;
        } else if (!strcmp(opt, "--seed")) {
            char *end;
            errno = 0;
            o->seed = strtoull(val, &end, 10);
            bad = *val == '\0' || *end != '\0' || errno != 0;
        } else {
            snprintf(err, errlen, "unknown option %s", opt);
            return -1;
        }
        if (bad) {
            snprintf(err, errlen, "bad value '%s' for %s", val, opt);
            return -1;
        }
    }
    if (!o->tun) {
        snprintf(err, errlen, "--tun NAME is required");
        return -1;
    }
    if (o->gso < 0)
        o->gso = o->p.loss == 0;
    if (!queue_given) {
        o->p.queue_ns = 2 * o->p.delay_ns;
        if (o->p.queue_ns < 20000000)
            o->p.queue_ns = 20000000;
    }
    return 0;
}
