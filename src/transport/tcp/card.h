/*
 * Where a rank can be reached over TCP. Each rank publishes a *card* in the job's key-value
 * space under "tcp.<rank>": its host's name and the addresses it listens on, of either family
 * in net/addr.h's text form (IPv4 ones first),
 *     "<host>|<a.b.c.d>:<port>,[<v6>]:<port>,..."
 * (a listener per address, each on its own port)
 * and a rank that connects picks the first address on a subnet it shares with the peer, else
 * the first one, and tries the others in order when that fails.
 *
 * Which local interfaces count: the spec METAMPI_TCP_IF (mpirun --if), a comma-separated list
 * of interface names ("eth1") and subnets ("10.1.0.0/16", "fd00::/64"); by default every
 * address of an interface that is up except loopback (loopback only when there is nothing
 * else) and IPv6 link-local ones (fe80::/10: meaningless on another host without a zone).
 */
#ifndef METAMPI_TCP_CARD_H
#define METAMPI_TCP_CARD_H

#include "net/addr.h"

#include <stddef.h>
#include <stdint.h>

enum { TCP_CARD_MAX_ADDRS = 16, TCP_CARD_HOST_MAX = 256, TCP_CARD_LEN = 1024 };

typedef struct tcp_addr {
    net_addr_t a;              /* with its port */
    int prefix;                /* local interfaces: the netmask's bits; else -1 */
} tcp_addr_t;

typedef struct tcp_card {
    char host[TCP_CARD_HOST_MAX];
    int naddr;
    tcp_addr_t addr[TCP_CARD_MAX_ADDRS];
} tcp_card_t;

/* The local interfaces that match spec (NULL or "": the default), at most max. Returns how
 * many, or -1 with a message in err (a spec that matches nothing is an error). */
int tcp_local_addrs(const char *spec, tcp_addr_t *out, int max, char *err, int errlen);

/* Writes the card (host, addrs with their ports) into out[TCP_CARD_LEN]; -1 if it does not
 * fit. */
int tcp_card_format(const char *host, const tcp_addr_t *addrs, int naddr, char *out);
/* NULL when s is a well-formed card (fills *c), else what is wrong with it. */
const char *tcp_card_parse(const char *s, tcp_card_t *c);

/* Orders c's addresses for connecting from a host with the local addresses: those on a
 * subnet of a local one first, each group in card order. */
void tcp_card_order(tcp_card_t *c, const tcp_addr_t *local, int nlocal);

#endif
