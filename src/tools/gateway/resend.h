/*
 * The WAN frames a link has sent and the other gateway has not acknowledged yet, kept so that
 * they can be sent again after the link's streams break (link.h, "Reconnection"). A FIFO in
 * sequence order: frames enter as the link numbers them and leave, oldest first, when an ACK
 * or RESUME says the other gateway has them. Each frame's buffer is owned here; the streams'
 * queues only borrow it (net/outq.h), which is safe because the other gateway cannot
 * acknowledge a frame before its last byte has left our queue.
 */
#ifndef GATEWAY_RESEND_H
#define GATEWAY_RESEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct gw_kept {
    uint64_t seq;
    size_t len;                  /* header and body, as sent */
    unsigned char *buf;
} gw_kept_t;

typedef struct gw_resend {
    gw_kept_t *ring;             /* cap entries, n of them from first */
    size_t cap, first, n;
    size_t bytes;                /* in all kept frames */
    uint64_t acked;              /* every frame below it is acknowledged (and freed) */
} gw_resend_t;

/* Keeps frame buf[0..len) numbered seq (the next after the last kept, or the first): takes
 * buf. 0, or -1 out of memory (buf is still the caller's). */
int gw_resend_keep(gw_resend_t *r, uint64_t seq, unsigned char *buf, size_t len);
/* The other gateway has every frame below `next`: those are freed. A `next` below the last
 * acknowledgement is an old ACK overtaken by a newer one on another stream: nothing. */
void gw_resend_ack(gw_resend_t *r, uint64_t next);
/* The i-th kept frame, oldest first (i < r->n). */
const gw_kept_t *gw_resend_at(const gw_resend_t *r, size_t i);
void gw_resend_free(gw_resend_t *r);

#endif
