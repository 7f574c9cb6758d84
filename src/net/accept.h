/*
 * The acceptor's side of a listener under floods: the connections accepted whose HELLO has
 * not been proven yet (*pending*), kept in a FIFO, oldest first, and bounded three ways:
 *   - each must prove the key by its deadline (`hello_ms` after it was accepted), judged
 *     after the events of a pass, so a HELLO that came while the owner was busy is read first
 *     (net_pending_expire);
 *   - at most `max` at once: beyond, the oldest goes once it had `grace_ms` to answer, and
 *     until then the newcomers wait in the kernel's queue (net_accept says WAIT);
 *   - out of descriptors, the oldest goes, or (none pending) the waiting connection is taken
 *     off the queue and closed at once with the spare descriptor kept for that (fdlimit.h):
 *     a flood can neither end the job nor make the listener spin.
 * Dropping a pending connection is the owner's (it owns the socket and its state): the
 * acceptor calls drop() with the reason, after unlinking it. Invariant: the FIFO is in accept
 * order, and so in deadline order.
 */
#ifndef METAMPI_NET_ACCEPT_H
#define METAMPI_NET_ACCEPT_H

#include <sys/socket.h>

/* Linked into the owner's connection; owner points back to it. */
typedef struct net_pending {
    struct net_pending *next;
    long long t_accept, deadline;   /* ms (net_now_ms) */
    void *owner;
} net_pending_t;

enum net_drop_why {
    NET_DROP_EVICTED,   /* the oldest at the cap, or out of descriptors */
    NET_DROP_LATE,      /* no proof by its deadline */
};

typedef struct net_acceptor {
    int max, grace_ms, hello_ms;
    void (*drop)(void *ctx, net_pending_t *p, enum net_drop_why why);
    void *ctx;
    net_pending_t *head, *tail;
    int n;
} net_acceptor_t;

enum {
    NET_ACCEPT_NONE = -1,   /* nothing waits now (or the kernel is short of memory) */
    NET_ACCEPT_WAIT = -2,   /* at the cap, the oldest within its grace: again at
                             * net_accept_resume_at() */
    NET_ACCEPT_SHED = -3,   /* out of descriptors, a waiting connection was closed at once
                             * (the owner may say so); call again */
};

/* Takes one connection off lfd's queue: its descriptor (non-blocking, close-on-exec) and its
 * address in *from (*fromlen: its size in, the address's out), or NET_ACCEPT_*. Makes room
 * first, as above. The new connection is not pending until net_pending_push. */
int net_accept(net_acceptor_t *a, int lfd, struct sockaddr *from, socklen_t *fromlen,
               long long now);
/* When net_accept may take more after WAIT. */
long long net_accept_resume_at(const net_acceptor_t *a);

/* p (owner: the owner's connection) is accepted now and waits for its HELLO. */
void net_pending_push(net_acceptor_t *a, net_pending_t *p, void *owner, long long now);
/* p is proven, or gone for another reason: no longer pending (nothing if it is not). */
void net_pending_remove(net_acceptor_t *a, net_pending_t *p);
/* Drops (NET_DROP_LATE) those past their deadline. */
void net_pending_expire(net_acceptor_t *a, long long now);
/* Drops the oldest (NET_DROP_EVICTED) to give its descriptor to something else: 1, or 0
 * when none is pending. */
int net_pending_evict_oldest(net_acceptor_t *a);

#endif
