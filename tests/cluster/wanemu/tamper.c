#include "tamper.h"

#include "tun.h"

#include <arpa/inet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <string.h>

static unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

uint16_t tamper_mend(uint16_t ck, uint16_t old, uint16_t new_)
{
    /* HC' = ~(~HC + ~m + m'), in one's-complement arithmetic */
    uint32_t sum = (uint16_t)~ck;
    sum += (uint16_t)~old;
    sum += new_;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

int tamper_flip(unsigned char *buf, size_t len, int gso, unsigned port, tamper_report_t *r)
{
    struct virtio_net_hdr vh;
    memset(&vh, 0, sizeof vh);
    if (gso) {
        if (len < TUN_GSO_HEADER)
            return 0;
        memcpy(&vh, buf, sizeof vh);
        buf += TUN_GSO_HEADER;
        len -= TUN_GSO_HEADER;
    }
    size_t tcp, end;            /* the TCP header's offset, the IP packet's end */
    if (len >= 20 && buf[0] >> 4 == 4) {
        tcp = (size_t)(buf[0] & 0xf) * 4;
        if (tcp < 20 || buf[9] != 6 || (be16(buf + 6) & 0x3fff) != 0)  /* not TCP, a fragment */
            return 0;
        end = be16(buf + 2);
        inet_ntop(AF_INET, buf + 12, r->src, sizeof r->src);
        inet_ntop(AF_INET, buf + 16, r->dst, sizeof r->dst);
    } else if (len >= 40 && buf[0] >> 4 == 6) {
        tcp = 40;
        if (buf[6] != 6)
            return 0;
        end = 40 + be16(buf + 4);
        inet_ntop(AF_INET6, buf + 8, r->src, sizeof r->src);
        inet_ntop(AF_INET6, buf + 24, r->dst, sizeof r->dst);
    } else {
        return 0;
    }
    if (end > len || end == tcp)    /* a length of 0: a GSO packet larger than it can say */
        end = len;
    if (tcp + 20 > end)
        return 0;
    unsigned char *t = buf + tcp;
    size_t doff = (size_t)(t[12] >> 4) * 4;
    if (doff < 20 || tcp + doff >= end)                         /* no payload */
        return 0;
    r->sport = be16(t);
    r->dport = be16(t + 2);
    if (port && r->sport != port && r->dport != port)
        return 0;
    r->payload = end - tcp - doff;
    r->offset = r->payload / 2;
    size_t at = doff + r->offset;   /* in the segment, from its header: the checksum's words
                                     * start there (the pseudo-header's length is even) */
    r->seq = (uint32_t)((uint32_t)be16(t + 4) << 16 | be16(t + 6)) + (uint32_t)r->offset;
    size_t seg = end - tcp;
    unsigned char *w = t + (at & ~(size_t)1);   /* the checksum word holding the byte; a */
    int whole = (size_t)(w - t) + 1 < seg;      /* last odd byte is padded with a zero */
    uint16_t old = (uint16_t)(whole ? be16(w) : (unsigned)w[0] << 8);
    t[at] ^= TAMPER_BIT;
    uint16_t new_ = (uint16_t)(whole ? be16(w) : (unsigned)w[0] << 8);
    /* With VIRTIO_NET_HDR_F_NEEDS_CSUM the field holds only the pseudo-header's sum and the
     * kernel sums the payload, as altered, when it completes it: nothing to mend. Otherwise
     * the field covers the payload: mend it as an attacker would. */
    r->mended = !(vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM);
    if (r->mended) {
        uint16_t ck = tamper_mend((uint16_t)be16(t + 16), old, new_);
        t[16] = (unsigned char)(ck >> 8);
        t[17] = (unsigned char)ck;
    }
    return 1;
}
