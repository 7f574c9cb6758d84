/* The TUN device the router namespace routes inter-site traffic into. */
#ifndef WANEMU_TUN_H
#define WANEMU_TUN_H

#include <stddef.h>

/* With gso, every packet read or written starts with a struct virtio_net_hdr of this size. */
enum { TUN_GSO_HEADER = 10 };

/* Attaches to TUN device name (created, if it does not exist, for as long as the descriptor
 * is open), without packet-information headers. Without gso every read is one IP packet of
 * at most the device's MTU; with gso the kernel may hand over (and take back) TCP segments
 * of up to 64 KiB that it has not cut into MTU-sized packets yet, each behind a
 * virtio_net_hdr: about 40 times fewer packets to carry at high rates. Returns a
 * non-blocking descriptor, or -1 with the reason in err. */
int tun_attach(const char *name, int gso, char *err, size_t errlen);

#endif
