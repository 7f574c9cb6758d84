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
    if (len < 20 || buf[0] >> 4 != 4)
        return -1;
    size_t ihl = (size_t)(buf[0] & 0xf) * 4;
    if (ihl < 20 || len < ihl)
        return -1;
    info->src_site = buf[14];
    info->dst_site = buf[18];
    info->wire_bytes = len;
    uint8_t type = vh.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
    if (type == VIRTIO_NET_HDR_GSO_TCPV4 && vh.gso_size > 0 && len >= ihl + 20) {
        size_t headers = ihl + (size_t)(buf[ihl + 12] >> 4) * 4;
        if (headers < len) {
            size_t segments = (len - headers + vh.gso_size - 1) / vh.gso_size;
            info->wire_bytes = len + (segments - 1) * headers;
        }
    }
    return 0;
}
