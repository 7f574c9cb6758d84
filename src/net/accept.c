#include "net/accept.h"

#include "net/fdlimit.h"

#include <errno.h>
#include <stddef.h>

static void unlink_head(net_acceptor_t *a)
{
    net_pending_t *p = a->head;
    a->head = p->next;
    if (!a->head)
        a->tail = NULL;
    a->n--;
    p->next = NULL;
}

int net_pending_evict_oldest(net_acceptor_t *a)
{
    net_pending_t *p = a->head;
    if (!p)
        return 0;
    unlink_head(a);
    a->drop(a->ctx, p, NET_DROP_EVICTED);
    return 1;
}

void net_pending_push(net_acceptor_t *a, net_pending_t *p, void *owner, long long now)
{
    p->next = NULL;
    p->owner = owner;
    p->t_accept = now;
    p->deadline = now + a->hello_ms;
    if (a->tail)
        a->tail->next = p;
    else
        a->head = p;
    a->tail = p;
    a->n++;
}

void net_pending_remove(net_acceptor_t *a, net_pending_t *p)
{
    net_pending_t *prev = NULL;
    for (net_pending_t *q = a->head; q; prev = q, q = q->next)
        if (q == p) {
            if (prev)
                prev->next = p->next;
            else
                a->head = p->next;
            if (a->tail == p)
                a->tail = prev;
            a->n--;
            p->next = NULL;
            return;
        }
}

void net_pending_expire(net_acceptor_t *a, long long now)
{
    while (a->head && now > a->head->deadline) {
        net_pending_t *p = a->head;
        unlink_head(a);
        a->drop(a->ctx, p, NET_DROP_LATE);
    }
}

long long net_accept_resume_at(const net_acceptor_t *a)
{
    return a->head ? a->head->t_accept + a->grace_ms : 0;
}

int net_accept(net_acceptor_t *a, int lfd, struct sockaddr *from, socklen_t *fromlen,
               long long now)
{
    socklen_t cap = *fromlen;
    for (;;) {
        if (a->n >= a->max) {
            if (now < net_accept_resume_at(a))
                return NET_ACCEPT_WAIT;
            net_pending_evict_oldest(a);
        }
        *fromlen = cap;
        int fd = accept4(lfd, from, fromlen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            return fd;
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE) {
            if (net_pending_evict_oldest(a))
                continue;
            if (fdlimit_shed(lfd) == 0)
                return NET_ACCEPT_SHED;
        }
        return NET_ACCEPT_NONE; /* EAGAIN; ENOBUFS, ENOMEM: later */
    }
}
