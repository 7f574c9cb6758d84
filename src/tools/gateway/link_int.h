/*
 * What the two files of a link share (link.c: sending, receiving, flow control;
 * link_resume.c: control frames and reconnection). One module (src/layers.txt); nothing
 * else includes this.
 */
#ifndef GATEWAY_LINK_INT_H
#define GATEWAY_LINK_INT_H

#include "link.h"

/* The stream with the fewest queued bytes, up ones first; ties in turn. */
int gw_link_pick_stream(gw_link_t *l);
/* Queues kept frame k (borrowed: the kept copy stays until it is acknowledged) on the stream
 * with the fewest queued bytes; the link is resumed, so one is up. 0, or -1 out of memory. */
int gw_link_queue_kept(gw_link_t *l, const gw_kept_t *k);
/* An acknowledgement: the other gateway has every frame below next. 0, or -1 with err. */
int gw_link_take_ack(gw_link_t *l, uint64_t next, char *err, int errlen);
/* A RESUME (header w, body b) on stream i. 0, or -1 with err. */
int gw_link_take_resume(gw_link_t *l, int i, const gw_wan_t *w, const unsigned char *b,
                        char *err, int errlen);

#endif
