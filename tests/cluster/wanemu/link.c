#include "link.h"

#include <string.h>

void link_init(link_t *l, int src, int dst, const wan_params_t *p)
{
    memset(l, 0, sizeof *l);
    l->src = src;
    l->dst = dst;
    l->tokens = (double)p->burst_bytes;
}

int link_lost(const wan_params_t *p, double u)
{
    return p->loss > 0 && u < p->loss;
}

int link_admit(link_t *l, const wan_params_t *p, pkt_t *k, uint64_t now_ns)
{
    uint64_t release = now_ns;
    double tokens = 0;
    if (p->rate_bps) {
        double bytes_per_ns = (double)p->rate_bps / 8e9;
        /* the bucket as it is when this packet reaches the head of the shaper's queue */
        uint64_t start = now_ns > l->release_ns ? now_ns : l->release_ns;
        tokens = l->tokens + (double)(start - l->release_ns) * bytes_per_ns;
        if (tokens > (double)p->burst_bytes)
            tokens = (double)p->burst_bytes;
        release = start;
        if (tokens >= (double)k->wire_bytes) {
            tokens -= (double)k->wire_bytes;
        } else {
            release += (uint64_t)(((double)k->wire_bytes - tokens) / bytes_per_ns + 0.5);
            tokens = 0;
        }
        if (release - now_ns > p->queue_ns) {
            l->st.overflow++;
            return 0;
        }
    }
    l->release_ns = release;
    l->tokens = tokens;
    k->due_ns = release + p->delay_ns;
    k->next = NULL;
    if (l->tail)
        l->tail->next = k;
    else
        l->head = k;
    l->tail = k;
    l->st.in++;
    return 1;
}

pkt_t *link_due(link_t *l, uint64_t now_ns)
{
    pkt_t *k = l->head;
    if (!k || k->due_ns > now_ns)
        return NULL;
    l->head = k->next;
    if (!l->head)
        l->tail = NULL;
    l->st.out++;
    l->st.out_bytes += k->wire_bytes;
    return k;
}
