/*
 * A connector's backoff: an attempt closed before it was proven (the acceptor was not
 * listening yet, evicted it in a flood, dropped it while we were away computing) is followed
 * by another, min_ms later, doubling up to max_ms (min == max: a fixed period). How long to
 * keep trying, and what counts as a refusal for good, is the owner's policy.
 */
#ifndef METAMPI_NET_RETRY_H
#define METAMPI_NET_RETRY_H

typedef struct net_retry {
    int min_ms, max_ms;
    int fails;                  /* attempts closed in a row */
    long long since;            /* when the first of them failed (ms) */
} net_retry_t;

/* Counts a failed attempt at now: returns how long to wait before the next one (ms). */
long long net_retry_failed(net_retry_t *r, long long now);
/* The attempts succeeded, or are judged afresh. */
void net_retry_reset(net_retry_t *r);

#endif
