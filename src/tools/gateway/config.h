/*
 * The gateway's configuration, from its command line (the launcher composes it from the
 * metacomputer description; nothing in it is secret — the job key comes in the environment,
 * METAMPI_JOB_KEY, as for the ranks):
 *
 *   metampi-gateway --site S --gateways IP:PORT,IP:PORT,... --rank-sites LIST
 *                   [--names NAME,NAME,...] [--streams N] [--compression auto|on|off]
 *                   [--congestion auto|system|NAME] [--encrypt on|off] [--timeout MS]
 *                   [--outage MS] [--unreachable SITE,...] [--report-fd FD] [--stats on|off]
 *                   [--cert FILE --key FILE --ca FILE [--crl FILE]]
 *
 *   --site S          this gateway's site, 0-based in description order
 *   --gateways        every site's gateway WAN address, in site order; this gateway listens
 *                     on its own, for its site's ranks and the other gateways
 *   --rank-sites      the site of every rank, in rank order, run-length coded as in the
 *                     site layout (runtime/sitemap.h): "0*4,1*4" (a bare SITE is one rank)
 *   --names           the sites' names, for messages (default: site0, site1, ...)
 *   --streams N       TCP streams per WAN link, 1..GW_STREAMS_MAX (default GW_STREAMS_DEFAULT)
 *   --compression     zstd per WAN frame: auto (when it pays, measured), on, off (default auto)
 *   --congestion      the TCP congestion control of the WAN streams: auto (cubic where the
 *                     kernel lets this process use it, else the kernel's default), system (the
 *                     kernel's default), or a name the kernel must accept (default auto)
 *   --encrypt         TLS on the WAN streams (net/secure.h; default on); off only for
 *                     measured comparison
 *   --timeout MS      a WAN link that brings nothing (not even a heartbeat) for MS ms while it
 *                     is read is lost (default 10000)
 *   --outage MS       a link whose streams broke is opened again and goes on where it
 *                     stopped (link.h, "Reconnection"); it ends the job once it has been
 *                     down (nothing from the other gateway) for MS ms (default 60000; 0: a
 *                     break ends the job at once)
 *   --unreachable     the sites whose gateways accept no connection from other sites (NAT):
 *                     each opens its links itself; of two other sites the lower one does
 *   --cert, --key, --ca  X.509 per site (net/secure.h): the WAN streams' TLS authenticates
 *                     with this site's certificate and key, and takes from another gateway
 *                     only a certificate that chains to the CA and names that site (default:
 *                     the PSK from the job key); the three together, paths on this host
 *   --crl FILE        with them: CRLs (PEM) every certificate of another gateway's chain is
 *                     checked against; a revoked one is refused
 *   --report-fd FD    where the one-line failure report goes (default 2)
 *   --control-fd FD   a socket on which its helper announces ranks spawned while the job runs
 *                     (grow.c: "ranks TAG BASE COUNT SITES" lines, each answered "ok TAG" or
 *                     "no TAG WHY"; default none)
 *   --stats on        at the normal end, also write each WAN link's counters there (one
 *                     "metampi-gateway-stats" line per link, as METAMPI_GW_STATS prints them):
 *                     its helper hands them to mpirun --report (default off)
 */
#ifndef GATEWAY_CONFIG_H
#define GATEWAY_CONFIG_H

#include "net/sock.h"

#include <netinet/in.h>
#include <stddef.h>

enum {
    GW_STREAMS_DEFAULT = 1,
    GW_TIMEOUT_DEFAULT_MS = 10000,
    GW_OUTAGE_DEFAULT_MS = 60000,
    GW_OUTAGE_MAX_MS = 86400000,
    GW_CONGESTION_MAX = NET_CONGESTION_MAX, /* a name's bytes with its NUL (net_congestion_*) */
};

typedef struct gw_config {
    int site, nsites;
    net_addr_t *addr;              /* nsites */
    char **names;                  /* nsites */
    int *rank_site;                /* size */
    int size;
    int streams;
    int compression;               /* zc.h GW_Z_* */
    char congestion[GW_CONGESTION_MAX];  /* "auto", "system" or a kernel's name */
    int encrypt;                   /* TLS on the WAN streams (default 1) */
    int timeout_ms;
    int outage_ms;                 /* --outage */
    unsigned char *unreachable;    /* nsites: --unreachable */
    int report_fd;
    int control_fd;                /* --control-fd (grow.c), or -1 */
    int stats;                     /* --stats on */
    const char *cert, *key, *ca;   /* --cert/--key/--ca (argv's), or all NULL */
    const char *crl;               /* --crl (argv's), or NULL */
} gw_config_t;

/* Parses argv[1..argc). 0, or -1 with one line in err naming the option. */
int gw_config_parse(int argc, char **argv, gw_config_t *c, char *err, size_t errlen);
/* Decodes the sites of ranks in rank order, "0*4,1*4" (SITE alone: one rank), each below
 * nsites, at most max of them: NULL, with a malloc'ed *sites of *n entries; or what is wrong
 * ("a bad site", "a bad count", "more sites than ranks", "out of memory"). --rank-sites and
 * the spawned ranks' announcements (grow.c) use it. */
const char *gw_rank_sites_decode(const char *s, int nsites, long max, int **sites, int *n);
void gw_config_free(gw_config_t *c);
/* The site whose gateway opens the link between sites a and b (gw_config_t.unreachable). */
int gw_config_dialer(const gw_config_t *c, int a, int b);
/* "IP:PORT" of site s. */
void gw_config_addr_text(const gw_config_t *c, int s, char *out, size_t cap);

#endif
