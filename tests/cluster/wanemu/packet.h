/* What the emulator needs to know of a packet read from the TUN device. */
#ifndef WANEMU_PACKET_H
#define WANEMU_PACKET_H

#include <stddef.h>

typedef struct packet_info {
    int src_site, dst_site;     /* of the source and destination: the third octet of an IPv4
                                 * address, the fourth group of an IPv6 one (README.md) */
    size_t wire_bytes;          /* IP bytes it puts on a link: a GSO segment counts as the
                                 * packets it stands for, each with its own headers */
} packet_info_t;

/* Fills info for the len bytes at buf (behind a virtio_net_hdr if gso); returns -1 for
 * anything but a well-formed IPv4 or IPv6 packet. */
int packet_classify(const unsigned char *buf, size_t len, int gso, packet_info_t *info);

#endif
