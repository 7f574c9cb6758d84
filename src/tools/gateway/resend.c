#include "resend.h"

#include <stdlib.h>
#include <string.h>

int gw_resend_keep(gw_resend_t *r, uint64_t seq, unsigned char *buf, size_t len)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        gw_kept_t *ring = malloc(cap * sizeof *ring);
        if (!ring)
            return -1;
        for (size_t i = 0; i < r->n; i++)
            ring[i] = r->ring[(r->first + i) % r->cap];
        free(r->ring);
        r->ring = ring;
        r->cap = cap;
        r->first = 0;
    }
    r->ring[(r->first + r->n) % r->cap] = (gw_kept_t){ .seq = seq, .len = len, .buf = buf };
    r->n++;
    r->bytes += len;
    return 0;
}

void gw_resend_ack(gw_resend_t *r, uint64_t next)
{
    if (next <= r->acked)
        return;
    r->acked = next;
    while (r->n && r->ring[r->first].seq < next) {
        gw_kept_t *k = &r->ring[r->first];
        r->bytes -= k->len;
        free(k->buf);
        r->first = (r->first + 1) % r->cap;
        r->n--;
    }
}

const gw_kept_t *gw_resend_at(const gw_resend_t *r, size_t i)
{
    return &r->ring[(r->first + i) % r->cap];
}

void gw_resend_free(gw_resend_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->ring[(r->first + i) % r->cap].buf);
    free(r->ring);
    memset(r, 0, sizeof *r);
}
