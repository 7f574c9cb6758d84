#include "core/match.h"

#include "core/comm.h"
#include "core/errors.h"
#include "core/traffic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static request_t *posted_head, *posted_tail;
static unexpected_t *uq_head, *uq_tail;
static match_lengths_t lengths; /* of the two queues, kept with every link and unlink */
static uint64_t arrivals;       /* messages ever appended to the unexpected queue */
static char clash[256];

static inline int env_matches(uint32_t ctx, int source, int tag, const proto_env_t *e)
{
    return ctx == e->ctx && (source == MPI_ANY_SOURCE || source == e->src) &&
           (tag == MPI_ANY_TAG || tag == e->tag);
}

/* A message's envelope names its sender by its rank in the communicator (what MPI_SOURCE
 * reports): checked once the communicator is known, at matching, against the rank that sent
 * the frame. A peer that names another rank breaks the protocol. */
static void check_source(const comm_t *c, const proto_msg_t *m)
{
    int s = m->env.src;
    if (s < 0 || s >= comm_peer_size(c))
        proto_bad_frame(m->peer, "a message on %s names source rank %d (of %d)",
                        comm_name(c->handle), s, comm_peer_size(c));
    if (comm_peer_world_rank(c, s) != m->peer)
        proto_bad_frame(m->peer, "a message on %s names source rank %d (world rank %d)",
                        comm_name(c->handle), s, comm_peer_world_rank(c, s));
}

/* A receive (ctx, tag) is of the same collective operation as envelope e, but e's sender
 * called another kind of collective there: internal context (odd), stream operations (tags
 * >= 0, so not MPI_ANY_TAG), tags that differ in the kind bits only. Any sender: the
 * operation's number says that it is at the same point of the stream. */
static inline int kind_clash(uint32_t ctx, int tag, const proto_env_t *e)
{
    return (ctx & 1) && tag >= 0 && e->tag >= 0 && ctx == e->ctx && tag != e->tag &&
           ((tag ^ e->tag) & ~COMM_TAG_KIND_MASK) == 0;
}

static const char *op_name(int tag)
{
    return comm_op_name((tag >> 29) & 1 ? COMM_NONBLOCKING : COMM_BLOCKING,
                        (comm_op_kind_t)((tag & COMM_TAG_KIND_MASK) >> COMM_TAG_KIND_SHIFT));
}

/* Completes receive r (no longer posted) with MPI_ERR_NOT_SAME: it met m from job rank peer. */
static void fail_clash(request_t *r, const proto_env_t *m, int peer)
{
    snprintf(clash, sizeof clash, "job rank %d called %s where this process called %s", peer,
             op_name(m->tag), op_name(r->tag));
    request_complete_empty(r, m->src);
    r->error = MPI_ERR_NOT_SAME;
}

int match_clash_waiting(const comm_t *c, int tag)
{
    uint32_t ctx = c->recv_ctx + 1;
    for (const unexpected_t *u = uq_head; u; u = u->next)
        if (kind_clash(ctx, tag, &u->m.env)) {
            snprintf(clash, sizeof clash, "job rank %d called %s where this process called %s",
                     u->m.peer, op_name(u->m.env.tag), op_name(tag));
            return 1;
        }
    return 0;
}

void match_note_clash(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(clash, sizeof clash, fmt, ap);
    va_end(ap);
}

const char *match_last_clash(void)
{
    return clash[0] ? clash : "the members called different collective operations";
}

