/*
 * Rate-limited diagnostics: a listener under a flood of connections that fail the handshake
 * writes at most NET_NOTES_MAX "dropped a connection" lines per NET_NOTES_WINDOW_MS, counts
 * the rest, and sums them up in one line when the window ends (a flood must not flood the
 * log). The lines and the summary are the owner's; this counts.
 */
#ifndef METAMPI_NET_NOTES_H
#define METAMPI_NET_NOTES_H

enum { NET_NOTES_WINDOW_MS = 60000, NET_NOTES_MAX = 10 };

typedef struct net_notes {
    long long window;           /* this window's start (ms, net_now_ms) */
    int written, held;          /* lines written in it, lines held back */
} net_notes_t;

/* Ends the window when it is over: returns how many lines it held back (the owner writes
 * the summary line when that is not 0), else 0. */
int net_notes_roll(net_notes_t *n, long long now);

/* Rolls, then counts one line: 1 when it may be written now, 0 when it is held back. *held
 * gets what net_notes_roll returned. */
int net_notes_take(net_notes_t *n, long long now, int *held);

#endif
