#include "net/frame.h"

#include "net/bytes.h"

void net_frame_hdr_encode(unsigned char out[NET_FRAME_HDR], const net_frame_hdr_t *h)
{
    net_put32(out, h->len);
    out[4] = h->head_len;
    out[5] = h->kind;
    out[6] = out[7] = 0;
}

const char *net_frame_hdr_parse(const unsigned char in[NET_FRAME_HDR], size_t max_len,
                                net_frame_hdr_t *h)
{
    h->len = net_get32(in);
    h->head_len = in[4];
    h->kind = in[5];
    h->src = -1;
    if (in[6] || in[7])
        return "frame header: reserved bytes set";
    if (h->kind == NET_KIND_BYE)
        return h->len || h->head_len ? "frame header: BYE with a body" : NULL;
    if (h->kind != NET_KIND_FRAME)
        return "frame header: unknown kind";
    if (h->len == 0)
        return "frame header: empty frame";
    if (h->len > max_len)
        return "frame header: frame larger than the maximum";
    if (h->head_len > h->len)
        return "frame header: head longer than the frame";
    return NULL;
}
