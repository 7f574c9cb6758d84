/* An on-path attacker's one altered byte: flips a bit of a TCP segment's payload and mends
 * the TCP checksum, so that the receiving kernel takes the segment (a segment whose checksum
 * fails is dropped and sent again unaltered: that would test nothing above TCP). */
#ifndef WANEMU_TAMPER_H
#define WANEMU_TAMPER_H

#include <stddef.h>
#include <stdint.h>

enum { TAMPER_BIT = 0x20 };     /* the bit flipped */

typedef struct tamper_report {
    char src[48], dst[48];      /* the segment's addresses */
    unsigned sport, dport;
    size_t payload;             /* its payload's length */
    size_t offset;              /* of the flipped byte in the payload: the middle one */
    uint32_t seq;               /* TCP sequence number of the flipped byte */
    int mended;                 /* 1: the checksum was mended; 0: the packet carries a
                                 * partial checksum the kernel completes over the altered
                                 * payload (a GSO packet's VIRTIO_NET_HDR_F_NEEDS_CSUM) */
} tamper_report_t;

/* If the len bytes at buf (behind a virtio_net_hdr if gso) are a TCP segment of IPv4 (not a
 * fragment) or IPv6 (TCP the first next header) with a payload, from or to port (any port if
 * 0), flips TAMPER_BIT of the payload's middle byte, mends the checksum, fills r and returns
 * 1; otherwise leaves the packet alone and returns 0. */
int tamper_flip(unsigned char *buf, size_t len, int gso, unsigned port, tamper_report_t *r);

/* The one's-complement checksum field ck after the 16-bit word it covers changed from old to
 * new (RFC 1624, equation 3); all three in host order. */
uint16_t tamper_mend(uint16_t ck, uint16_t old, uint16_t new_);

#endif
