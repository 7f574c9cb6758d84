/* X.509 per site on --direct-wan connections (docs/wan-security.md, "X.509 per site"): mpirun
 * hands every rank all sites' files in METAMPI_WAN_X509 ("SITE=CERT,KEY,CA[,CRL];..."), the rank
 * loads its own site's (net_secure_x509_load, once), and every TLS handshake with a rank at
 * another site then demands a certificate from that CA naming the peer's site, in place of the
 * PSK (tcp_peer_up). Without the variable, or with [wan] encrypt = off, nothing changes. */
#include "transport/tcp/tcp_int.h"

#include "net/secure.h"
#include "runtime/sites.h"
#include "runtime/tunables.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Copies the text up to the first of stops (or the end) into buf: its length, or -1 when it
 * does not fit. *p moves past it (and past the stop). */
static int field(const char **p, const char *stops, char *buf, size_t cap)
{
    size_t n = strcspn(*p, stops);
    if (n >= cap)
        return -1;
    memcpy(buf, *p, n);
    buf[n] = '\0';
    *p += n + ((*p)[n] != '\0');
    return (int)n;
}

int tcp_wan_x509_init(char *err, int errlen)
{
    const char *spec = tun_string(TUN_WAN_X509);
    if (!spec || !*spec || !tcp_g.wan_tls || !tcp_g.site_of)
        return 0;
    const char *mine = sites_name(tcp_g.site_of[tcp_g.rank]);
    char site[256], file[4][PATH_MAX];
    for (const char *p = spec; *p;) {
        int bad = field(&p, "=;", site, sizeof site) < 0 || p[-1] != '=' ||
                  field(&p, ",;", file[0], sizeof file[0]) <= 0 ||
                  field(&p, ",;", file[1], sizeof file[1]) <= 0 ||
                  field(&p, ",;", file[2], sizeof file[2]) <= 0;
        file[3][0] = '\0';
        if (!bad && p[-1] == ',') /* the optional CRL */
            bad = field(&p, ";", file[3], sizeof file[3]) <= 0;
        if (bad) {
            snprintf(err, (size_t)errlen, "METAMPI_WAN_X509 is not 'SITE=CERT,KEY,CA[,CRL];...' "
                     "(near '%.40s'; mpirun sets it from the description)", p);
            return -1;
        }
        if (strcmp(site, mine) != 0)
            continue;
        char why[512];
        if (net_secure_x509_load(file[0], file[1], file[2], file[3][0] ? file[3] : NULL, why,
                                 sizeof why) != 0) {
            snprintf(err, (size_t)errlen, "--direct-wan, site '%s': %s", mine, why);
            return -1;
        }
        tcp_g.x509 = 1;
        return 0;
    }
    snprintf(err, (size_t)errlen, "METAMPI_WAN_X509 has no certificate for site '%s', this "
             "rank's", mine);
    return -1;
}
