/*
 * A TCP endpoint of either family (IPv4, IPv6), and its one text form.
 *
 * Text form (what a card, a gateway address, the launcher's key-value pairs and the
 * rendezvous protocol carry; byte-order free): "a.b.c.d:PORT" or "[v6]:PORT", the address as
 * inet_ntop writes it (net_addr_format). net_addr_parse also takes, as flags allow:
 *     [v6]:PORT   v4:PORT   HOST:PORT        with a port
 *     [v6]   v6   v4   HOST                  without (NET_ADDR_PORT_OPTIONAL: default_port)
 * where v6 may carry a zone ("fe80::1%eth0", not with NET_ADDR_NUMERIC: a zone names an
 * interface of one host) and HOST is a name looked up with getaddrinfo (AF_UNSPEC, its first
 * answer) unless NET_ADDR_NUMERIC. A bare v6 has no port: "::1:80" is
 * the address ::1:80. IPv4 is the four-decimal form only ("10.1" is not an address).
 */
#ifndef METAMPI_NET_ADDR_H
#define METAMPI_NET_ADDR_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

typedef struct net_addr {
    union {
        struct sockaddr sa;
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } u;
    socklen_t len;  /* 0: no address */
} net_addr_t;

enum {
    NET_ADDR_NUMERIC = 1,        /* no name lookup, no zone: what another process sent */
    NET_ADDR_PORT_OPTIONAL = 2,  /* a missing port is default_port */
    NET_ADDR_PORT_ZERO = 4,      /* port 0 (the kernel chooses: a listener) is allowed */
};
enum { NET_ADDR_HOST_TEXT = 48,  /* INET6_ADDRSTRLEN (with its NUL) and a little */
       NET_ADDR_TEXT = 64 };      /* the text form with brackets and port */

/* NULL when s is an endpoint as flags allow (fills *a), else what is wrong with it (a
 * static text such as "the port is not 1..65535"; for a name that does not resolve,
 * getaddrinfo's words in why, when why is not NULL). */
const char *net_addr_parse(const char *s, int flags, int default_port, net_addr_t *a,
                           char *why, size_t whycap);

/* The text form "a.b.c.d:PORT" / "[v6]:PORT" (NET_ADDR_TEXT bytes suffice; "?" for none). */
void net_addr_format(const net_addr_t *a, char *out, size_t cap);
/* The address alone, without brackets or port (NET_ADDR_HOST_TEXT bytes suffice). */
void net_addr_host_text(const net_addr_t *a, char *out, size_t cap);

/* From what accept/getsockname/getifaddrs return: 0, or -1 for another family. */
int net_addr_from_sockaddr(net_addr_t *a, const struct sockaddr *sa);

int net_addr_family(const net_addr_t *a);    /* AF_INET, AF_INET6 */
const char *net_addr_family_name(int family); /* "IPv4", "IPv6" */
int net_addr_port(const net_addr_t *a);
void net_addr_set_port(net_addr_t *a, int port);

/* The unspecified address of the family (0.0.0.0, ::). */
int net_addr_is_wildcard(const net_addr_t *a);
/* An address another host can send to: not unspecified, multicast or IPv4 broadcast. */
int net_addr_is_unicast(const net_addr_t *a);
/* IPv6 link-local (fe80::/10): meaningful only with the zone of one host. */
int net_addr_is_link_local(const net_addr_t *a);
int net_addr_is_loopback(const net_addr_t *a);
/* Whether a and b are of one family and agree in their first `bits` bits. */
int net_addr_same_prefix(const net_addr_t *a, const net_addr_t *b, int bits);
/* Whether an interface of this host that is up has an address of family that reaches
 * beyond it (neither loopback nor IPv6 link-local): 1, 0, or -1 (cannot list them). */
int net_host_has_family(int family);
/* The number of leading one bits of a netmask (getifaddrs' ifa_netmask). */
int net_addr_mask_bits(const struct sockaddr *mask);

#endif