void match_incoming(const proto_msg_t *m)
{
    traffic_arrived(m->peer);
    for (request_t **pp = &posted_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        request_t *r = *pp;
        int clashes = 0;
        if (!env_matches(r->comm->recv_ctx, r->peer, r->tag, &m->env) &&
            !(clashes = kind_clash(r->comm->recv_ctx, r->tag, &m->env)))
            continue;
        check_source(r->comm, m);
        *pp = r->next;
        if (posted_tail == r)
            posted_tail = prev;
        r->posted = 0;
        lengths.posted--;
        if (!clashes) {
            proto_recv_matched(&r->op, m);
            return;
        }
        fail_clash(r, &m->env, m->peer); /* the message stays unexpected */
        break;
    }
    size_t keep = m->data ? m->size : 0;
    unexpected_t *u = malloc(sizeof *u + keep);
    if (!u)
        err_fatal(MPI_ERR_NO_MEM, "progress",
                  "out of memory buffering a %zu-byte unexpected message from rank %d", keep,
                  m->peer);
    u->m = *m;
    if (m->data) {
        memcpy(u->data, m->data, keep);
        u->m.data = u->data;
    }
    u->next = NULL;
    if (uq_tail)
        uq_tail->next = u;
    else
        uq_head = u;
    uq_tail = u;
    arrivals++;
    if (++lengths.unexpected > lengths.unexpected_max)
        lengths.unexpected_max = lengths.unexpected;
}

/* Unlinks u, found after prev (NULL: at the head). */
static void uq_unlink(unexpected_t *prev, unexpected_t *u)
{
    if (prev)
        prev->next = u->next;
    else
        uq_head = u->next;
    if (uq_tail == u)
        uq_tail = prev;
    lengths.unexpected--;
}

int match_withdraw(int peer, uint64_t remote_id)
{
    for (unexpected_t *u = uq_head, *prev = NULL; u; prev = u, u = u->next) {
        if (u->m.peer != peer || u->m.remote_id != remote_id || !u->m.remote_id)
            continue;
        uq_unlink(prev, u);
        free(u);
        return 1;
    }
    return 0;
}

static unexpected_t *find(const comm_t *c, int source, int tag, int take)
{
    for (unexpected_t *u = uq_head, *prev = NULL; u; prev = u, u = u->next) {
        if (!env_matches(c->recv_ctx, source, tag, &u->m.env))
            continue;
        check_source(c, &u->m);
        if (take)
            uq_unlink(prev, u);
        return u;
    }
    return NULL;
}

unexpected_t *match_peek(const comm_t *c, int source, int tag)
{
    return find(c, source, tag, 0);
}

unexpected_t *match_take(const comm_t *c, int source, int tag)
{
    return find(c, source, tag, 1);
}

void match_deliver(request_t *r, unexpected_t *u)
{
    proto_recv_matched(&r->op, &u->m);
    free(u);
}

void match_post_recv(request_t *r)
{
    if (uq_head) {
        unexpected_t *u = find(r->comm, r->peer, r->tag, 1);
        if (u) {
            match_deliver(r, u);
            return;
        }
        if (r->comm->recv_ctx & 1)
            for (u = uq_head; u; u = u->next)
                if (kind_clash(r->comm->recv_ctx, r->tag, &u->m.env)) {
                    fail_clash(r, &u->m.env, u->m.peer);
                    return;
                }
    }
    r->posted = 1;
    r->next = NULL;
    if (posted_tail)
        posted_tail->next = r;
    else
        posted_head = r;
    posted_tail = r;
    lengths.posted++;
}

int match_unpost(request_t *r)
{
    if (!r->posted)
        return 0;
    for (request_t **pp = &posted_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        if (*pp != r)
            continue;
        *pp = r->next;
        if (posted_tail == r)
            posted_tail = prev;
        r->posted = 0;
        lengths.posted--;
        return 1;
    }
    return 0;
}

void match_close(void)
{
    while (uq_head) {
        unexpected_t *u = uq_head;
        uq_head = u->next;
        free(u);
    }
    uq_tail = NULL;
    posted_head = posted_tail = NULL;
    lengths.posted = lengths.unexpected = 0;
}

match_lengths_t match_lengths(void)
{
    return lengths;
}

uint64_t match_arrivals(void)
{
    return arrivals;
}
