/*
 * A control channel (ctl.h) on the event loop: frames in from rfd, frames out to wfd.
 *
 * Invariants:
 *   - frames are handed to ops.frame whole and validated (ctl_parse), in order; the frame's
 *     pointers are valid only during the call;
 *   - the input buffer never holds more than one frame's worth beyond what was parsed
 *     (CTL_MAX_FRAME + 4), so a peer cannot make us buffer without bound;
 *   - ops.closed is called exactly once, when the input ends: orderly EOF (why == NULL), a
 *     malformed frame, EOF within a frame, or a read error (why says which); no frame is
 *     delivered after it. The callbacks may call chan_close;
 *   - output: with `blocking` every chan_send writes the whole frame before it returns (the
 *     helper: its peer, mpirun, always reads, and a bounded helper must not queue rank
 *     output without limit) — but a write that makes no progress for `stall_ms` (a peer
 *     that vanished, with the pipe full) gives up, as on a write error; without `blocking`
 *     frames are queued and written as wfd accepts them (mpirun: a stuck helper never blocks
 *     mpirun). A write error (the peer is gone) drops all further output (`wbroken`); the
 *     input side notices the end;
 *   - t_in and t_out say when bytes last came in and went out (for heartbeats).
 */
#ifndef LAUNCH_CHANNEL_H
#define LAUNCH_CHANNEL_H

#include "ctl.h"
#include "evloop.h"

typedef struct chan_ops {
    void (*frame)(void *ctx, const ctl_frame_t *f);
    void (*closed)(void *ctx, const char *why);
} chan_ops_t;

typedef struct chan {
    ev_loop_t *loop;
    int rfd, wfd;        /* -1 once closed */
    int blocking;
    int ended;           /* ops.closed was called */
    int wbroken;         /* a write failed: output is dropped */
    long long stall_ms;  /* blocking output: give up after this long without progress; 0: never */
    long long t_in, t_out;  /* net_now_ms() of the last bytes read / written */
    unsigned char *in;
    size_t inlen, incap;
    ctl_buf_t out;       /* build frames here (chan_out), then chan_send */
    size_t outoff;       /* bytes of out already written */
    chan_ops_t ops;
    void *ctx;
} chan_t;

void chan_open(chan_t *c, ev_loop_t *loop, int rfd, int wfd, int blocking,
               const chan_ops_t *ops, void *ctx);
/* The buffer to build the next frame in (ctl_begin ... ctl_end). */
ctl_buf_t *chan_out(chan_t *c);
/* Writes (or queues) the frames built since the last call. */
void chan_send(chan_t *c);
/* Processes whatever input is available now without blocking (bounded). */
void chan_drain(chan_t *c);
/* Bytes not yet written (non-blocking channels). */
size_t chan_pending(const chan_t *c);
/* Closes the output (the peer sees EOF) after writing what is queued, as far as it goes
 * without blocking; input continues until the peer closes. */
void chan_close_write(chan_t *c);
/* Closes both directions; no callback after this. */
void chan_close(chan_t *c);

#endif
