/*
 * Liveness: how long a peer that stopped answering goes unnoticed (docs/liveness.md).
 * Shared by the library's transports, the launcher, its helpers and the gateway.
 *
 * A rank cannot answer anything while it computes outside MPI (there is no progress thread),
 * so nothing that a rank must answer by itself is timed. Between ranks, and between a rank
 * and its site's gateway, the kernel answers for it:
 *   - TCP keepalive probes a connection that carries nothing: the first probe after T/2 of
 *     silence, then every T/10; no answer to any of them by T ends the connection (ETIMEDOUT);
 *   - a connection whose data goes unacknowledged is judged from the kernel's counters
 *     (liveness_silent): data retransmitted, or a window probe unanswered twice, and nothing
 *     at all received for T. A peer that computes still acknowledges (its kernel does), and
 *     a full receive window is answered too, so neither is taken for a vanished host.
 *     (TCP_USER_TIMEOUT is not used on established connections: it aborts a connection whose
 *     peer advertises a zero window for that long, i.e. a receiver that computes.)
 *   - opening a connection (SYN and the handshake's few bytes) is bounded by T
 *     (TCP_USER_TIMEOUT while the handshake runs; nothing can fill a window then).
 * Daemons (mpirun, metampi-hostd) are always in their event loops: they exchange heartbeats
 * every T/8 and give up on each other after T/2 of silence.
 *
 * T is METAMPI_PEER_TIMEOUT in seconds: default LIVENESS_DEFAULT_S, 0 switches all of this
 * off (the kernel's defaults, no heartbeat).
 */
#ifndef METAMPI_LIVENESS_H
#define METAMPI_LIVENESS_H

#include <stddef.h>

#define LIVENESS_ENV "METAMPI_PEER_TIMEOUT" /* read by runtime/peer_timeout.h */
#define LIVENESS_DEFAULT_S 60
#define LIVENESS_MAX_S 86400

/* Keepalive on a TCP socket, tuned to T (0: the socket is left alone). 0, or -1 (errno). */
int liveness_keepalive(int fd, int seconds);

/* While a connection is being opened: bound its unacknowledged SYN and handshake bytes by T
 * (on = 1), and lift the bound once it is open (on = 0). 0, or -1 (errno). */
int liveness_opening(int fd, int seconds, int on);

/* 1 when the connection waits for an acknowledgement that has not come for T seconds (the
 * peer's host is down or unreachable), 0 otherwise (also when T is 0). */
int liveness_silent(int fd, int seconds);

/* Heartbeats between daemons for T: send one when nothing was sent for *period_ms, give up
 * on a peer silent for *timeout_ms. T = 0: both 0 (none). */
void liveness_heartbeat(int seconds, long long *period_ms, long long *timeout_ms);

#endif
