/*
 * A link's control frames and its reconnection (link.h, "Reconnection"): BYE and ACK on a
 * stream, acknowledgements when due, the RESUME that opens every stream, a break, and the
 * ACKs and RESUMEs the other gateway sends.
 */
#include "link.h"

#include "link_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Queues a frame of GW_WAN_HDR + body bytes whose header is w on stream i. 0, or -1. */
static int queue_control(gw_link_t *l, int i, const gw_wan_t *w, const void *body)
{
    unsigned char *b = malloc(GW_WAN_HDR + w->len);
    if (!b)
        return -1;
    gw_wan_encode(b, w);
    if (w->len)
        memcpy(b + GW_WAN_HDR, body, w->len);
    if (net_outq_push(&l->st[i].out, b, GW_WAN_HDR + w->len, b, (net_completion_t){ 0 }) != 0) {
        free(b);
        return -1;
    }
    return 0;
}

int gw_link_signal(gw_link_t *l, int i, int kind)
{
    gw_wan_t w = { .kind = (uint8_t)kind };
    if (kind == GW_WAN_ACK) {
        w.seq = l->seq_have;
        l->ack_sent = l->seq_have;
        l->ack_bytes = 0;
    }
    return queue_control(l, i, &w, NULL);
}

int gw_link_flush_ack(gw_link_t *l, int now)
{
    if (!l->resumed || l->seq_have == l->ack_sent)
        return 0;
    if (!now && l->seq_have - l->ack_sent < GW_ACK_FRAMES && l->ack_bytes < GW_ACK_BYTES)
        return 0;
    return gw_link_signal(l, gw_link_pick_stream(l), GW_WAN_ACK);
}

int gw_link_stream_open(gw_link_t *l, int i)
{
    unsigned char body[GW_RESUME_LEN];
    memcpy(body, l->instance, GW_INSTANCE);
    if (l->peer_known)
        memcpy(body + GW_INSTANCE, l->peer, GW_INSTANCE);
    else
        memset(body + GW_INSTANCE, 0, GW_INSTANCE);
    gw_wan_t w = { .len = GW_RESUME_LEN, .raw_len = GW_RESUME_LEN, .kind = GW_WAN_RESUME,
                   .seq = l->seq_have };
    if (queue_control(l, i, &w, body) != 0)
        return -1;
    l->st[i].up = 1;
    return 0;
}

/* The credit totals of every rank this link delivered to are due again. */
static void list_all_credit(gw_link_t *l)
{
    for (uint32_t d = 0; d < l->size; d++)
        if (l->dst[d].delivered && !l->dst[d].listed) {
            l->dst[d].listed = 1;
            l->report[l->nreport++] = d;
        }
}

int gw_link_break(gw_link_t *l)
{
    for (int i = 0; i < l->nst; i++) {
        gw_stream_t *s = &l->st[i];
        net_outq_free(&s->out);
        net_rx_free(&s->rx);
        net_secure_free(s->sec);
        *s = (gw_stream_t){ .fd = -1 };
        if (net_rx_init(&s->rx, GW_STREAM_RX) != 0)
            return -1;
    }
    /* frames beyond the contiguous prefix were never acknowledged: they come again */
    for (uint64_t q = l->seq_have; q < l->seq_in + GW_RWIN; q++) {
        gw_rframe_t *r = l->win[q % GW_RWIN];
        if (!r)
            continue;
        l->win[q % GW_RWIN] = NULL;
        l->held -= r->len;
        free(r->data);
        free(r);
    }
    l->resumed = 0;
    l->breaks++;
    list_all_credit(l);
    return 0;
}

int gw_link_resumed(gw_link_t *l)
{
    int r = l->just_resumed;
    l->just_resumed = 0;
    return r;
}

int gw_link_take_ack(gw_link_t *l, uint64_t next, char *err, int errlen)
{
    if (next > l->seq_out) {
        snprintf(err, (size_t)errlen, "an acknowledgement of WAN frame %llu, which was never "
                 "sent (%llu sent)", (unsigned long long)next - 1,
                 (unsigned long long)l->seq_out);
        return -1;
    }
    gw_resend_ack(&l->kept, next);
    return 0;
}

int gw_link_take_resume(gw_link_t *l, int i, const gw_wan_t *w, const unsigned char *b,
                        char *err, int errlen)
{
    static const unsigned char zero[GW_INSTANCE];
    if (l->st[i].resumed) {
        snprintf(err, (size_t)errlen, "a second RESUME on stream %d", i);
        return -1;
    }
    if ((l->peer_known && memcmp(b, l->peer, GW_INSTANCE) != 0) ||
        (memcmp(b + GW_INSTANCE, zero, GW_INSTANCE) != 0 &&
         memcmp(b + GW_INSTANCE, l->instance, GW_INSTANCE) != 0)) {
        snprintf(err, (size_t)errlen, "the other gateway is not the one this link was opened "
                 "with (restarted?): what it had received is lost");
        return -1;
    }
    /* its seq_have never decreases, so its first RESUME after a break covers every ACK it
     * sent before (a later one may be overtaken by ACKs on streams already open) */
    if (!l->resumed && w->seq < l->kept.acked) {
        snprintf(err, (size_t)errlen, "the other gateway resumes from WAN frame %llu after it "
                 "had acknowledged %llu: frames are lost", (unsigned long long)w->seq,
                 (unsigned long long)l->kept.acked);
        return -1;
    }
    if (gw_link_take_ack(l, w->seq, err, errlen) != 0)
        return -1;
    memcpy(l->peer, b, GW_INSTANCE);
    l->peer_known = 1;
    l->st[i].resumed = 1;
    if (l->resumed)
        return 0;
    /* the first RESUME since the break: what it lacks goes out again, before any new frame */
    l->resumed = 1;
    l->just_resumed = 1;
    for (size_t k = 0; k < l->kept.n; k++) {
        if (gw_link_queue_kept(l, gw_resend_at(&l->kept, k)) != 0) {
            snprintf(err, (size_t)errlen, "out of memory resending");
            return -1;
        }
        if (l->breaks)
            l->resent++;
    }
    return 0;
}
