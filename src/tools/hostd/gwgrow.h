/*
 * The site gateway learns of spawned ranks (docs/dynproc.md, "Several sites"): mpirun's
 * PARTS GW_RANKS (a part's job-wide numbers and their sites) becomes one line on the
 * gateway's control socket ("ranks TAG BASE COUNT SITES", tools/gateway/grow.c, TAG = the
 * part's id); the gateway's answer ("ok TAG" or "no TAG WHY") becomes GW_READY to mpirun,
 * which starts the part only when every gateway has answered ok.
 */
#ifndef HOSTD_GWGROW_H
#define HOSTD_GWGROW_H

#include "channel.h"
#include "ctl.h"
#include "evloop.h"
#include "gwproc.h"

#include <stddef.h>

typedef struct gwgrow {
    ev_loop_t *loop;
    chan_t *ch;                /* to mpirun */
    gwproc_t *gw;
    int watching;              /* the control socket is watched */
    char buf[2048];            /* the gateway's answers, a line at a time */
    size_t len;
} gwgrow_t;

/* After the gateway started (gw->control_fd open). */
void gwgrow_start(gwgrow_t *w, ev_loop_t *loop, chan_t *ch, gwproc_t *gw);
/* A GW_RANKS frame: 0, or -1 with why (a protocol error of mpirun). */
int gwgrow_frame(gwgrow_t *w, const ctl_frame_t *f, const char *host, char *why, size_t cap);
/* The gateway ended: its socket is no longer watched. */
void gwgrow_stop(gwgrow_t *w);

#endif
