#include "heartbeat.h"

#include "net/liveness.h"

void hb_init(hb_t *h, int seconds)
{
    liveness_heartbeat(seconds, &h->period_ms, &h->timeout_ms);
    h->last_round = 0;
}

void hb_allow_silence(hb_t *h, int seconds)
{
    if (h->timeout_ms && seconds * 1000LL > h->timeout_ms)
        h->timeout_ms = seconds * 1000LL;
}

int hb_round(hb_t *h, long long now)
{
    int away = h->timeout_ms && h->last_round && now - h->last_round > h->timeout_ms / 2;
    h->last_round = now;
    return away;
}

void hb_beat(const hb_t *h, chan_t *c, long long now)
{
    if (!h->period_ms || c->wbroken || c->wfd < 0 || now - c->t_out < h->period_ms)
        return;
    ctl_buf_t *b = chan_out(c);
    ctl_begin(b, CTL_BEAT);
    ctl_end(b);
    chan_send(c);
    c->t_out = now; /* queued counts: a full pipe is the other side's silence, not ours */
}

int hb_silent(const hb_t *h, const chan_t *c, long long now)
{
    return h->timeout_ms && now - c->t_in >= h->timeout_ms;
}

static void fold(int *timeout, long long at, long long now)
{
    long long d = at - now;
    if (d < 0)
        d = 0;
    if (*timeout < 0 || d < *timeout)
        *timeout = (int)d;
}

void hb_fold(const hb_t *h, const chan_t *c, long long now, int *timeout)
{
    if (!h->period_ms)
        return;
    fold(timeout, c->t_out + h->period_ms, now);
    fold(timeout, c->t_in + h->timeout_ms, now);
}
