/*
 * The metacomputer description (mpirun --metacomputer FILE): the sites of one job, in order,
 * each with its hosts, and the settings the site gateways will use. INI format, read with
 * inih; the format and every rule are in docs/metacomputer.md.
 *
 *   [wan]                        optional, at most once: streams = 1..64, compression =
 *                                auto | on | off, congestion = auto | system | NAME (a
 *                                kernel TCP congestion control: [a-z0-9_], <= 15 chars),
 *                                encrypt = on | off (TLS on the WAN streams; default on),
 *                                outage = SECONDS (0..86400: how long a broken link may
 *                                stay down; default METAMPI_WAN_OUTAGE, 60)
 *   [site NAME]                  one per site, in order; NAME of [A-Za-z0-9_.-], <= 64 chars
 *   hosts = h1:2, h2:2           required: NAME[:SLOTS] as in --host; a long list continues
 *           h3:2                 on indented lines
 *   gateway = h1                 optional (default: the site's first host), one of its hosts
 *   wan = 10.0.1.1:7000          optional: IPv4:port of the site's gateway for other sites
 *   exec_prefix = qemu-s390x     optional: the site's ranks start through this command
 *                                (exec_prefix.h; replaces mpirun's --exec-prefix there)
 *   reachable = no               optional (default yes): nothing outside can connect to the
 *                                site's gateway (NAT); it opens its links itself
 *   cert = F, key = F, ca = F    optional, the three together and at every site or none:
 *                                X.509 per site on the WAN links instead of the job key's
 *                                PSK (PEM files on the gateway's host; relative to the
 *                                description's folder)
 *   crl = F                      optional, with cert, key and ca: the CRLs the site checks
 *                                the other ends' certificates against
 *   [rendezvous]                 optional, at most once, with X.509 at the sites: cert, key
 *                                and ca (crl optional) of metampi-rendezvous, which then
 *                                authenticates the parts (and they it) by certificate
 *
 * The parser is a pure function over a string (mc_parse); mc_read_file reads a file and
 * calls it. Errors: one line, "metacomputer 'FILE', line N: what is wrong".
 */
#ifndef MPIRUN_METACOMPUTER_H
#define MPIRUN_METACOMPUTER_H

#include "hostlist.h"
#include "net/sock.h"

#include <stddef.h>

#define MC_SITES_MAX 256
#define MC_SITE_NAME_MAX 64
#define MC_STREAMS_MAX 64
#define MC_CONGESTION_MAX NET_CONGESTION_MAX   /* with its NUL (net_congestion_name_ok) */

typedef enum mc_compression {
    MC_COMPRESSION_AUTO = 0,
    MC_COMPRESSION_ON,
    MC_COMPRESSION_OFF,
} mc_compression_t;

typedef struct mc_site {
    char *name;
    int line;              /* of its [site NAME] header */
    int first_host;        /* its hosts are hosts.h[first_host .. first_host + nhosts) */
    int nhosts;
    int gateway;           /* index into hosts (one of the site's) */
    int has_wan;           /* wan given: */
    char wan[NET_ADDR_TEXT]; /* net/addr.h's text form: "a.b.c.d:PORT" or "[v6]:PORT" */
    char *exec_prefix;     /* exec_prefix given: its text (owned); else NULL */
    int unreachable;       /* reachable = no: behind NAT or a firewall, its gateway opens its
                            * links to the other sites (which must be reachable) */
    char *x509[4];         /* cert, key, ca, crl (MC_CERT ... MC_CRL): paths (owned), or NULL */
} mc_site_t;

enum { MC_CERT, MC_KEY, MC_CA, MC_CRL, MC_X509_KEYS };

typedef struct metacomputer {
    mc_site_t *site;
    int nsites;
    hostlist_t hosts;      /* every site's hosts, site after site: the job's host list */
    int *host_site;        /* hosts.n entries: the site of each host */
    int streams;           /* [wan] streams; 0 = not given (the gateways' own default) */
    mc_compression_t compression;  /* [wan] compression (default auto) */
    char congestion[MC_CONGESTION_MAX];  /* [wan] congestion (default "auto") */
    int plaintext;         /* [wan] encrypt = off (default on: TLS on every WAN stream) */
    int outage;            /* [wan] outage in s; -1 = not given (mc_outage) */
    char *rdv_x509[4];     /* [rendezvous] cert, key, ca, crl: paths (owned), or NULL: the
                            * rendezvous keeps the PSK */
} metacomputer_t;

/* Parses the description in text; name is the file name for messages. 0, or -1 with one line
 * in err ("metacomputer 'NAME', line N: ...") and *mc empty. */
int mc_parse(const char *text, const char *name, metacomputer_t *mc, char *err, size_t errlen);

/* Reads path and parses it; 0, or -1 with one line in err. */
int mc_read_file(const char *path, metacomputer_t *mc, char *err, size_t errlen);

void mc_free(metacomputer_t *mc);

/* The outage limit of the links in seconds: [wan] outage, else METAMPI_WAN_OUTAGE. */
int mc_outage(const metacomputer_t *mc);

/* The name of a compression setting ("auto", "on", "off"). */
const char *mc_compression_name(mc_compression_t c);

#endif
