/*
 * Little-endian integers in wire formats: every field of every metampi wire format (frames,
 * handshakes, the gateways' and the rendezvous' messages) is little-endian, whatever the
 * host's order.
 */
#ifndef METAMPI_NET_BYTES_H
#define METAMPI_NET_BYTES_H

#include <stdint.h>

static inline void net_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t net_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
