#include "packet.h"

#include "tun.h"

#include <linux/virtio_net.h>
#include <stdint.h>
#include <string.h>

int packet_classify(const unsigned char *buf, size_t len, int gso, packet_info_t *info)
{
    struct virtio_net_hdr vh;
    memset(&vh, 0, sizeof vh);
    if (gso) {
        if (len < TUN_GSO_HEADER)
            return -1;
        memcpy(&vh, buf, sizeof vh);
        buf += TUN_GSO_HEADER;
        len -= TUN_GSO_HEADER;
    }
    size_t headers;             /* the IP header's bytes (IPv6: the fixed header alone) */
    uint8_t tso;
    if (len >= 20 && buf[0] >> 4 == 4) {
        headers = (size_t)(buf[0] & 0xf) * 4;
        if (headers < 20 || len < headers)
            return -1;
        info->src_site = buf[14];
        info->dst_site = buf[18];
        tso = VIRTIO_NET_HDR_GSO_TCPV4;
    } else if (len >= 40 && buf[0] >> 4 == 6) {
        /* fd00:0:0:<site>::<host>: the site is the low byte of the fourth group */
        headers = 40;
        info->src_site = buf[8 + 7];
        info->dst_site = buf[24 + 7];
        tso = VIRTIO_NET_HDR_GSO_TCPV6;
    } else {
        return -1;
    }
    info->wire_bytes = len;
    uint8_t type = vh.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
    if (type == tso && vh.gso_size > 0 && len >= headers + 20) {
        headers += (size_t)(buf[headers + 12] >> 4) * 4;
        if (headers < len) {
            size_t segments = (len - headers + vh.gso_size - 1) / vh.gso_size;
            info->wire_bytes = len + (segments - 1) * headers;
        }
    }
    return 0;
}
