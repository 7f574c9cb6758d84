/*
 * Heartbeats on a control channel (ctl.h, BEAT): mpirun and each helper send one when nothing
 * else went out for the period, and take the other side for gone when nothing came in for
 * the timeout (net/liveness.h: T/8 and T/2 of METAMPI_PEER_TIMEOUT). Both are always in
 * their event loops, so silence is never work; the one exception is their own: a process
 * that was not running (stopped, the whole job suspended) does not count the time it was
 * away against the other side (hb_round).
 */
#ifndef LAUNCH_HEARTBEAT_H
#define LAUNCH_HEARTBEAT_H

#include "channel.h"

typedef struct hb {
    long long period_ms, timeout_ms;  /* 0: no heartbeat */
    long long last_round;             /* net_now_ms() of the loop's last round */
} hb_t;

/* For a peer timeout of `seconds` (0: off). */
void hb_init(hb_t *h, int seconds);
/* The other side may be silent for `seconds` at least (a WAN outage the job survives: a
 * helper at another site than mpirun's): raises the timeout to it, the period stays. */
void hb_allow_silence(hb_t *h, int seconds);
/* Once per round of the loop, before the checks: 1 when this process was away for longer
 * than half the timeout (the caller restarts the clocks: chan->t_in = now). */
int hb_round(hb_t *h, long long now);
/* Sends a BEAT on c when nothing went out for the period. */
void hb_beat(const hb_t *h, chan_t *c, long long now);
/* Whether nothing came in on c for the timeout. */
int hb_silent(const hb_t *h, const chan_t *c, long long now);
/* Folds c's next beat and its silence deadline into the loop's timeout (ms, -1: none). */
void hb_fold(const hb_t *h, const chan_t *c, long long now, int *timeout);

#endif
